// iproute2's tail call convention, which Cilium's legacy builds rely on: a
// program in section "ID/KEY" goes into slot KEY of the program array whose
// struct bpf_elf_map has id ID when the object loads (tc's loader does it;
// KEY as sscanf's %i reads it, 0x3 is 3). Sections naming a slot past the
// array's end, or an id no program array has, fill nothing. The entry
// jumps to slot 0 to 3 by the packet's byte 19 (an IPv4 id's low byte): 2 answers TX, 3 DROP
// (read from .data and .rodata),
// 0 and 1 are empty, so the entry's own PASS follows. Host = kernel (the
// kernel back end loads the object with ebpf-gpu's own loader: libbpf 1.x
// opens no legacy `maps` section) and = GPU.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 200 --seed 5
// RUN: ebpf-gpu-loader run %t.o --section xdp --pcap %t.pcap --backend host --verdicts %t.host.txt | FileCheck %s
// CHECK-DAG: XDP_DROP {{[1-9][0-9]*}}
// CHECK-DAG: XDP_PASS {{[1-9][0-9]*}}
// CHECK-DAG: XDP_TX {{[1-9][0-9]*}}
// CHECK-DAG: XDP_ABORTED 0
// RUN: ebpf-gpu-cc %t.o --section xdp -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --verdicts %t.gpu.txt > /dev/null %}
// RUN: %if cuda-gpu %{ diff %t.host.txt %t.gpu.txt %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --section xdp --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: entry: both: 200 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_elf_map {
  __u32 type, size_key, size_value, max_elem, flags, id, pinning, inner_id, inner_idx;
};

struct bpf_elf_map SEC("maps") jumps = {
    .type = BPF_MAP_TYPE_PROG_ARRAY, .size_key = 4, .size_value = 4, .max_elem = 4, .id = 7};

// Their answers come from global data, at offsets past a map value's
// start (the kernel back end patches those references itself).
volatile __u32 answers[4] = {XDP_ABORTED, XDP_ABORTED, XDP_TX, XDP_ABORTED};
const volatile __u32 drop_answer[2] = {XDP_ABORTED, XDP_DROP};

SEC("7/2") int tail_two(struct xdp_md *ctx) { return answers[2]; }
SEC("7/0x3") int tail_three(struct xdp_md *ctx) { return drop_answer[1]; }
SEC("7/9") int past_end(struct xdp_md *ctx) { return XDP_ABORTED; }
SEC("8/0") int no_such_id(struct xdp_md *ctx) { return XDP_ABORTED; }

SEC("xdp") int entry(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 20 > end)
    return XDP_PASS;
  bpf_tail_call(ctx, &jumps, ((__u8 *)data)[19] & 3);
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

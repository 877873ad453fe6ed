// Program array slots named in the object's BTF, as Cilium's modern builds
// name them: `__declare_tail(ID)` puts the declaration tag "tail:MAP/SLOT"
// on the tail program's function, and Cilium's loader fills MAP's SLOT
// with it at load. ebpf-gpu's object reader does the same for every back
// end (the kernel's, after libbpf's load): slot 0 answers TX, slot 1 DROP,
// slot 2 has no program (PASS); a tag naming a map that holds no programs,
// a slot past the array, or a function that is no program fills nothing.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 200 --seed 6
// RUN: ebpf-gpu-loader run %t.o --section entry --pcap %t.pcap --verdicts %t.host.txt | FileCheck %s
// CHECK-DAG: XDP_TX {{ *[1-9][0-9]*}}
// CHECK-DAG: XDP_DROP {{ *[1-9][0-9]*}}
// CHECK-DAG: XDP_PASS {{ *[1-9][0-9]*}}
// RUN: ebpf-gpu-cc %t.o --emit=maps | FileCheck %s --check-prefix=SLOTS
// SLOTS: jumps: prog_array key 4B value 4B max_entries 3 slots 0=to_tx,1=to_drop{{$}}
// SLOTS-NEXT: counts: array key 4B value 8B max_entries 2{{$}}
// RUN: ebpf-gpu-cc %t.o --section entry -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --verdicts %t.gpu.txt > /dev/null %}
// RUN: %if cuda-gpu %{ diff %t.host.txt %t.gpu.txt %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --section entry --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: entry: both: 200 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define tail(MAP, SLOT) __attribute__((btf_decl_tag("tail:" #MAP "/" #SLOT)))

struct {
  __uint(type, BPF_MAP_TYPE_PROG_ARRAY);
  __uint(max_entries, 3);
  __type(key, __u32);
  __type(value, __u32);
} jumps SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

SEC("xdp") int entry(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 20 > end)
    return XDP_PASS;
  bpf_tail_call(ctx, &jumps, ((__u8 *)data)[19] % 3);
  return XDP_PASS;
}

tail(jumps, 0) SEC("xdp") int to_tx(struct xdp_md *ctx) { return XDP_TX; }

tail(jumps, 1) SEC("xdp") int to_drop(struct xdp_md *ctx) { return XDP_DROP; }

// Tags that fill nothing: a map of another type, a slot past the array.
tail(counts, 0) SEC("xdp") int not_an_array(struct xdp_md *ctx) { return XDP_ABORTED; }

tail(jumps, 7) SEC("xdp") int past_the_end(struct xdp_md *ctx) { return XDP_ABORTED; }

char _license[] SEC("license") = "GPL";

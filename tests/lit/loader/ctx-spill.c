// The context pointer spilled to the stack survives a map helper call (map
// helpers write no stack) and a bpf_xdp_load_bytes into other stack bytes:
// its reloads still read xdp_md fields, rewritten to the runtime's layout.
// The lifter once forgot every spill at a helper call taking a stack
// pointer, and the reload read the runtime context's bytes at the xdp_md
// offset (data_meta's low half for rx_queue_index) without a word, or
// refused bpf_xdp_load_bytes its context argument.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 3 --seed 1
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s < %t.maps
// RUN: %if kernel-bpf %{ ebpf-gpu-loader run %t.o --pcap %t.pcap --backend kernel --dump-maps %t.kernel.maps > /dev/null %}
// RUN: %if kernel-bpf %{ diff %t.maps %t.kernel.maps %}
// SUMMARY: XDP_PASS 3
// CHECK: out[0] = 303
// CHECK: out[1] = 305
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u64);
} out SEC(".maps");

static __always_inline __u64 get(__u32 k) {
  __u64 *v = bpf_map_lookup_elem(&out, &k);
  return v ? *v + k : 0;
}

SEC("xdp") int spill(struct xdp_md *ctx) {
  // Five values live across helper calls, with the context: more than
  // r6-r9 hold, so clang spills some of them (the context included).
  __u64 a = get(0), b = get(1), c = get(0), d = get(1), e = get(0);
  __u32 k = 0;
  __u64 *v = bpf_map_lookup_elem(&out, &k);
  if (v)
    *v = ctx->rx_queue_index + 7 + a + b + c + d + e;
  char buf[8];
  bpf_xdp_load_bytes(ctx, 0, buf, sizeof(buf));
  k = 1;
  v = bpf_map_lookup_elem(&out, &k);
  if (v)
    *v = ctx->rx_queue_index + 9 + a + b + c + d + e;
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

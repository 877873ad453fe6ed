// A map value pointer may carry a variable offset up to the kernel's
// BPF_MAX_VAR_OFF (2^29), checked against the value's size at each access:
// Cilium's maglev tables are arrays of 32,749 backend ids in one 130,996-
// byte value (the limit was 65,535, the packet pointers' MAX_PACKET_OFF).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --section pick -o %t.gpu.o
// RUN: not ebpf-gpu-cc %t.o --section past_end 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: map value read of 4 bytes at offset 0..131068 is outside the 130996-byte value of map 'maglev'
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 6 --seed 3
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: pick: both: 6 packets, host and kernel agree
// KERNEL: past_end: neither: {{.*}}
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define LUT 32749

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32[LUT]);
} maglev SEC(".maps");

char _license[] SEC("license") = "GPL";

SEC("xdp") int pick(struct xdp_md *ctx) {
  __u32 zero = 0;
  __u32 *lut = bpf_map_lookup_elem(&maglev, &zero);
  if (!lut)
    return XDP_ABORTED;
  __u32 i = (ctx->data_end - ctx->data) * 8;
  if (i >= LUT)
    return XDP_PASS;
  return lut[i] == 0 ? XDP_PASS : XDP_DROP;
}

SEC("xdp") int past_end(struct xdp_md *ctx) {
  __u32 zero = 0;
  __u32 *lut = bpf_map_lookup_elem(&maglev, &zero);
  if (!lut)
    return XDP_ABORTED;
  __u32 i = (ctx->data_end - ctx->data) & 0x7fff;
  return lut[i] == 0 ? XDP_PASS : XDP_DROP;
}

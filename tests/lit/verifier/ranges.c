// Bounds from 32-bit and signed compares, as clang emits them for -mcpu=v3
// (ALU32, JMP32) and v4 (sign-extending moves): a signed 32-bit offset from
// configuration, the low half of a 64-bit value, an index below a bounded
// variable. Before 32-bit subregister bounds ours refused signed_off and
// low_half (v3, v4) and var_bound (all); the kernel loads every one.
// RUN: %clang-bpf -c %s -o %t.v1.o
// RUN: %clang-bpf -mcpu=v3 -c %s -o %t.v3.o
// RUN: %clang-bpf -mcpu=v4 -c %s -o %t.v4.o
// RUN: ebpf-gpu-cc %t.v1.o --section signed_off --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v1.o --section flag_bits --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v1.o --section low_half --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v1.o --section known_bits --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v1.o --section signed_byte --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v1.o --section var_bound --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v3.o --section signed_off --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v3.o --section flag_bits --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v3.o --section low_half --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v3.o --section known_bits --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v3.o --section signed_byte --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v3.o --section var_bound --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v4.o --section signed_off --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v4.o --section flag_bits --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v4.o --section low_half --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v4.o --section known_bits --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v4.o --section signed_byte --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.v4.o --section var_bound --emit=verifier-log | FileCheck %s
// CHECK: verified:
// RUN: %if kernel-bpf %{ bpftool prog loadall %t.v3.o /sys/fs/bpf/ebpf_gpu_lit_ranges3 type xdp %}
// RUN: %if kernel-bpf %{ rm -rf /sys/fs/bpf/ebpf_gpu_lit_ranges3 %}
// RUN: %if kernel-bpf %{ bpftool prog loadall %t.v4.o /sys/fs/bpf/ebpf_gpu_lit_ranges4 type xdp %}
// RUN: %if kernel-bpf %{ rm -rf /sys/fs/bpf/ebpf_gpu_lit_ranges4 %}

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct rule {
  __u32 delta;
  __u32 flags;
  __u64 wide;
  __u8 bytes[64];
};
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct rule);
  __uint(max_entries, 4);
} rules SEC(".maps");

static __always_inline struct rule *rule0(void) {
  __u32 k = 0;
  return bpf_map_lookup_elem(&rules, &k);
}

// A signed 32-bit offset from configuration: negative means "off".
SEC("xdp") int signed_off(struct xdp_md *ctx) {
  struct rule *r = rule0();
  if (!r)
    return XDP_PASS;
  int delta = (int)r->delta;
  if (delta < 0)
    return XDP_PASS;
  if (delta > 40)
    return XDP_DROP;
  return r->bytes[delta] ? XDP_DROP : XDP_PASS;
}

// Flags decide; the bits tested clear bound the index.
SEC("xdp") int flag_bits(struct xdp_md *ctx) {
  unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 1 > end)
    return XDP_PASS;
  struct rule *r = rule0();
  if (!r)
    return XDP_PASS;
  __u32 x = data[0];
  if (x & 0xc0)
    return XDP_PASS;
  return r->bytes[x] ? XDP_DROP : XDP_PASS;
}

// The low half of a 64-bit value, compared as 32 bits.
SEC("xdp") int low_half(struct xdp_md *ctx) {
  struct rule *r = rule0();
  if (!r)
    return XDP_PASS;
  __u64 w = r->wide;
  if ((__u32)w >= 64)
    return XDP_PASS;
  return r->bytes[(__u32)w] ? XDP_DROP : XDP_PASS;
}

// Known bits through AND, OR and shifts.
SEC("xdp") int known_bits(struct xdp_md *ctx) {
  unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 2 > end)
    return XDP_PASS;
  struct rule *r = rule0();
  if (!r)
    return XDP_PASS;
  __u32 idx = ((data[0] & 0x3) << 4) | (data[1] >> 4);
  return r->bytes[idx] ? XDP_DROP : XDP_PASS;
}

// A signed byte must not be negative.
SEC("xdp") int signed_byte(struct xdp_md *ctx) {
  unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 1 > end)
    return XDP_PASS;
  struct rule *r = rule0();
  if (!r)
    return XDP_PASS;
  int v = (signed char)data[0];
  if (v < 0)
    return XDP_DROP;
  return r->bytes[v & 63] ? XDP_DROP : XDP_PASS;
}

// Compared with a bounded variable, not a constant.
SEC("xdp") int var_bound(struct xdp_md *ctx) {
  unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 2 > end)
    return XDP_PASS;
  struct rule *r = rule0();
  if (!r)
    return XDP_PASS;
  __u32 lim = data[1] & 63;
  __u32 i = data[0];
  if (i >= lim)
    return XDP_PASS;
  return r->bytes[i] ? XDP_DROP : XDP_PASS;
}
char LICENSE[] SEC("license") = "GPL";

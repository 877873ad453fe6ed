// Safe programs with the patterns real parsers use are accepted, and the
// kernel accepts them too: a bounded loop over packet bytes, a variable
// offset from a header length, map lookups with null checks, spills.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --section loop_sum --emit=verifier-log | FileCheck %s --check-prefix=LOOP
// LOOP: verified: {{[0-9]+}} instructions processed
// RUN: ebpf-gpu-cc %t.o --section ip_options --emit=verifier-log | FileCheck %s --check-prefix=VAROFF
// VAROFF: verified:
// RUN: ebpf-gpu-cc %t.o --section count --emit=verifier-log | FileCheck %s --check-prefix=MAP
// MAP: verified:
// RUN: ebpf-gpu-cc %t.o --section const_key --emit=verifier-log | FileCheck %s --check-prefix=MAP
// RUN: ebpf-gpu-cc %t.o --section padded_key --emit=verifier-log | FileCheck %s --check-prefix=MAP
// The kernel loads all of them (but const_key: 6.18 skips the null check
// only for a zero key; any constant key below max_entries is as safe).
// RUN: %clang-bpf -DKERNEL_CHECK -c %s -o %t.k.o
// RUN: %if kernel-bpf %{ bpftool prog loadall %t.k.o /sys/fs/bpf/ebpf_gpu_lit_accepted type xdp %}
// RUN: %if kernel-bpf %{ rm -rf /sys/fs/bpf/ebpf_gpu_lit_accepted %}

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 256);
} per_proto SEC(".maps");

SEC("xdp") int loop_sum(struct xdp_md *ctx) {
  unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 64 > end)
    return XDP_PASS;
  __u32 sum = 0;
#pragma clang loop unroll(disable)
  for (int i = 0; i < 64; i++)
    sum += data[i];
  return sum & 1 ? XDP_DROP : XDP_PASS;
}

SEC("xdp") int ip_options(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > end)
    return XDP_PASS;
  unsigned char *l4 = (unsigned char *)ip + ip->ihl * 4;
  if (l4 + 4 > (unsigned char *)end)
    return XDP_PASS;
  return l4[2] == 0 && l4[3] == 80 ? XDP_DROP : XDP_PASS;
}

SEC("xdp") int count(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end)
    return XDP_ABORTED;
  struct iphdr *ip = (void *)(eth + 1);
  __u32 key = 255;
  if ((void *)(ip + 1) <= end)
    key = ip->protocol;
  __u64 *c = bpf_map_lookup_elem(&per_proto, &key);
  if (c)
    __sync_fetch_and_add(c, 1);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

#ifndef KERNEL_CHECK
// An array lookup with a constant key below max_entries cannot fail, so no
// null check is needed.
SEC("xdp") int const_key(struct xdp_md *ctx) {
  __u32 key = 6;
  __u64 *c = bpf_map_lookup_elem(&per_proto, &key);
  return *c ? XDP_DROP : XDP_PASS;
}
#endif

// Map keys may contain struct padding the program never writes (the kernel
// accepts it; the runtime zeroes every stack frame, so the padding reads 0).
struct padded_key {
  __u32 ifindex;
  __u8 tag; // followed by 3 bytes of padding
};
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, struct padded_key);
  __type(value, __u64);
  __uint(max_entries, 16);
} by_port SEC(".maps");

SEC("xdp") int padded_key(struct xdp_md *ctx) {
  struct padded_key k;
  k.ifindex = ctx->ingress_ifindex;
  k.tag = 1;
  return bpf_map_lookup_elem(&by_port, &k) ? XDP_DROP : XDP_PASS;
}

// An LPM trie that the program itself changes: by its IP id, each IPv4
// packet inserts a prefix taken from its destination (lengths 0, 4, 12,
// 16, 20, 24 and 32, data bits past the length zero), deletes one, or
// looks its destination up and writes what it found (or 0xffffffff) over
// its destination MAC; update and delete return codes go over the source
// MAC. Lookups walk only the prefix lengths present (MapAbi.h:
// ebpfgpu_lpm_present): inserts mark a length, deletes leave the mark
// until the map is reclaimed between batches, when the marks are
// recomputed. Batches of 7 packets on the host reclaim often; every
// verdict, output byte and the trie after the run must be the kernel's.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 3000 --seed 21 --flows 40
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --batch 7 --check-maps --dump-maps %t.maps | FileCheck %s --check-prefix=HOST
// HOST: XDP_PASS {{ *}}[[PASS:[1-9][0-9]*]]
// HOST: XDP_TX {{ *}}{{[1-9][0-9]*}}
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: prefixes{{[{]}}00000000
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap --work %t.d --loader-arg=--batch --loader-arg=7 %t.o:lpm_churn | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: lpm_churn: 3000 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct prefix {
  __u32 len;
  __u8 addr[4];
};

struct {
  __uint(type, BPF_MAP_TYPE_LPM_TRIE);
  __uint(max_entries, 512);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, struct prefix);
  __type(value, __u32);
} prefixes SEC(".maps");

static const __u32 lengths[8] = {0, 4, 12, 16, 20, 24, 32, 32};

SEC("xdp")
int lpm_churn(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_DROP;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end)
    return XDP_DROP;
  __u16 id = bpf_ntohs(ip->id);
  // Few distinct destinations: 10.x.y.z with x, y, z in 0..3.
  __u8 dst[4] = {10, ((__u8 *)&ip->daddr)[1] & 3, ((__u8 *)&ip->daddr)[2] & 3,
                 ((__u8 *)&ip->daddr)[3] & 3};
  struct prefix k = {.len = lengths[(id >> 2) & 7]};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    int bits = (int)k.len - 8 * i;
    __u8 mask = bits >= 8 ? 0xff : bits <= 0 ? 0 : (__u8)(0xff << (8 - bits));
    k.addr[i] = dst[i] & mask;
  }
  long rc = 0;
  switch (id & 3) {
  case 0:
  case 1: {
    __u32 v = id;
    rc = bpf_map_update_elem(&prefixes, &k, &v, BPF_ANY);
    break;
  }
  case 2:
    rc = bpf_map_delete_elem(&prefixes, &k);
    break;
  default: {
    struct prefix q = {.len = 32};
    __builtin_memcpy(q.addr, dst, 4);
    __u32 *v = bpf_map_lookup_elem(&prefixes, &q);
    __u32 out = v ? *v : 0xffffffff;
    __builtin_memcpy(eth->h_dest, &out, 4);
    return v ? XDP_TX : XDP_PASS;
  }
  }
  __s32 r = (__s32)rc;
  __builtin_memcpy(eth->h_source, &r, 4);
  return XDP_PASS;
}

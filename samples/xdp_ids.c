// SPDX-License-Identifier: Apache-2.0
//
// An IDS-style filter: the payload of every IPv4 TCP or UDP packet scanned
// against a set of literal patterns with ebpf-gpu's kfunc ebpf_gpu_match
// (<ebpf-gpu/kfuncs.h>, docs/KFUNCS.md). A packet whose payload matches a
// rule is dropped and counted under the rule's id in `hits`; the others
// pass. `stats` counts packets by outcome: 0 scanned without a match, 1
// matched (dropped), 2 the scan's error (-EINVAL: no pattern set loaded),
// 3 not scanned (not IPv4 TCP/UDP, or headers cut short). The rules come
// at load: ebpf-gpu-loader run xdp_ids.o --map-file samples/xdp_ids.maps
// (which names samples/xdp_ids.rules). The kernel cannot load it: it has
// neither the kfunc nor the map type.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include <ebpf-gpu/kfuncs.h>

#define MAX_RULE_ID 16384

struct {
  __uint(type, BPF_MAP_TYPE_EBPF_GPU_PATTERNS);
  __uint(max_entries, 16 << 20); /* bytes for the automaton */
} rules SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, MAX_RULE_ID);
  __type(key, __u32);
  __type(value, __u64);
} hits SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} stats SEC(".maps");

static __always_inline void count(void *map, __u32 key) {
  __u64 *v = bpf_map_lookup_elem(map, &key);
  if (v)
    __sync_fetch_and_add(v, 1);
}

SEC("xdp")
int xdp_ids(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
    goto unscanned;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end || ip->ihl < 5)
    goto unscanned;
  __u32 off = sizeof(*eth) + ip->ihl * 4;
  if (ip->protocol == IPPROTO_TCP) {
    struct tcphdr *tcp = data + off;
    if ((void *)(tcp + 1) > data_end)
      goto unscanned;
    off += tcp->doff * 4;
  } else if (ip->protocol == IPPROTO_UDP) {
    off += sizeof(struct udphdr);
  } else {
    goto unscanned;
  }
  // The payload from `off` to the packet's end; the kfunc checks the
  // offset against the packet's length (-EINVAL past its end).
  if (data + off > data_end)
    goto unscanned;
  int id = ebpf_gpu_match(ctx, off, &rules);
  if (id >= 0) {
    count(&hits, id < MAX_RULE_ID ? id : 0);
    count(&stats, 1);
    return XDP_DROP;
  }
  count(&stats, id == -2 ? 0 : 2);
  return XDP_PASS;
unscanned:
  count(&stats, 3);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

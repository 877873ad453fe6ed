// SPDX-License-Identifier: GPL-2.0
//
// IPv4 router: the longest matching prefix of the destination, from an LPM
// trie the operator fills, names the egress port and the next hop's MAC.
// A routed packet gets its MACs rewritten and its TTL decremented (with an
// incremental checksum update, RFC 1624) and is redirected to the port.
// Packets for no route, with TTL 1 or less, with IP options, or not IPv4
// go to the host stack (XDP_PASS), which answers or drops them.
//
// Routes: key {prefix length, address}, value {ifindex, next hop MAC,
// our MAC}; e.g. 192.168.1.0/24 via port 4:
//   --map-set routes:18000000c0a80100:04000000<dst mac><src mac>

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct route_key {
  __u32 prefixlen;
  __u32 addr; // network byte order
};

struct next_hop {
  __u32 ifindex;
  __u8 dmac[ETH_ALEN];
  __u8 smac[ETH_ALEN];
};

struct {
  __uint(type, BPF_MAP_TYPE_LPM_TRIE);
  __type(key, struct route_key);
  __type(value, struct next_hop);
  __uint(max_entries, 1024);
  __uint(map_flags, BPF_F_NO_PREALLOC);
} routes SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 2);
} route_stats SEC(".maps"); // [0] routed, [1] to the stack

static __always_inline int to_stack(void) {
  __u32 k = 1;
  __u64 *n = bpf_map_lookup_elem(&route_stats, &k);
  if (n)
    *n += 1;
  return XDP_PASS;
}

SEC("xdp")
int xdp_router(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  if (eth->h_proto != bpf_htons(ETH_P_IP))
    return to_stack();
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end)
    return XDP_DROP;
  if (ip->ihl != 5 || ip->ttl <= 1)
    return to_stack();
  struct route_key key = {32, ip->daddr};
  struct next_hop *hop = bpf_map_lookup_elem(&routes, &key);
  if (!hop)
    return to_stack();
  // TTL is the high byte of its 16-bit word: the sum drops by 0x0100.
  __u32 sum = (__u16)~bpf_ntohs(ip->check) + (__u16)~0x0100u;
  sum = (sum & 0xffff) + (sum >> 16);
  ip->check = bpf_htons(~sum & 0xffff);
  ip->ttl -= 1;
  __builtin_memcpy(eth->h_dest, hop->dmac, ETH_ALEN);
  __builtin_memcpy(eth->h_source, hop->smac, ETH_ALEN);
  __u32 k = 0;
  __u64 *n = bpf_map_lookup_elem(&route_stats, &k);
  if (n)
    *n += 1;
  return bpf_redirect(hop->ifindex, 0);
}

char LICENSE[] SEC("license") = "GPL";

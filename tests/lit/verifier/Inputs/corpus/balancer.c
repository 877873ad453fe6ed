// SPDX-License-Identifier: Apache-2.0
//
// A Katran-style L4 load balancer: parse to the 5-tuple, look the VIP up,
// hash the flow (jhash-like mixing), pick a real server from a consistent-
// hashing ring, remember the choice in a connection table, encapsulate in
// IPIP with bpf_xdp_adjust_head and send the packet back out.

#include "common.h"

#define RING_SIZE 256
#define MAX_REALS 64

struct vip_key {
  __be32 addr;
  __be16 port;
  __u8 proto;
  __u8 pad;
};
struct vip_meta {
  __u32 flags;
  __u32 vip_num;
};
struct flow_key {
  __be32 src, dst;
  __be16 sport, dport;
  __u8 proto;
  __u8 pad[3];
};
struct real {
  __be32 addr;
  __u8 mac[ETH_ALEN];
  __u16 pad;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, struct vip_key);
  __type(value, struct vip_meta);
  __uint(max_entries, 512);
} vip_map SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 16 * RING_SIZE);
} ch_rings SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct real);
  __uint(max_entries, MAX_REALS);
} reals SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, struct flow_key);
  __type(value, __u32);
  __uint(max_entries, 4096);
} conn_table SEC(".maps");

struct lb_stats {
  __u64 pkts, bytes, new_flows, misses;
};
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct lb_stats);
  __uint(max_entries, 16);
} stats SEC(".maps");

static __always_inline __u32 rol32(__u32 w, unsigned s) { return (w << s) | (w >> (32 - s)); }

static __always_inline __u32 mix3(__u32 a, __u32 b, __u32 c) {
  c ^= b; c -= rol32(b, 14);
  a ^= c; a -= rol32(c, 11);
  b ^= a; b -= rol32(a, 25);
  c ^= b; c -= rol32(b, 16);
  a ^= c; a -= rol32(c, 4);
  b ^= a; b -= rol32(a, 14);
  c ^= b; c -= rol32(b, 24);
  return c;
}

SEC("xdp") int balancer(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end)
    return XDP_DROP;
  if (eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > end)
    return XDP_DROP;
  if (ip->ihl != 5 || (ip->frag_off & bpf_htons(0x3fff)))
    return XDP_PASS;
  struct flow_key fk = {};
  fk.src = ip->saddr;
  fk.dst = ip->daddr;
  fk.proto = ip->protocol;
  if (fk.proto == IPPROTO_TCP || fk.proto == IPPROTO_UDP) {
    __be16 *ports = (void *)(ip + 1);
    if ((void *)(ports + 2) > end)
      return XDP_DROP;
    fk.sport = ports[0];
    fk.dport = ports[1];
  } else {
    return XDP_PASS;
  }
  struct vip_key vk = {.addr = fk.dst, .port = fk.dport, .proto = fk.proto};
  struct vip_meta *vip = bpf_map_lookup_elem(&vip_map, &vk);
  if (!vip)
    return XDP_PASS;
  __u32 vip_num = vip->vip_num;
  struct lb_stats *st = bpf_map_lookup_elem(&stats, &vip_num);
  if (!st)
    return XDP_DROP;
  st->pkts++;
  st->bytes += end - data;
  __u32 real_num;
  __u32 *cached = bpf_map_lookup_elem(&conn_table, &fk);
  if (cached) {
    real_num = *cached;
  } else {
    __u32 hash = mix3(fk.src, fk.dst, ((__u32)fk.sport << 16) | fk.dport);
    __u32 ring_key = (vip_num & 15) * RING_SIZE + hash % RING_SIZE;
    __u32 *r = bpf_map_lookup_elem(&ch_rings, &ring_key);
    if (!r) {
      st->misses++;
      return XDP_DROP;
    }
    real_num = *r;
    bpf_map_update_elem(&conn_table, &fk, &real_num, BPF_ANY);
    st->new_flows++;
  }
  struct real *dst = bpf_map_lookup_elem(&reals, &real_num);
  if (!dst)
    return XDP_DROP;
  __u16 inner_len = bpf_ntohs(ip->tot_len);
  __u8 tos = ip->tos;
  __be32 real_addr = dst->addr;
  __u8 real_mac[ETH_ALEN];
  __builtin_memcpy(real_mac, dst->mac, ETH_ALEN);
  if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct iphdr)))
    return XDP_DROP;
  data = (void *)(long)ctx->data;
  end = (void *)(long)ctx->data_end;
  struct ethhdr *new_eth = data;
  struct ethhdr *old_eth = data + sizeof(struct iphdr);
  struct iphdr *outer = (void *)(new_eth + 1);
  if ((void *)(outer + 1) > end || (void *)(old_eth + 1) > end)
    return XDP_DROP;
  __builtin_memcpy(new_eth->h_source, old_eth->h_dest, ETH_ALEN);
  __builtin_memcpy(new_eth->h_dest, real_mac, ETH_ALEN);
  new_eth->h_proto = bpf_htons(ETH_P_IP);
  outer->version = 4;
  outer->ihl = 5;
  outer->tos = tos;
  outer->tot_len = bpf_htons(inner_len + sizeof(struct iphdr));
  outer->id = 0;
  outer->frag_off = 0;
  outer->ttl = 64;
  outer->protocol = IPPROTO_IPIP;
  outer->saddr = bpf_htonl(0x0a000001);
  outer->daddr = real_addr;
  ipv4_csum(outer);
  return XDP_TX;
}

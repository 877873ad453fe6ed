// SPDX-License-Identifier: Apache-2.0
//
// An xdp-filter-style firewall: feature flags in a configuration map pick
// which checks run (source and destination IPv4/IPv6 addresses, TCP and
// UDP ports, Ethernet source), verdicts are counted per action.

#include "common.h"

#define FEAT_IPV4 (1 << 0)
#define FEAT_IPV6 (1 << 1)
#define FEAT_TCP (1 << 2)
#define FEAT_UDP (1 << 3)
#define FEAT_ETH (1 << 4)
#define FEAT_DST (1 << 5)
#define FEAT_ALLOW (1 << 6)

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 1);
} filter_config SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1024);
} filter_ipv4 SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, struct in6_addr);
  __type(value, __u64);
  __uint(max_entries, 1024);
} filter_ipv6 SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 65536);
} filter_ports SEC(".maps");

struct ethaddr {
  __u8 addr[ETH_ALEN];
};
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, struct ethaddr);
  __type(value, __u64);
  __uint(max_entries, 1024);
} filter_ethernet SEC(".maps");

struct datarec {
  __u64 packets;
  __u64 bytes;
};
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct datarec);
  __uint(max_entries, XDP_REDIRECT + 1);
} xdp_stats SEC(".maps");

static __always_inline int record(struct xdp_md *ctx, __u32 action) {
  struct datarec *r = bpf_map_lookup_elem(&xdp_stats, &action);
  if (!r)
    return XDP_ABORTED;
  r->packets++;
  r->bytes += ctx->data_end - ctx->data;
  return action;
}

static __always_inline int lookup_port(__u16 port) {
  __u32 key = bpf_ntohs(port);
  __u64 *v = bpf_map_lookup_elem(&filter_ports, &key);
  if (v && *v) {
    __sync_fetch_and_add(v, 1);
    return 1;
  }
  return 0;
}

SEC("xdp") int xdp_filter(struct xdp_md *ctx) {
  void *end = (void *)(long)ctx->data_end;
  struct cursor c = {(void *)(long)ctx->data};
  __u32 zero = 0;
  __u32 *cfg = bpf_map_lookup_elem(&filter_config, &zero);
  if (!cfg)
    return XDP_ABORTED;
  __u32 feat = *cfg;
  int match = 0;
  struct ethhdr *eth;
  int proto = parse_eth(&c, end, &eth);
  if (proto < 0)
    return record(ctx, XDP_PASS);
  if (feat & FEAT_ETH) {
    struct ethaddr a;
    __builtin_memcpy(a.addr, (feat & FEAT_DST) ? eth->h_dest : eth->h_source, ETH_ALEN);
    __u64 *v = bpf_map_lookup_elem(&filter_ethernet, &a);
    if (v) {
      __sync_fetch_and_add(v, 1);
      match = 1;
    }
  }
  int l4 = -1;
  if (proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *ip;
    l4 = parse_ip(&c, end, &ip);
    if (l4 < 0)
      return record(ctx, XDP_PASS);
    if (feat & FEAT_IPV4) {
      __u32 addr = (feat & FEAT_DST) ? ip->daddr : ip->saddr;
      __u64 *v = bpf_map_lookup_elem(&filter_ipv4, &addr);
      if (v) {
        __sync_fetch_and_add(v, 1);
        match = 1;
      }
    }
  } else if (proto == bpf_htons(ETH_P_IPV6)) {
    struct ipv6hdr *ip6;
    l4 = parse_ip6(&c, end, &ip6);
    if (l4 < 0)
      return record(ctx, XDP_PASS);
    if (feat & FEAT_IPV6) {
      struct in6_addr addr = (feat & FEAT_DST) ? ip6->daddr : ip6->saddr;
      __u64 *v = bpf_map_lookup_elem(&filter_ipv6, &addr);
      if (v) {
        __sync_fetch_and_add(v, 1);
        match = 1;
      }
    }
  }
  if (l4 == IPPROTO_TCP && (feat & FEAT_TCP)) {
    struct tcphdr *tcp = c.pos;
    if ((void *)(tcp + 1) > end)
      return record(ctx, XDP_PASS);
    __u16 sport = tcp->source, dport = tcp->dest;
    match |= lookup_port((feat & FEAT_DST) ? dport : sport);
  } else if (l4 == IPPROTO_UDP && (feat & FEAT_UDP)) {
    struct udphdr *udp = c.pos;
    if ((void *)(udp + 1) > end)
      return record(ctx, XDP_PASS);
    __u16 sport = udp->source, dport = udp->dest;
    match |= lookup_port((feat & FEAT_DST) ? dport : sport);
  }
  int allow = !!(feat & FEAT_ALLOW);
  return record(ctx, match ^ allow ? XDP_DROP : XDP_PASS);
}

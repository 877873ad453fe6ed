// SPDX-License-Identifier: Apache-2.0
//
// xdp-tutorial-style packet parsing: VLANs, IPv4 with options, IPv6 with
// an extension-header walk, ICMP echo rewriting, and Linux-sample-style
// per-protocol counting (xdp1) and MAC swapping (xdp2).

#include "common.h"

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 256);
} rxcnt SEC(".maps");

// xdp1: count packets per IP protocol, drop everything.
SEC("xdp") int xdp1_count(struct xdp_md *ctx) {
  void *end = (void *)(long)ctx->data_end;
  struct cursor c = {(void *)(long)ctx->data};
  struct ethhdr *eth;
  struct iphdr *ip;
  struct ipv6hdr *ip6;
  int proto = parse_eth(&c, end, &eth);
  __u32 key = 0;
  if (proto == bpf_htons(ETH_P_IP)) {
    int p = parse_ip(&c, end, &ip);
    if (p >= 0)
      key = p;
  } else if (proto == bpf_htons(ETH_P_IPV6)) {
    int p = parse_ip6(&c, end, &ip6);
    if (p >= 0)
      key = p;
  }
  __u64 *v = bpf_map_lookup_elem(&rxcnt, &key);
  if (v)
    *v += 1;
  return XDP_DROP;
}

// xdp2: swap MAC addresses and send the packet back, counting per protocol.
SEC("xdp") int xdp2_swap(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end)
    return XDP_DROP;
  __u32 key = 0;
  if (eth->h_proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *ip = (void *)(eth + 1);
    if ((void *)(ip + 1) > end)
      return XDP_DROP;
    key = ip->protocol;
  }
  __u64 *v = bpf_map_lookup_elem(&rxcnt, &key);
  if (v)
    __sync_fetch_and_add(v, 1);
  __u8 tmp[ETH_ALEN];
  __builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
  __builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
  __builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
  return XDP_TX;
}

// Answers ICMP and ICMPv6 echo requests in place (xdp-tutorial's
// packet03 assignment): swap addresses, turn the type, fix the checksum.
SEC("xdp") int icmp_echo(struct xdp_md *ctx) {
  void *end = (void *)(long)ctx->data_end;
  struct cursor c = {(void *)(long)ctx->data};
  struct ethhdr *eth;
  int proto = parse_eth(&c, end, &eth);
  if (proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *ip;
    if (parse_ip(&c, end, &ip) != IPPROTO_ICMP)
      return XDP_PASS;
    struct icmphdr *icmp = c.pos;
    if ((void *)(icmp + 1) > end || icmp->type != ICMP_ECHO)
      return XDP_PASS;
    __be32 a = ip->saddr;
    ip->saddr = ip->daddr;
    ip->daddr = a;
    icmp->type = ICMP_ECHOREPLY;
    __u32 sum = (__u16)~icmp->checksum + (__u16)~bpf_htons(ICMP_ECHO << 8);
    icmp->checksum = csum_fold(sum);
  } else if (proto == bpf_htons(ETH_P_IPV6)) {
    struct ipv6hdr *ip6;
    if (parse_ip6(&c, end, &ip6) != IPPROTO_ICMPV6)
      return XDP_PASS;
    struct icmp6hdr *icmp6 = c.pos;
    if ((void *)(icmp6 + 1) > end || icmp6->icmp6_type != ICMPV6_ECHO_REQUEST)
      return XDP_PASS;
    struct in6_addr a = ip6->saddr;
    ip6->saddr = ip6->daddr;
    ip6->daddr = a;
    icmp6->icmp6_type = ICMPV6_ECHO_REPLY;
    icmp6->icmp6_cksum -= bpf_htons(1 << 8);
  } else {
    return XDP_PASS;
  }
  __u8 tmp[ETH_ALEN];
  __builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
  __builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
  __builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
  return XDP_TX;
}

struct ipv6_opt {
  __u8 nexthdr;
  __u8 len;
};

// Walks up to 6 IPv6 extension headers to find the transport header and
// drops UDP to port 9 (discard).
SEC("xdp") int ipv6_ext_walk(struct xdp_md *ctx) {
  void *end = (void *)(long)ctx->data_end;
  struct cursor c = {(void *)(long)ctx->data};
  struct ethhdr *eth;
  struct ipv6hdr *ip6;
  if (parse_eth(&c, end, &eth) != bpf_htons(ETH_P_IPV6))
    return XDP_PASS;
  int next = parse_ip6(&c, end, &ip6);
#pragma unroll
  for (int i = 0; i < 6; i++) {
    if (next != IPPROTO_HOPOPTS && next != IPPROTO_ROUTING && next != IPPROTO_DSTOPTS &&
        next != IPPROTO_FRAGMENT)
      break;
    struct ipv6_opt *o = c.pos;
    if ((void *)(o + 1) > end)
      return XDP_DROP;
    next = o->nexthdr;
    c.pos += next == IPPROTO_FRAGMENT ? 8 : (o->len + 1) * 8;
  }
  if (next != IPPROTO_UDP)
    return XDP_PASS;
  struct udphdr *udp = c.pos;
  if ((void *)(udp + 1) > end)
    return XDP_DROP;
  return udp->dest == bpf_htons(9) ? XDP_DROP : XDP_PASS;
}

// Truncates packets above 256 bytes with bpf_xdp_adjust_tail, then
// rewrites the IPv4 total length and checksum (xdp_adjust_tail sample).
SEC("xdp") int trim_tail(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  int len = end - data;
  if (len <= 256)
    return XDP_PASS;
  if (bpf_xdp_adjust_tail(ctx, 256 - len))
    return XDP_ABORTED;
  data = (void *)(long)ctx->data;
  end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  ip->tot_len = bpf_htons(256 - sizeof(*eth));
  ipv4_csum(ip);
  return XDP_TX;
}

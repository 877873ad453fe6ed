// SPDX-License-Identifier: GPL-2.0
//
// IPv4 and IPv6 router on the kernel's forwarding table: bpf_fib_lookup
// finds the route, the next hop's MAC and our egress MAC for each packet,
// which then leaves with its TTL (hop limit) decremented, the IPv4 header
// checksum updated incrementally (RFC 1624), the MACs rewritten, redirected
// to the egress port. What the table does not forward goes to the host
// stack (XDP_PASS): no route, forwarding off on the ingress port, an
// unresolved neighbour (the stack resolves it), a packet over the route's
// MTU (the stack sends the ICMP error), TTL 1 or less; blackhole,
// unreachable and prohibit routes drop. Counters: packets per lookup
// result and packets and bytes per egress port.
//
// On the host and GPU back ends the table comes from a file
// (ebpf-gpu-loader run --fib FILE, docs/MAPS.md); in the kernel it is the
// network namespace's own.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define AF_INET 2
#define AF_INET6 10
#define MAX_PORTS 64
#define RESULTS 16 // BPF_FIB_LKUP_RET_* codes; the last slot counts errors (< 0)

struct port_stats {
  __u64 packets;
  __u64 bytes;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct port_stats);
  __uint(max_entries, MAX_PORTS);
} egress_stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, RESULTS);
} lookup_results SEC(".maps");

static __always_inline void count_result(long rc) {
  __u32 k = rc < 0 || rc >= RESULTS ? RESULTS - 1 : (__u32)rc;
  __u64 *n = bpf_map_lookup_elem(&lookup_results, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
}

// TTL - 1 in the header checksum: the 16-bit word holding the TTL drops by
// 0x0100, so the checksum rises by as much, with the carry folded back.
static __always_inline void ipv4_decrement_ttl(struct iphdr *iph) {
  __u32 sum = (__u32)iph->check + (__u32)bpf_htons(0x0100);
  iph->check = (__u16)(sum + (sum >> 16));
  iph->ttl -= 1;
}

static __always_inline int forward(struct xdp_md *ctx, struct ethhdr *eth,
                                   struct bpf_fib_lookup *p, __u32 bytes) {
  __builtin_memcpy(eth->h_dest, p->dmac, ETH_ALEN);
  __builtin_memcpy(eth->h_source, p->smac, ETH_ALEN);
  __u32 port = p->ifindex;
  if (port < MAX_PORTS) {
    struct port_stats *s = bpf_map_lookup_elem(&egress_stats, &port);
    if (s) {
      __sync_fetch_and_add(&s->packets, 1);
      __sync_fetch_and_add(&s->bytes, bytes);
    }
  }
  return bpf_redirect(port, 0);
}

static __always_inline int verdict_for(long rc) {
  switch (rc) {
  case BPF_FIB_LKUP_RET_BLACKHOLE:
  case BPF_FIB_LKUP_RET_UNREACHABLE:
  case BPF_FIB_LKUP_RET_PROHIBIT:
    return XDP_DROP;
  default:
    return XDP_PASS;
  }
}

SEC("xdp")
int xdp_fib_router(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  __u32 bytes = (__u32)(data_end - data);
  struct bpf_fib_lookup p;
  __builtin_memset(&p, 0, sizeof(p));
  p.ifindex = ctx->ingress_ifindex;

  if (eth->h_proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *iph = (void *)(eth + 1);
    if ((void *)(iph + 1) > data_end)
      return XDP_DROP;
    if (iph->ttl <= 1)
      return XDP_PASS;
    p.family = AF_INET;
    p.tos = iph->tos;
    p.l4_protocol = iph->protocol;
    p.tot_len = bpf_ntohs(iph->tot_len);
    p.ipv4_src = iph->saddr;
    p.ipv4_dst = iph->daddr;
    long rc = bpf_fib_lookup(ctx, &p, sizeof(p), 0);
    count_result(rc);
    if (rc != BPF_FIB_LKUP_RET_SUCCESS)
      return verdict_for(rc);
    ipv4_decrement_ttl(iph);
    return forward(ctx, eth, &p, bytes);
  }

  if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
    struct ipv6hdr *ip6h = (void *)(eth + 1);
    if ((void *)(ip6h + 1) > data_end)
      return XDP_DROP;
    if (ip6h->hop_limit <= 1)
      return XDP_PASS;
    p.family = AF_INET6;
    p.flowinfo = *(__be32 *)ip6h & bpf_htonl(0x0fffffff);
    p.l4_protocol = ip6h->nexthdr;
    p.tot_len = bpf_ntohs(ip6h->payload_len) + sizeof(*ip6h);
    __builtin_memcpy(p.ipv6_src, &ip6h->saddr, sizeof(p.ipv6_src));
    __builtin_memcpy(p.ipv6_dst, &ip6h->daddr, sizeof(p.ipv6_dst));
    long rc = bpf_fib_lookup(ctx, &p, sizeof(p), 0);
    count_result(rc);
    if (rc != BPF_FIB_LKUP_RET_SUCCESS)
      return verdict_for(rc);
    ip6h->hop_limit -= 1;
    return forward(ctx, eth, &p, bytes);
  }
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

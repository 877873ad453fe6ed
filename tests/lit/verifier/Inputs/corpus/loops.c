// SPDX-License-Identifier: Apache-2.0
//
// Bounded loops and bpf-to-bpf calls as real programs write them: a DNS
// query-name walk (labels of variable length), a TCP options scan, a
// payload signature search, and non-inlined helper functions that take
// packet pointers and the context.

#include "common.h"

struct dnshdr {
  __be16 id, flags, qdcount, ancount, nscount, arcount;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1024);
} qname_hits SEC(".maps");

// Hashes the query name of a DNS request to port 53 and counts it; names
// that run past the packet are dropped.
SEC("xdp") int dns_qname(struct xdp_md *ctx) {
  void *end = (void *)(long)ctx->data_end;
  struct cursor c = {(void *)(long)ctx->data};
  struct ethhdr *eth;
  struct iphdr *ip;
  if (parse_eth(&c, end, &eth) != bpf_htons(ETH_P_IP) || parse_ip(&c, end, &ip) != IPPROTO_UDP)
    return XDP_PASS;
  struct udphdr *udp = c.pos;
  if ((void *)(udp + 1) > end || udp->dest != bpf_htons(53))
    return XDP_PASS;
  struct dnshdr *dns = (void *)(udp + 1);
  if ((void *)(dns + 1) > end)
    return XDP_PASS;
  __u8 *p = (void *)(dns + 1);
  __u32 hash = 5381;
  // One pass over the first 64 bytes of the name: a byte at `next` is a
  // label length, the others are hashed (case-folded).
  __u32 next = 0;
  for (__u32 i = 0; i < 64; i++) {
    if ((void *)(p + i + 1) > end)
      return XDP_DROP;
    __u8 b = p[i];
    if (i == next) {
      if (b == 0)
        break;
      next += b + 1;
    } else {
      hash = hash * 33 + (b | 0x20);
    }
  }
  __u64 *v = bpf_map_lookup_elem(&qname_hits, &hash);
  if (v)
    __sync_fetch_and_add(v, 1);
  return XDP_PASS;
}

// Finds the MSS option of a SYN among at most 10 options.
static __attribute__((noinline)) int tcp_mss(struct tcphdr *tcp, void *end) {
  __u8 *opt = (__u8 *)(tcp + 1);
  __u8 *opts_end = (__u8 *)tcp + tcp->doff * 4;
  for (int i = 0; i < 10; i++) {
    if ((void *)(opt + 1) > end || opt >= opts_end)
      return 0;
    __u8 kind = opt[0];
    if (kind == 0)
      return 0;
    if (kind == 1) {
      opt++;
      continue;
    }
    if ((void *)(opt + 2) > end)
      return 0;
    __u8 len = opt[1];
    if (len < 2)
      return 0;
    if (kind == 2 && len == 4) {
      if ((void *)(opt + 4) > end)
        return 0;
      return (opt[2] << 8) | opt[3];
    }
    opt += len;
  }
  return 0;
}

SEC("xdp") int syn_mss(struct xdp_md *ctx) {
  void *end = (void *)(long)ctx->data_end;
  struct cursor c = {(void *)(long)ctx->data};
  struct ethhdr *eth;
  struct iphdr *ip;
  if (parse_eth(&c, end, &eth) != bpf_htons(ETH_P_IP) || parse_ip(&c, end, &ip) != IPPROTO_TCP)
    return XDP_PASS;
  struct tcphdr *tcp = c.pos;
  if ((void *)(tcp + 1) > end || !tcp->syn)
    return XDP_PASS;
  int mss = tcp_mss(tcp, end);
  return mss && mss < 536 ? XDP_DROP : XDP_PASS;
}

// Searches the first 128 payload bytes for a 4-byte signature.
static __attribute__((noinline)) int has_signature(__u8 *p, void *end, __u32 sig) {
  for (int i = 0; i < 128; i++) {
    if ((void *)(p + i + 4) > end)
      return 0;
    __u32 w = p[i] | (p[i + 1] << 8) | (p[i + 2] << 16) | ((__u32)p[i + 3] << 24);
    if (w == sig)
      return 1;
  }
  return 0;
}

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 1);
} signature SEC(".maps");

SEC("xdp") int payload_scan(struct xdp_md *ctx) {
  void *end = (void *)(long)ctx->data_end;
  struct cursor c = {(void *)(long)ctx->data};
  struct ethhdr *eth;
  struct iphdr *ip;
  if (parse_eth(&c, end, &eth) != bpf_htons(ETH_P_IP) || parse_ip(&c, end, &ip) != IPPROTO_UDP)
    return XDP_PASS;
  struct udphdr *udp = c.pos;
  if ((void *)(udp + 1) > end)
    return XDP_PASS;
  __u32 k = 0;
  __u32 *sig = bpf_map_lookup_elem(&signature, &k);
  if (!sig || !*sig)
    return XDP_PASS;
  return has_signature((__u8 *)(udp + 1), end, *sig) ? XDP_DROP : XDP_PASS;
}

// Sums the IPv4 header in 16-bit words with a loop over ihl (options too)
// and drops packets whose checksum does not verify.
SEC("xdp") int ip_csum_check(struct xdp_md *ctx) {
  void *end = (void *)(long)ctx->data_end;
  struct cursor c = {(void *)(long)ctx->data};
  struct ethhdr *eth;
  struct iphdr *ip;
  if (parse_eth(&c, end, &eth) != bpf_htons(ETH_P_IP) || parse_ip(&c, end, &ip) < 0)
    return XDP_PASS;
  __u16 *w = (__u16 *)ip;
  __u32 sum = 0;
  int words = ip->ihl * 2;
  for (int i = 0; i < 30; i++) {
    if (i >= words)
      break;
    if ((void *)(w + i + 1) > end)
      return XDP_DROP;
    sum += w[i];
  }
  return csum_fold(sum) ? XDP_DROP : XDP_PASS;
}

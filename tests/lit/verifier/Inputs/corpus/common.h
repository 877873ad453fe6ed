// SPDX-License-Identifier: Apache-2.0
//
// Shared by the real-world-pattern corpus: a header cursor and parsers in
// the style of xdp-tutorial's parsing_helpers.h (written for this corpus).

#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#ifndef ETH_P_8021AD
#define ETH_P_8021AD 0x88A8
#endif

// ICMP headers (linux/icmp.h pulls in libc's socket headers).
struct icmphdr {
  __u8 type, code;
  __sum16 checksum;
  __be16 id, sequence;
};
struct icmp6hdr {
  __u8 icmp6_type, icmp6_code;
  __sum16 icmp6_cksum;
  __be16 id, sequence;
};
#define ICMP_ECHOREPLY 0
#define ICMP_ECHO 8
#define ICMPV6_ECHO_REQUEST 128
#define ICMPV6_ECHO_REPLY 129

struct cursor {
  void *pos;
};

struct vlan_hdr {
  __be16 tci;
  __be16 proto;
};

static __always_inline int is_vlan(__u16 proto) {
  return proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD);
}

/// Returns the EtherType after up to two VLAN tags, or -1.
static __always_inline int parse_eth(struct cursor *c, void *end, struct ethhdr **eth) {
  struct ethhdr *e = c->pos;
  if ((void *)(e + 1) > end)
    return -1;
  c->pos = e + 1;
  *eth = e;
  __u16 proto = e->h_proto;
#pragma unroll
  for (int i = 0; i < 2; i++) {
    if (!is_vlan(proto))
      break;
    struct vlan_hdr *v = c->pos;
    if ((void *)(v + 1) > end)
      return -1;
    proto = v->proto;
    c->pos = v + 1;
  }
  return proto;
}

static __always_inline int parse_ip(struct cursor *c, void *end, struct iphdr **ip) {
  struct iphdr *h = c->pos;
  if ((void *)(h + 1) > end)
    return -1;
  int len = h->ihl * 4;
  if (len < (int)sizeof(*h))
    return -1;
  if (c->pos + len > end)
    return -1;
  c->pos += len;
  *ip = h;
  return h->protocol;
}

static __always_inline int parse_ip6(struct cursor *c, void *end, struct ipv6hdr **ip6) {
  struct ipv6hdr *h = c->pos;
  if ((void *)(h + 1) > end)
    return -1;
  c->pos = h + 1;
  *ip6 = h;
  return h->nexthdr;
}

static __always_inline __u16 csum_fold(__u32 csum) {
  csum = (csum & 0xffff) + (csum >> 16);
  csum = (csum & 0xffff) + (csum >> 16);
  return (__u16)~csum;
}

static __always_inline void ipv4_csum(struct iphdr *ip) {
  __u32 sum = 0;
  __u16 *p = (__u16 *)ip;
  ip->check = 0;
#pragma unroll
  for (int i = 0; i < (int)sizeof(*ip) / 2; i++)
    sum += p[i];
  ip->check = csum_fold(sum);
}

char LICENSE[] SEC("license") = "GPL";

#endif

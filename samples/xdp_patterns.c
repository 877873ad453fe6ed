// SPDX-License-Identifier: GPL-2.0
//
// Patterns real XDP programs are made of, one program each: header-cursor
// parsing and an IPv6 extension header walk (ipv6_ext), a TCP options loop
// with a variable stride (tcp_opts), bpf_xdp_load_bytes into the stack
// (load_bytes), and a TTL decrement with an incremental checksum through
// bpf_csum_diff (ttl_dec).

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/in.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct hdr_cursor { void *pos; };

static __always_inline int parse_ethhdr(struct hdr_cursor *nh, void *data_end, struct ethhdr **ethhdr) {
  struct ethhdr *eth = nh->pos;
  if ((void *)(eth + 1) > data_end) return -1;
  nh->pos = eth + 1;
  *ethhdr = eth;
  return eth->h_proto;
}

struct ipv6_opt_hdr_ { __u8 nexthdr; __u8 hdrlen; };

SEC("xdp") int ipv6_ext(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct hdr_cursor nh = {data};
  struct ethhdr *eth;
  if (parse_ethhdr(&nh, data_end, &eth) != bpf_htons(ETH_P_IPV6)) return XDP_PASS;
  struct ipv6hdr *ip6 = nh.pos;
  if ((void *)(ip6 + 1) > data_end) return XDP_DROP;
  nh.pos = ip6 + 1;
  __u8 next = ip6->nexthdr;
#pragma unroll
  for (int i = 0; i < 6; i++) {
    if (next != 0 && next != 43 && next != 60) break;
    struct ipv6_opt_hdr_ *h = nh.pos;
    if ((void *)(h + 1) > data_end) return XDP_DROP;
    next = h->nexthdr;
    nh.pos = (char *)h + (h->hdrlen + 1) * 8;
  }
  return next == IPPROTO_TCP ? XDP_DROP : XDP_PASS;
}

SEC("xdp") int tcp_opts(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP)) return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end || ip->protocol != IPPROTO_TCP) return XDP_PASS;
  struct tcphdr *tcp = (void *)ip + ip->ihl * 4;
  if ((void *)(tcp + 1) > data_end) return XDP_PASS;
  __u8 *opt = (__u8 *)(tcp + 1);
  __u32 mss = 0;
  for (int i = 0; i < 10; i++) {
    if ((void *)(opt + 1) > data_end) break;
    __u8 kind = opt[0];
    if (kind == 0) break;
    if (kind == 1) { opt++; continue; }
    if ((void *)(opt + 2) > data_end) break;
    __u8 len = opt[1];
    if (kind == 2 && len == 4) {
      if ((void *)(opt + 4) > data_end) break;
      mss = (opt[2] << 8) | opt[3];
      break;
    }
    if (len < 2) break;
    opt += len;
  }
  return mss && mss < 536 ? XDP_DROP : XDP_PASS;
}

SEC("xdp") int load_bytes(struct xdp_md *ctx) {
  __u8 buf[16];
  if (bpf_xdp_load_bytes(ctx, 0, buf, sizeof(buf)))
    return XDP_PASS;
  return buf[12] == 0x08 && buf[13] == 0 ? XDP_TX : XDP_PASS;
}

SEC("xdp") int ttl_dec(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP)) return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end) return XDP_PASS;
  if (ip->ttl <= 1) return XDP_DROP;
  __u32 old = *(__u32 *)&ip->ttl;
  ip->ttl--;
  __u32 new_ = *(__u32 *)&ip->ttl;
  __s64 csum = bpf_csum_diff(&old, 4, &new_, 4, ~((__u32)ip->check) & 0xffff);
  csum = (csum & 0xffff) + (csum >> 16);
  csum = (csum & 0xffff) + (csum >> 16);
  ip->check = ~csum;
  return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";

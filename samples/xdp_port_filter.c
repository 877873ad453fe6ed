// SPDX-License-Identifier: GPL-2.0
//
// Port filter: drops TCP to ports 80 and 443 and UDP to port 53 from
// outside 10.0.0.0/8, passes everything else. Parses Ethernet, optional
// 802.1Q tag, IPv4 with options, TCP and UDP, as real filters do; the
// header parser is a separate (noinline) function, so the object also
// exercises bpf-to-bpf calls. Blocked ports live in .rodata.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct vlan_hdr {
  __be16 tci;
  __be16 proto;
};

struct flow {
  __u32 saddr;
  __u16 dport;
  __u8 proto;
};

static const volatile __u16 blocked_tcp[2] = {80, 443};
static const volatile __u16 blocked_udp = 53;

static __attribute__((noinline)) int parse_flow(void *data, void *data_end,
                                                struct flow *f) {
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return -1;
  __u16 proto = eth->h_proto;
  void *next = eth + 1;
  if (proto == bpf_htons(ETH_P_8021Q)) {
    struct vlan_hdr *vh = next;
    if ((void *)(vh + 1) > data_end)
      return -1;
    proto = vh->proto;
    next = vh + 1;
  }
  if (proto != bpf_htons(ETH_P_IP))
    return 0;
  struct iphdr *ip = next;
  if ((void *)(ip + 1) > data_end)
    return -1;
  unsigned ihl = ip->ihl * 4;
  if (ihl < sizeof(*ip))
    return -1;
  f->saddr = ip->saddr;
  f->proto = ip->protocol;
  void *l4 = (void *)ip + ihl;
  if (ip->protocol == IPPROTO_TCP) {
    struct tcphdr *tcp = l4;
    if ((void *)(tcp + 1) > data_end)
      return -1;
    f->dport = bpf_ntohs(tcp->dest);
  } else if (ip->protocol == IPPROTO_UDP) {
    struct udphdr *udp = l4;
    if ((void *)(udp + 1) > data_end)
      return -1;
    f->dport = bpf_ntohs(udp->dest);
  }
  return 1;
}

SEC("xdp")
int xdp_port_filter(struct xdp_md *ctx) {
  struct flow f = {};
  int r = parse_flow((void *)(long)ctx->data, (void *)(long)ctx->data_end, &f);
  if (r < 0)
    return XDP_DROP;
  if (r == 0)
    return XDP_PASS;
  if ((bpf_ntohl(f.saddr) >> 24) == 10)
    return XDP_PASS;
  if (f.proto == IPPROTO_TCP &&
      (f.dport == blocked_tcp[0] || f.dport == blocked_tcp[1]))
    return XDP_DROP;
  if (f.proto == IPPROTO_UDP && f.dport == blocked_udp)
    return XDP_DROP;
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

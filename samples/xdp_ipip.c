// SPDX-License-Identifier: GPL-2.0
//
// IPIP tunnel ends (RFC 2003) with bpf_xdp_adjust_head.
//
// xdp_ipip_encap: an IPv4 packet whose destination's third byte (mod 16)
// names a tunnel in `tunnels` (local and remote endpoint, set by the
// operator) grows a 20-byte outer IPv4 header (protocol 4, TTL 64, DF and
// TOS copied from the inner header, a correct header checksum) between its
// Ethernet header and the inner one, and goes back out (XDP_TX). Other
// packets pass untouched.
//
// xdp_ipip_decap: an IPIP packet (protocol 4, no IP options) whose outer
// header checksum is right loses its outer header and passes on as the
// inner packet; a bad checksum drops it. Other packets pass untouched. So
// decap(encap(p)) == p, byte for byte (tests/lit/loader/ipip.test).

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define IP_DF 0x4000 /* do not fragment */

struct tunnel {
  __be32 local, remote; // network byte order; remote 0: no tunnel
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct tunnel);
  __uint(max_entries, 16);
} tunnels SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} ipip_stats SEC(".maps"); // [0] encapsulated, [1] decapsulated, [2] bad outer checksum

static __always_inline void count(__u32 k) {
  __u64 *n = bpf_map_lookup_elem(&ipip_stats, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
}

/// The IPv4 header checksum of a 20-byte header (its check field counted
/// as it is: 0 when computing, the stored value when verifying).
static __always_inline __u16 ip_checksum(const __u16 *h) {
  __u32 sum = 0;
#pragma unroll
  for (int i = 0; i < 10; ++i)
    sum += h[i];
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return (__u16)~sum;
}

SEC("xdp")
int xdp_ipip_encap(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *inner = (void *)(eth + 1);
  if ((void *)(inner + 1) > data_end || inner->version != 4)
    return XDP_PASS;
  __u32 k = (bpf_ntohl(inner->daddr) >> 8) & 15;
  struct tunnel *t = bpf_map_lookup_elem(&tunnels, &k);
  if (!t || !t->remote)
    return XDP_PASS;
  struct tunnel tun = *t;
  __u8 tos = inner->tos;
  __be16 df = inner->frag_off & bpf_htons(IP_DF);
  __u16 inner_len = bpf_ntohs(inner->tot_len);
  struct ethhdr mac = *eth;

  if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct iphdr)))
    return XDP_PASS;
  data = (void *)(long)ctx->data;
  data_end = (void *)(long)ctx->data_end;
  eth = data;
  struct iphdr *outer = (void *)(eth + 1);
  if ((void *)(outer + 1) > data_end)
    return XDP_ABORTED; // cannot happen: the packet grew by 20 bytes
  *eth = mac;
  outer->version = 4;
  outer->ihl = 5;
  outer->tos = tos;
  outer->tot_len = bpf_htons(inner_len + sizeof(struct iphdr));
  outer->id = 0;
  outer->frag_off = df;
  outer->ttl = 64;
  outer->protocol = IPPROTO_IPIP;
  outer->check = 0;
  outer->saddr = tun.local;
  outer->daddr = tun.remote;
  outer->check = ip_checksum((const __u16 *)outer);
  count(0);
  return XDP_TX;
}

SEC("xdp")
int xdp_ipip_decap(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *outer = (void *)(eth + 1);
  if ((void *)(outer + 1) > data_end || outer->version != 4 || outer->ihl != 5 ||
      outer->protocol != IPPROTO_IPIP)
    return XDP_PASS;
  if (ip_checksum((const __u16 *)outer) != 0) {
    count(2);
    return XDP_DROP;
  }
  struct ethhdr mac = *eth;
  if (bpf_xdp_adjust_head(ctx, (int)sizeof(struct iphdr)))
    return XDP_DROP;
  data = (void *)(long)ctx->data;
  data_end = (void *)(long)ctx->data_end;
  eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  *eth = mac;
  count(1);
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

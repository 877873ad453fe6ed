// SPDX-License-Identifier: GPL-2.0
//
// VLAN encapsulation and decapsulation with bpf_xdp_adjust_head: frames
// tagged 802.1Q lose their tag (decap, XDP_PASS); untagged IPv4 frames get
// tag 100 pushed in front of their EtherType (encap, XDP_TX); everything
// else passes untouched. Headers are moved with the packet bytes, as a
// real tagger must, and re-checked after every adjust_head.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define VLAN_ID 100

struct vlan_hdr {
  __be16 tci;
  __be16 proto;
};

SEC("xdp")
int xdp_vlan(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;

  if (eth->h_proto == bpf_htons(ETH_P_8021Q)) {
    struct vlan_hdr *vh = (void *)(eth + 1);
    if ((void *)(vh + 1) > data_end)
      return XDP_DROP;
    struct ethhdr copy = *eth;
    copy.h_proto = vh->proto;
    if (bpf_xdp_adjust_head(ctx, (int)sizeof(struct vlan_hdr)))
      return XDP_ABORTED;
    data = (void *)(long)ctx->data;
    data_end = (void *)(long)ctx->data_end;
    eth = data;
    if ((void *)(eth + 1) > data_end)
      return XDP_ABORTED;
    *eth = copy;
    return XDP_PASS;
  }

  if (eth->h_proto == bpf_htons(ETH_P_IP)) {
    struct ethhdr copy = *eth;
    if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct vlan_hdr)))
      return XDP_ABORTED;
    data = (void *)(long)ctx->data;
    data_end = (void *)(long)ctx->data_end;
    eth = data;
    struct vlan_hdr *vh = (void *)(eth + 1);
    if ((void *)(vh + 1) > data_end)
      return XDP_ABORTED;
    __builtin_memcpy(eth->h_dest, copy.h_dest, ETH_ALEN);
    __builtin_memcpy(eth->h_source, copy.h_source, ETH_ALEN);
    eth->h_proto = bpf_htons(ETH_P_8021Q);
    vh->tci = bpf_htons(VLAN_ID);
    vh->proto = copy.h_proto;
    return XDP_TX;
  }
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

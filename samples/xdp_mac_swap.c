// SPDX-License-Identifier: GPL-2.0
//
// Reflector: swaps source and destination MAC addresses and sends every
// Ethernet frame back out of the port it came in on (XDP_TX). Frames too
// short for an Ethernet header are dropped.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_mac_swap(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  unsigned char tmp[ETH_ALEN];
  __builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
  __builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
  __builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
  return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
//
// The smallest useful XDP program: drop IPv6, pass everything else.
// Two programs in one object, so tools must pick one with --section.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_pass_all(struct xdp_md *ctx) { return XDP_PASS; }

SEC("xdp")
int xdp_drop_ipv6(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_ABORTED;
  return eth->h_proto == bpf_htons(ETH_P_IPV6) ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

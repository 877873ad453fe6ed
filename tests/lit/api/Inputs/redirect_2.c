// SPDX-License-Identifier: GPL-2.0
//
// For the rx callback's XDP_REDIRECT and ingress: IPv4 to the ifindex after
// the one it came in on (from port 0, ifindex 1: ifindex 2, DPDK port 1;
// `run` says ifindex 1 too), IPv6 to ifindex 9 (no such port: freed and
// counted), the rest dropped.

#include <linux/bpf.h>
#include <linux/if_ether.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_redirect_2(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  if (eth->h_proto == bpf_htons(ETH_P_IP))
    return bpf_redirect(ctx->ingress_ifindex + 1, 0);
  if (eth->h_proto == bpf_htons(ETH_P_IPV6))
    return bpf_redirect(9, 0);
  return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";

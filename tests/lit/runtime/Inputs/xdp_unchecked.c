// SPDX-License-Identifier: GPL-2.0
//
// Reads the EtherType without checking the packet's length first: the
// verifier (as the kernel's) refuses it.

#include <linux/bpf.h>

#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_unchecked(struct xdp_md *ctx) {
  unsigned char *data = (unsigned char *)(long)ctx->data;
  return data[12] == 0x08 ? XDP_PASS : XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";

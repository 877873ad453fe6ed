// SPDX-License-Identifier: GPL-2.0
//
// For the C API's tests (tests/api/consumer.c): xdp_meta puts four bytes of
// metadata in front of the packet with bpf_xdp_adjust_meta; xdp_ingress
// says what the packet arrived on: XDP_PASS from ifindex 5, queue 2,
// XDP_DROP from 0 and 0, XDP_ABORTED from anything else; xdp_grow grows
// the packet by 100 bytes (bpf_xdp_adjust_tail), XDP_ABORTED where its
// buffer has no room for them.
//   clang -O2 -target bpf -c xdp_ctx.c

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_meta(struct xdp_md *ctx) {
  if (bpf_xdp_adjust_meta(ctx, -4))
    return XDP_ABORTED;
  void *data = (void *)(long)ctx->data;
  __u32 *meta = (void *)(long)ctx->data_meta;
  if ((void *)(meta + 1) > data)
    return XDP_ABORTED;
  *meta = 0xfeedf00d;
  return XDP_PASS;
}

SEC("xdp")
int xdp_ingress(struct xdp_md *ctx) {
  if (ctx->ingress_ifindex == 5 && ctx->rx_queue_index == 2)
    return XDP_PASS;
  if (ctx->ingress_ifindex == 0 && ctx->rx_queue_index == 0)
    return XDP_DROP;
  return XDP_ABORTED;
}

SEC("xdp")
int xdp_grow(struct xdp_md *ctx) {
  return bpf_xdp_adjust_tail(ctx, 100) ? XDP_ABORTED : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

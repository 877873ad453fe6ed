// SPDX-License-Identifier: GPL-2.0
//
// For the C API's headroom (tests/api/consumer.c): four bytes of metadata
// in front of the packet with bpf_xdp_adjust_meta, then XDP_PASS.
//   clang -O2 -target bpf -c xdp_meta.c

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

char LICENSE[] SEC("license") = "GPL";

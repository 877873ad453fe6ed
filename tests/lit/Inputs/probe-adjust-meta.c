// SPDX-License-Identifier: Apache-2.0
// lit's probe of the kernel-adjust-meta feature (lit.cfg.py): an XDP
// program that calls bpf_xdp_adjust_meta, which some kernels refuse to
// every XDP program ("program of this type cannot use helper
// bpf_xdp_adjust_meta#54", seen on a Linux 6.18.44 build machine).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("xdp") int probe_adjust_meta(struct xdp_md *ctx) {
  return bpf_xdp_adjust_meta(ctx, -4) ? XDP_DROP : XDP_PASS;
}

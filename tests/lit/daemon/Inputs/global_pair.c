// SPDX-License-Identifier: Apache-2.0
//
// A struct in global data (.bss), counted by every packet: btf-names.test
// damages one of its members in the BTF.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct pair {
  __u32 seen;
  __u32 other;
};

struct pair totals;

SEC("xdp") int count_pair(struct xdp_md *ctx) {
  __sync_fetch_and_add(&totals.seen, 1);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

// A program with an XSK map (no run-time implementation yet).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 4);
} xsks SEC(".maps");

SEC("xdp") int uses_xskmap(struct xdp_md *ctx) { return bpf_redirect_map(&xsks, 0, XDP_PASS); }

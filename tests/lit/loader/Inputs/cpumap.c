// A program with a CPU map (no run-time implementation yet).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_CPUMAP);
  __type(key, __u32);
  __type(value, struct bpf_cpumap_val);
  __uint(max_entries, 4);
} cpus SEC(".maps");

SEC("xdp") int uses_cpumap(struct xdp_md *ctx) { return bpf_redirect_map(&cpus, 0, XDP_PASS); }

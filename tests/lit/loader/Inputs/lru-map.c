// A program with an LRU hash map (no run-time implementation yet).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 16);
} flows SEC(".maps");

SEC("xdp") int uses_lru(struct xdp_md *ctx) {
  __u32 k = 1;
  __u64 *v = bpf_map_lookup_elem(&flows, &k);
  return v ? XDP_DROP : XDP_PASS;
}

// A program with an array of maps whose inner definition no map of the
// object fits: its slots stay empty.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct inner {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
  __type(key, __u32);
  __uint(max_entries, 2);
  __array(values, struct inner);
} tables SEC(".maps");

SEC("xdp") int uses_map_in_map(struct xdp_md *ctx) {
  __u32 k = 0;
  void *t = bpf_map_lookup_elem(&tables, &k);
  if (!t)
    return XDP_PASS;
  __u64 *v = bpf_map_lookup_elem(t, &k);
  return v && *v ? XDP_DROP : XDP_PASS;
}

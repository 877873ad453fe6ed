// SPDX-License-Identifier: Apache-2.0
// tests/lit/api/lanes.test's program: counts each packet in a per-CPU
// array (its worker's slice), in a shared array with an atomic add, and in
// a shared hash by packet length (inserted by the first packet of a length,
// whichever worker's it is).
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} per_worker SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} total SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 64);
  __type(key, __u32);
  __type(value, __u64);
} by_len SEC(".maps");

SEC("xdp") int count(struct xdp_md *ctx) {
  __u32 zero = 0, len = ctx->data_end - ctx->data;
  __u64 one = 1, *v = bpf_map_lookup_elem(&per_worker, &zero);
  if (v)
    *v += 1;
  v = bpf_map_lookup_elem(&total, &zero);
  if (v)
    __sync_fetch_and_add(v, 1);
  v = bpf_map_lookup_elem(&by_len, &len);
  if (!v && bpf_map_update_elem(&by_len, &len, &one, BPF_NOEXIST) == 0)
    return XDP_PASS;
  if (!v) // another worker inserted it meanwhile
    v = bpf_map_lookup_elem(&by_len, &len);
  if (v)
    __sync_fetch_and_add(v, 1);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

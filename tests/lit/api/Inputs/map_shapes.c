// SPDX-License-Identifier: Apache-2.0
//
// Maps whose shapes the control program sets between open and load
// (map-shapes.test): `slots` is declared with 4 entries and indexed up to
// 63, `wide`'s value with 8 bytes and written at bytes 8..15, `outer` a
// map of maps without __array(values, ...). As declared the verifier
// refuses the program; with 64 entries, 16-byte values and an inner map
// template it loads.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} slots SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16);
  __uint(key_size, 4);
  __uint(value_size, 8);
} wide SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
  __uint(max_entries, 1);
  __uint(key_size, 4);
  __uint(value_size, 4);
} outer SEC(".maps");

// Two maps of the template's shape: the outer map's inner map table
// (sorted by name) is inner_a (1), inner_tmpl (2).
struct inner {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
};
struct inner inner_tmpl SEC(".maps"), inner_a SEC(".maps");

// Global data, whose shape is its section's.
__u64 packets;

SEC("xdp")
int map_shapes(struct xdp_md *ctx) {
  __u8 *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 1 > end)
    return XDP_ABORTED;
  __sync_fetch_and_add(&packets, 1);
  __u32 idx = data[0] & 63;
  __u64 *slot = bpf_map_lookup_elem(&slots, &idx);
  if (slot)
    *slot += 1;
  __u64 key = data[0];
  __u64 *v = bpf_map_lookup_elem(&wide, &key);
  if (!v) {
    __u64 init[2] = {0, 0};
    bpf_map_update_elem(&wide, &key, init, BPF_ANY);
    v = bpf_map_lookup_elem(&wide, &key);
    if (!v)
      return XDP_ABORTED;
  }
  v[0] += 1;
  v[1] += end - data; /* bytes 8..15: a 16-byte value only */
  __u32 zero = 0;
  void *in = bpf_map_lookup_elem(&outer, &zero);
  if (in) {
    __u64 *c = bpf_map_lookup_elem(in, &zero);
    if (c)
      *c += 1;
    return XDP_DROP;
  }
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

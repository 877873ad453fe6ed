// SPDX-License-Identifier: GPL-2.0
//
// Per-CPU exclusivity: every packet checks that its CPU's slice was last
// written under the same CPU number (bpf_get_smp_processor_id), marks the
// slice with a token of its own, makes a sequentially consistent atomic
// add to a shared packet count (the compiler keeps the mark in memory
// across it), checks that the mark is still its own, clears it, and adds
// one to the slice's count with a plain read-modify-write around all of
// that. Two packets running at once on one slice see each other's mark
// (`clashes`) and lose counts; a slice reached under another CPU number is
// `misplaced`. A run is exact when both stay 0 and the slices' counts sum
// to the packets: the summed slice is {0, packets, sum of CPU numbers}.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct slot {
  __u64 mark, count, cpu;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct slot);
} slots SEC(".maps");

// [0] packets (atomic adds), [1] clashes, [2] misplaced.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 3);
  __type(key, __u32);
  __type(value, __u64);
} totals SEC(".maps");

SEC("xdp")
int percpu_exclusive(struct xdp_md *ctx) {
  __u32 k0 = 0, k1 = 1, k2 = 2;
  struct slot *s = bpf_map_lookup_elem(&slots, &k0);
  __u64 *packets = bpf_map_lookup_elem(&totals, &k0);
  __u64 *clashes = bpf_map_lookup_elem(&totals, &k1);
  __u64 *misplaced = bpf_map_lookup_elem(&totals, &k2);
  if (!s || !packets || !clashes || !misplaced)
    return XDP_ABORTED;
  __u64 cpu = bpf_get_smp_processor_id() + 1ull;
  if (s->cpu && s->cpu != cpu)
    __sync_fetch_and_add(misplaced, 1);
  s->cpu = cpu;
  __u64 mark = ((__u64)bpf_get_prandom_u32() << 32 | bpf_get_prandom_u32()) | 1;
  __u64 n = s->count;
  s->mark = mark;
  __sync_fetch_and_add(packets, 1);
  if (s->mark != mark)
    __sync_fetch_and_add(clashes, 1);
  s->mark = 0;
  s->count = n + 1;
  return XDP_PASS;
}

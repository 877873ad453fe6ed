// SPDX-License-Identifier: GPL-2.0
//
// Queue and stack stress: every packet takes a ticket (an atomic add: a
// number no other packet gets), pushes it into a queue and a stack, and
// every other packet then pops one value from each and counts it in its
// map of seen values. Each map holds as many values as there are packets,
// so no push may fail; a packet pops only after its own push, so the map
// it pops from holds at least one value at that moment and no pop may
// fail either (each such failure returns XDP_ABORTED and is counted).
// After the run, the values popped (seen once each, never twice) and the
// values left in the map are every ticket exactly once
// (tests/stress/check-queue-stress.py): nothing lost, nothing duplicated.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define TICKETS (1u << 20)

struct {
  __uint(type, BPF_MAP_TYPE_QUEUE);
  __uint(max_entries, TICKETS);
  __type(value, __u64);
} q SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK);
  __uint(max_entries, TICKETS);
  __type(value, __u64);
} st SEC(".maps");

// [0]: the next ticket; [1]: pushes refused; [2]: pops refused.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 3);
  __type(key, __u32);
  __type(value, __u64);
} counters SEC(".maps");

// How many times each ticket was popped.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, TICKETS);
  __type(key, __u32);
  __type(value, __u32);
} q_seen SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, TICKETS);
  __type(key, __u32);
  __type(value, __u32);
} st_seen SEC(".maps");

static __always_inline int pop_into(void *map, void *seen) {
  __u64 v = ~0ull;
  if (bpf_map_pop_elem(map, &v))
    return -1;
  __u32 k = (__u32)v;
  __u32 *n = bpf_map_lookup_elem(seen, &k);
  if (!n)
    return -1;
  __sync_fetch_and_add(n, 1);
  return 0;
}

SEC("xdp") int queue_stress(struct xdp_md *ctx) {
  __u32 k = 0, refused_push = 1, refused_pop = 2;
  __u64 *next = bpf_map_lookup_elem(&counters, &k);
  __u64 *bad_push = bpf_map_lookup_elem(&counters, &refused_push);
  __u64 *bad_pop = bpf_map_lookup_elem(&counters, &refused_pop);
  if (!next || !bad_push || !bad_pop)
    return XDP_ABORTED;
  __u64 ticket = __sync_fetch_and_add(next, 1);
  if (ticket >= TICKETS)
    return XDP_PASS; // more packets than tickets: left out
  int ok = 1;
  if (bpf_map_push_elem(&q, &ticket, 0) || bpf_map_push_elem(&st, &ticket, 0)) {
    __sync_fetch_and_add(bad_push, 1);
    ok = 0;
  }
  if (ticket & 1) {
    if (pop_into(&q, &q_seen) || pop_into(&st, &st_seen)) {
      __sync_fetch_and_add(bad_pop, 1);
      ok = 0;
    }
  }
  return ok ? XDP_DROP : XDP_ABORTED;
}

char _license[] SEC("license") = "GPL";

// Tail calls to the limit: the entry falls through an out-of-range and an
// empty slot, then jumps to `again`, which jumps to itself until the
// kernel's limit of 33 tail calls a packet is reached: `again` runs 33
// times, and its failed 34th call falls through to XDP_DROP.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

int again(struct xdp_md *ctx);

struct {
  __uint(type, BPF_MAP_TYPE_PROG_ARRAY);
  __uint(max_entries, 4);
  __uint(key_size, sizeof(__u32));
  __array(values, int(void *));
} jump SEC(".maps") = {.values = {[1] = (void *)&again}};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 3);
} runs SEC(".maps"); // [0] entry, [1] again, [2] fell through

static __always_inline void count(__u32 k) {
  __u64 *n = bpf_map_lookup_elem(&runs, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
}

SEC("xdp") int entry(struct xdp_md *ctx) {
  count(0);
  bpf_tail_call(ctx, &jump, 7); // out of range: falls through
  bpf_tail_call(ctx, &jump, 2); // empty: falls through
  bpf_tail_call(ctx, &jump, 1);
  return XDP_ABORTED;
}

SEC("xdp") int again(struct xdp_md *ctx) {
  count(1);
  bpf_tail_call(ctx, &jump, 1);
  count(2);
  return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";

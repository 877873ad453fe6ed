// SPDX-License-Identifier: GPL-2.0
//
// Token-bucket rate limiter per source IPv4 address. Each source has a
// bucket in an LRU hash (the least recently seen sources make room for new
// ones): it starts full with BURST tokens, a packet takes one or is dropped
// when none is left, and tokens come back at one every NS_PER_TOKEN of
// bpf_ktime_get_ns, up to BURST. Non-IPv4 traffic passes.
//
// The rate is deliberately slow, one token every 10 seconds: no test run
// (a few thousand packets, well under a second) can see a refill, so the
// verdicts and token counts depend only on the packets, and the host, the
// kernel and the GPU can be compared exactly; only the refill time stored
// in each bucket is the clock's (tests mask it). Updates of one bucket
// from concurrent packets are not atomic, as in most rate limiters: a few
// packets of a burst may pass twice on a busy multi-CPU (or GPU) run.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define BURST 5
#define NS_PER_TOKEN 10000000000ull

struct bucket {
  __u64 tokens;
  __u64 refilled_ns; // when the tokens were last topped up
};

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, __u32);
  __type(value, struct bucket);
  __uint(max_entries, 1024);
} rate_buckets SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 2);
} rate_stats SEC(".maps"); // [0] passed, [1] dropped

static __always_inline int verdict(__u32 k, int action) {
  __u64 *n = bpf_map_lookup_elem(&rate_stats, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
  return action;
}

SEC("xdp")
int xdp_rate_limit(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  if (eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end)
    return XDP_DROP;
  __u32 src = ip->saddr;
  __u64 now = bpf_ktime_get_ns();
  struct bucket *b = bpf_map_lookup_elem(&rate_buckets, &src);
  if (!b) {
    struct bucket fresh = {.tokens = BURST - 1, .refilled_ns = now};
    bpf_map_update_elem(&rate_buckets, &src, &fresh, BPF_ANY);
    return verdict(0, XDP_PASS);
  }
  __u64 elapsed = now - b->refilled_ns;
  if (elapsed >= NS_PER_TOKEN) {
    __u64 add = elapsed / NS_PER_TOKEN;
    __u64 tokens = b->tokens + add;
    b->tokens = tokens > BURST ? BURST : tokens;
    b->refilled_ns += add * NS_PER_TOKEN;
  }
  if (b->tokens == 0)
    return verdict(1, XDP_DROP);
  b->tokens -= 1;
  return verdict(0, XDP_PASS);
}

char _license[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
//
// DDoS mitigation with a count-min sketch: every IPv4 packet adds one to
// its source address's counter in each of four rows (independent hashes
// into 2048 counters a row); a source whose smallest counter, the
// sketch's estimate of its packets so far, is past the threshold is
// dropped. The estimate never undercounts, so no source under the
// threshold is ever dropped for another's traffic in its own row alone.
// Counters are shared by every CPU (atomic adds). Non-IPv4 passes.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define ROWS 4
#define COLUMNS 2048

const volatile __u64 threshold = 400;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, ROWS * COLUMNS);
} sketch SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} dropped SEC(".maps");

static __always_inline __u32 row_hash(__u32 v, __u32 seed) {
  __u32 h = v * 0x9e3779b1u ^ seed;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return h;
}

SEC("xdp")
int xdp_ddos_cms(struct xdp_md *ctx) {
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
  __u64 estimate = ~0ull;
  for (__u32 row = 0; row < ROWS; row++) {
    __u32 slot = row * COLUMNS + row_hash(ip->saddr, row * 0x5bd1e995u) % COLUMNS;
    __u64 *counter = bpf_map_lookup_elem(&sketch, &slot);
    if (!counter)
      return XDP_ABORTED;
    __u64 seen = __sync_fetch_and_add(counter, 1) + 1;
    if (seen < estimate)
      estimate = seen;
  }
  if (estimate <= threshold)
    return XDP_PASS;
  __u32 zero = 0;
  __u64 *n = bpf_map_lookup_elem(&dropped, &zero);
  if (n)
    *n += 1;
  return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";

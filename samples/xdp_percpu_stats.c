// SPDX-License-Identifier: GPL-2.0
//
// Per-CPU statistics, the way kernel XDP programs keep them without atomic
// instructions: packets and bytes per IP protocol in a per-CPU array, and
// packets per IPv4 source in an LRU per-CPU hash. Each CPU increments only
// its own copies with plain read-modify-writes; readers add the copies up.
// Every packet passes.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct counters {
  __u64 packets;
  __u64 bytes;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, struct counters);
  __uint(max_entries, 256);
} proto_stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 8192);
} source_packets SEC(".maps");

SEC("xdp")
int xdp_percpu_stats(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  __u32 proto = 255; // not IPv4, or truncated
  __u32 saddr = 0;
  if ((void *)(eth + 1) <= data_end && eth->h_proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *ip = (void *)(eth + 1);
    if ((void *)(ip + 1) <= data_end) {
      proto = ip->protocol;
      saddr = ip->saddr;
    }
  }
  struct counters *c = bpf_map_lookup_elem(&proto_stats, &proto);
  if (c) {
    c->packets += 1;
    c->bytes += data_end - data;
  }
  if (saddr) {
    __u64 *n = bpf_map_lookup_elem(&source_packets, &saddr);
    if (!n) {
      // Another CPU may insert the same source at the same moment: insert
      // zeros only if absent, then count on this CPU's copy either way.
      __u64 zero = 0;
      bpf_map_update_elem(&source_packets, &saddr, &zero, BPF_NOEXIST);
      n = bpf_map_lookup_elem(&source_packets, &saddr);
    }
    if (n)
      *n += 1;
  }
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

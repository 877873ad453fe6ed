// SPDX-License-Identifier: GPL-2.0
//
// Per-flow packet and byte counters in a hash map keyed by the IPv4 address
// pair: the first packet of a flow inserts it (BPF_NOEXIST; when several
// threads race, one insert wins and the others find it), every packet then
// adds to its flow with atomics. The result does not depend on the order
// packets run in, so a batch on the GPU must count exactly what the kernel
// counts one packet at a time.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct pair {
  __u32 saddr, daddr;
};

struct counts {
  __u64 packets;
  __u64 bytes;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, struct pair);
  __type(value, struct counts);
  __uint(max_entries, 65536);
} flow_counts SEC(".maps");

SEC("xdp")
int xdp_flow_count(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end)
    return XDP_PASS;
  struct pair key = {ip->saddr, ip->daddr};
  struct counts *c = bpf_map_lookup_elem(&flow_counts, &key);
  if (!c) {
    struct counts zero = {0, 0};
    bpf_map_update_elem(&flow_counts, &key, &zero, BPF_NOEXIST);
    c = bpf_map_lookup_elem(&flow_counts, &key);
    if (!c)
      return XDP_PASS; // the map is full
  }
  __sync_fetch_and_add(&c->packets, 1);
  __sync_fetch_and_add(&c->bytes, (__u64)(data_end - data));
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: Apache-2.0
//
// Counts packets and bytes into one shared array (not per-CPU) with BPF
// atomics, and marks each packet's IP protocol in a bloom filter: maps
// every CPU shares, which a program run on several GPUs changes from all
// of them (issue 22). Built with ebpf-gpu-cc --system-atomics, its array
// and bloom filter live once in the first GPU's memory and the others
// reach them over peer access; the counters must come out as the packet
// count exactly (an update lost between GPUs would show).

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_helpers.h>

struct counts {
  __u64 packets;
  __u64 bytes;
  __u64 fetched; // the sum of every fetch-add's old value's low bit
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct counts);
} counts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
  __uint(max_entries, 256);
  __type(value, __u8);
} protocols SEC(".maps");

SEC("xdp")
int shared_counts(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  __u32 key = 0;
  struct counts *c = bpf_map_lookup_elem(&counts, &key);
  if (!c)
    return XDP_ABORTED;
  __u64 old = __sync_fetch_and_add(&c->packets, 1);
  __sync_fetch_and_add(&c->bytes, (__u64)(data_end - data));
  __sync_fetch_and_add(&c->fetched, old & 1);
  struct ethhdr *eth = data;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) <= data_end && eth->h_proto == __constant_htons(ETH_P_IP)) {
    __u8 proto = ip->protocol;
    bpf_map_push_elem(&protocols, &proto, 0);
  }
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
//
// Per-protocol packet and byte counters: an array map indexed by the IPv4
// protocol number (index 0 counts non-IPv4 frames), updated with atomic
// adds because thousands of GPU threads update it at once. Passes every
// packet. Global data counts all packets and bytes too.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct counter {
  __u64 packets;
  __u64 bytes;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct counter);
  __uint(max_entries, 256);
} proto_counters SEC(".maps");

__u64 total_packets;

SEC("xdp")
int xdp_proto_count(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  __u32 key = 0;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) <= data_end && eth->h_proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *ip = (void *)(eth + 1);
    if ((void *)(ip + 1) <= data_end)
      key = ip->protocol;
  }
  struct counter *c = bpf_map_lookup_elem(&proto_counters, &key);
  if (c) {
    __sync_fetch_and_add(&c->packets, 1);
    __sync_fetch_and_add(&c->bytes, (__u64)(data_end - data));
  }
  __sync_fetch_and_add(&total_packets, 1);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

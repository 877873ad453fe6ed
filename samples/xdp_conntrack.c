// SPDX-License-Identifier: GPL-2.0
//
// Stateful firewall: TCP connections from outside 10.0.0.0/8 are admitted
// only after a SYN opened them. A SYN inserts the flow (BPF_NOEXIST), later
// segments of a known flow are counted and passed, a FIN or RST closes the
// flow (delete), segments of unknown flows are dropped. Non-TCP passes.
// Flows live in an LRU hash keyed by the 5-tuple (with struct padding):
// when the table is full, a new connection evicts the least recently used.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct flow {
  __u32 saddr, daddr;
  __u16 sport, dport;
  __u8 proto; // followed by 3 bytes of padding
};

struct flow_state {
  __u64 packets;
  __u64 bytes;
};

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, struct flow);
  __type(value, struct flow_state);
  __uint(max_entries, 4096);
} flows SEC(".maps");

SEC("xdp")
int xdp_conntrack(struct xdp_md *ctx) {
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
  if (ip->protocol != IPPROTO_TCP)
    return XDP_PASS;
  if ((bpf_ntohl(ip->saddr) >> 24) == 10)
    return XDP_PASS;
  struct tcphdr *tcp = (void *)ip + ip->ihl * 4;
  if ((void *)(tcp + 1) > data_end)
    return XDP_DROP;
  struct flow key;
  __builtin_memset(&key, 0, sizeof(key));
  key.saddr = ip->saddr;
  key.daddr = ip->daddr;
  key.sport = tcp->source;
  key.dport = tcp->dest;
  key.proto = IPPROTO_TCP;
  __u64 len = data_end - data;
  if (tcp->syn && !tcp->ack) {
    struct flow_state init = {1, len};
    bpf_map_update_elem(&flows, &key, &init, BPF_NOEXIST);
    return XDP_PASS;
  }
  struct flow_state *st = bpf_map_lookup_elem(&flows, &key);
  if (!st)
    return XDP_DROP;
  __sync_fetch_and_add(&st->packets, 1);
  __sync_fetch_and_add(&st->bytes, len);
  if (tcp->fin || tcp->rst)
    bpf_map_delete_elem(&flows, &key);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
//
// Flow export and drop sampling through event maps, read by the host:
// - the first packet of each IPv4 TCP/UDP flow (a new key in an LRU hash)
//   reserves a record in the ring buffer `flow_records`, fills in the
//   5-tuple and submits it; flows from inside hosts (10.0.0.0/8) are not
//   exported, and their record is discarded;
// - ICMP packets are copied to `icmp_records` with bpf_ringbuf_output;
// - packets dropped for being malformed send their drop reason and the
//   first bytes of the packet (the ctx-size of the flags) to the perf
//   event array `drop_samples`.
// A record that finds no room is counted in export_stats (as the kernel's
// -EAGAIN / null reservations tell it), not lost silently.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct flow_key {
  __u32 saddr, daddr;
  __u16 sport, dport;
  __u8 proto;
  __u8 pad[3];
};

struct flow_record {
  struct flow_key key;
  __u32 ifindex; // where the flow came in
};

struct icmp_record {
  __u32 saddr, daddr;
  __u8 type, code;
  __u16 len;
};

struct drop_sample {
  __u32 reason; // 1: truncated Ethernet, 2: truncated IPv4, 3: bad IHL
  __u32 len;
};

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, struct flow_key);
  __type(value, __u64);
  __uint(max_entries, 4096);
} flows SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 64 * 1024);
} flow_records SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 16 * 1024);
} icmp_records SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
} drop_samples SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} export_stats SEC(".maps"); // [0] exported, [1] not exported (from inside), [2] no room, [3] drops sampled

static __always_inline void count(__u32 k) {
  __u64 *n = bpf_map_lookup_elem(&export_stats, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
}

static __always_inline int drop(struct xdp_md *ctx, __u32 reason) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct drop_sample s = {.reason = reason, .len = (__u32)(data_end - data)};
  // Up to 14 bytes of the packet follow the sample (never more than it has).
  __u64 snap = s.len < 14 ? s.len : 14;
  if (bpf_perf_event_output(ctx, &drop_samples, BPF_F_CURRENT_CPU | (snap << 32), &s,
                            sizeof(s)) == 0)
    count(3);
  else
    count(2);
  return XDP_DROP;
}

SEC("xdp")
int xdp_flow_export(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return drop(ctx, 1);
  if (eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end)
    return drop(ctx, 2);
  if (ip->ihl < 5)
    return drop(ctx, 3);
  __u32 len = (__u32)(data_end - data);
  if (ip->protocol == IPPROTO_ICMP) {
    struct icmp_record r = {.saddr = ip->saddr, .daddr = ip->daddr, .len = (__u16)len};
    __u8 *icmp = (void *)ip + ip->ihl * 4;
    if (icmp + 2 <= (__u8 *)data_end) {
      r.type = icmp[0];
      r.code = icmp[1];
    }
    if (bpf_ringbuf_output(&icmp_records, &r, sizeof(r), 0) != 0)
      count(2);
    return XDP_PASS;
  }
  struct flow_key k = {.saddr = ip->saddr, .daddr = ip->daddr, .proto = ip->protocol};
  void *l4 = (void *)ip + ip->ihl * 4;
  if (ip->protocol == IPPROTO_TCP || ip->protocol == IPPROTO_UDP) {
    struct udphdr *ports = l4; // source and destination ports lead both headers
    if ((void *)(ports + 1) > data_end)
      return XDP_PASS;
    k.sport = ports->source;
    k.dport = ports->dest;
  } else {
    return XDP_PASS;
  }
  __u64 one = 1;
  if (bpf_map_update_elem(&flows, &k, &one, BPF_NOEXIST) != 0) {
    __u64 *n = bpf_map_lookup_elem(&flows, &k);
    if (n)
      __sync_fetch_and_add(n, 1);
    return XDP_PASS;
  }
  // A new flow.
  struct flow_record *r = bpf_ringbuf_reserve(&flow_records, sizeof(*r), 0);
  if (!r) {
    count(2);
    return XDP_PASS;
  }
  r->key = k;
  r->ifindex = ctx->ingress_ifindex;
  if ((bpf_ntohl(k.saddr) >> 24) == 10) {
    bpf_ringbuf_discard(r, 0);
    count(1);
  } else {
    bpf_ringbuf_submit(r, 0);
    count(0);
  }
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

// SPDX-License-Identifier: Apache-2.0
//
// Cilium-like L3/L4 handling: IPv4 and IPv6 to a common tuple, a
// connection-tracking lookup and update, an identity-based policy
// verdict, a per-source token bucket (rate limit) and TTL/hop-limit
// decrement with incremental checksum update for forwarded packets.

#include "common.h"

struct tuple {
  __u32 saddr[4];
  __u32 daddr[4];
  __be16 sport, dport;
  __u8 proto, family;
  __u16 pad;
};
struct ct_entry {
  __u64 lifetime;
  __u32 packets;
  __u16 flags;
  __u16 pad;
};
struct policy_key {
  __u32 identity;
  __be16 dport;
  __u8 proto;
  __u8 pad;
};
struct bucket {
  __u64 last_ns;
  __u64 tokens;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, struct tuple);
  __type(value, struct ct_entry);
  __uint(max_entries, 8192);
} ct SEC(".maps");
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 1024);
} ipcache SEC(".maps");
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, struct policy_key);
  __type(value, __u8);
  __uint(max_entries, 1024);
} policy SEC(".maps");
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, struct bucket);
  __uint(max_entries, 4096);
} buckets SEC(".maps");

#define CT_SYN 1
#define CT_FIN 2
#define RATE_PER_SEC 1000
#define BURST 100

static __always_inline int rate_ok(__u32 src) {
  __u64 now = bpf_ktime_get_ns();
  struct bucket *b = bpf_map_lookup_elem(&buckets, &src);
  if (!b) {
    struct bucket nb = {now, BURST - 1};
    bpf_map_update_elem(&buckets, &src, &nb, BPF_NOEXIST);
    return 1;
  }
  __u64 refill = (now - b->last_ns) * RATE_PER_SEC / 1000000000ull;
  __u64 tokens = b->tokens + refill;
  if (tokens > BURST)
    tokens = BURST;
  if (refill)
    b->last_ns = now;
  if (!tokens)
    return 0;
  b->tokens = tokens - 1;
  return 1;
}

SEC("xdp") int l3l4(struct xdp_md *ctx) {
  void *end = (void *)(long)ctx->data_end;
  struct cursor c = {(void *)(long)ctx->data};
  struct ethhdr *eth;
  struct tuple t = {};
  struct iphdr *ip = 0;
  struct ipv6hdr *ip6 = 0;
  int proto = parse_eth(&c, end, &eth);
  int l4;
  __u32 src_key;
  if (proto == bpf_htons(ETH_P_IP)) {
    l4 = parse_ip(&c, end, &ip);
    if (l4 < 0)
      return XDP_DROP;
    t.saddr[0] = ip->saddr;
    t.daddr[0] = ip->daddr;
    t.family = 4;
    src_key = ip->saddr;
  } else if (proto == bpf_htons(ETH_P_IPV6)) {
    l4 = parse_ip6(&c, end, &ip6);
    if (l4 < 0)
      return XDP_DROP;
    __builtin_memcpy(t.saddr, &ip6->saddr, 16);
    __builtin_memcpy(t.daddr, &ip6->daddr, 16);
    t.family = 6;
    src_key = t.saddr[3];
  } else {
    return XDP_PASS;
  }
  t.proto = l4;
  __u16 flags = 0;
  if (l4 == IPPROTO_TCP) {
    struct tcphdr *tcp = c.pos;
    if ((void *)(tcp + 1) > end)
      return XDP_DROP;
    t.sport = tcp->source;
    t.dport = tcp->dest;
    if (tcp->syn)
      flags |= CT_SYN;
    if (tcp->fin || tcp->rst)
      flags |= CT_FIN;
  } else if (l4 == IPPROTO_UDP) {
    struct udphdr *udp = c.pos;
    if ((void *)(udp + 1) > end)
      return XDP_DROP;
    t.sport = udp->source;
    t.dport = udp->dest;
  }
  struct ct_entry *e = bpf_map_lookup_elem(&ct, &t);
  if (e) {
    __sync_fetch_and_add(&e->packets, 1);
    e->flags |= flags;
    e->lifetime = bpf_ktime_get_ns() + (flags & CT_FIN ? 10 : 60) * 1000000000ull;
  } else {
    if (!rate_ok(src_key))
      return XDP_DROP;
    __u32 *id = bpf_map_lookup_elem(&ipcache, &src_key);
    struct policy_key pk = {.identity = id ? *id : 2, .dport = t.dport, .proto = t.proto};
    __u8 *verdict = bpf_map_lookup_elem(&policy, &pk);
    if (!verdict || *verdict == 0)
      return XDP_DROP;
    struct ct_entry ne = {.lifetime = bpf_ktime_get_ns() + 60000000000ull, .packets = 1,
                          .flags = flags};
    bpf_map_update_elem(&ct, &t, &ne, BPF_ANY);
  }
  if (ip) {
    if (ip->ttl <= 1)
      return XDP_PASS;
    __u32 check = ip->check;
    check += bpf_htons(0x0100);
    ip->check = (__u16)(check + (check >= 0xffff));
    ip->ttl--;
  } else if (ip6) {
    if (ip6->hop_limit <= 1)
      return XDP_PASS;
    ip6->hop_limit--;
  }
  return XDP_PASS;
}

// SPDX-License-Identifier: GPL-2.0
//
// Layer-4 balancer in the shape of Katran's data path (written for this
// project): TCP and UDP packets to a VIP are sent to a real server in an
// IPIP tunnel, every packet of a connection to the same real. Per packet:
//   1. the VIP: the `vips` hash keyed by (destination, port, protocol). The
//      generated traffic spreads its services over 192.168.0.0/16, one
//      address per flow, so a VIP here is a /16 service range: the program
//      keys the table with the destination's /16 (operators of a real
//      deployment would key whole addresses). Not a VIP: XDP_PASS.
//   2. the connection: the `conns` LRU hash keyed by the 5-tuple gives the
//      real a connection was given; on a miss, a Maglev-style ring picks it
//      (`ring`: MAX_VIPS rings of RING_SIZE slots, a prime, filled by the
//      control plane with real indices, here samples/xdp_l4lb.maps, made by
//      scripts/maglev-ring.py; the slot is a hash of the 5-tuple modulo
//      RING_SIZE in the VIP's ring) and the connection is inserted, so that
//      changing the ring later does not move established connections. The
//      least recently used connections make room for new ones.
//   3. IPIP (RFC 2003): bpf_xdp_adjust_head(-20) opens room for an outer
//      IPv4 header from the tunnel source (`lb_config`) to the real
//      (`reals`), protocol 4, TTL 64, TOS copied, a header checksum computed
//      here; the Ethernet header goes out to the gateway's MAC from the MAC
//      the packet came to, and the packet leaves where it came in (XDP_TX).
// Per VIP, packets and bytes are counted in a per-CPU array. Non-IPv4,
// protocols other than TCP and UDP, and IPv4 with options (the host stack
// handles those) pass; truncated headers, a header length under 5 words
// and fragments (their 5-tuple is not in every fragment) drop, as does a
// VIP whose ring slot or real is not filled in.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define MAX_VIPS 8
#define RING_SIZE 127 // a prime: Maglev's permutations need one
#define MAX_REALS 64
#define CONN_ENTRIES 65536

struct vip_key {
  __be32 addr; // the destination's /16, network byte order
  __be16 port;
  __u8 proto;
  __u8 pad;
};

struct vip_meta {
  __u32 vip_num; // which ring
};

struct flow_key {
  __be32 saddr, daddr;
  __be16 sport, dport;
  __u8 proto;
  __u8 pad[3];
};

struct conn {
  __u32 real; // index into reals
};

struct real_def {
  __be32 addr;
};

struct lb_config {
  __u8 gw_mac[ETH_ALEN];
  __u8 pad[2];
  __be32 tunnel_src;
};

struct vip_stats {
  __u64 packets, bytes;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, struct vip_key);
  __type(value, struct vip_meta);
  __uint(max_entries, MAX_VIPS);
} vips SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u32); // a real's index; 0: no real
  __uint(max_entries, MAX_VIPS * RING_SIZE);
} ring SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct real_def);
  __uint(max_entries, MAX_REALS);
} reals SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __type(key, struct flow_key);
  __type(value, struct conn);
  __uint(max_entries, CONN_ENTRIES);
} conns SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct lb_config);
  __uint(max_entries, 1);
} lb_config SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, struct vip_stats);
  __uint(max_entries, MAX_VIPS);
} vip_stats SEC(".maps");

/// The 5-tuple's hash: the words as the program loads them (the addresses
/// and the two ports in one word), mixed as MurmurHash3's finalizer.
static __always_inline __u32 mix(__u32 h, __u32 v) {
  h ^= v;
  h *= 0xcc9e2d51;
  h = (h << 15) | (h >> 17);
  return h * 0x1b873593;
}

static __always_inline __u32 flow_hash(__u32 saddr, __u32 daddr, __u32 ports, __u32 proto) {
  __u32 h = mix(0x9747b28c ^ proto, saddr);
  h = mix(h, daddr);
  h = mix(h, ports);
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  return h;
}

/// The IPv4 header checksum of a 20-byte header whose check field is 0.
static __always_inline __u16 ip_checksum(const __u16 *h) {
  __u32 sum = 0;
#pragma unroll
  for (int i = 0; i < 10; ++i)
    sum += h[i];
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return (__u16)~sum;
}

SEC("xdp")
int xdp_l4lb(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  if (eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end || ip->ihl < 5)
    return XDP_DROP;
  if (ip->ihl != 5)
    return XDP_PASS;
  if (ip->frag_off & bpf_htons(0x3fff)) // more fragments, or an offset
    return XDP_DROP;
  __u8 proto = ip->protocol;
  if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
    return XDP_PASS;
  void *l4 = ip + 1;
  if (l4 + (proto == IPPROTO_TCP ? sizeof(struct tcphdr) : sizeof(struct udphdr)) > data_end)
    return XDP_DROP;
  // TCP and UDP both start with the two ports.
  struct udphdr *ports = l4;

  struct vip_key vk;
  __builtin_memset(&vk, 0, sizeof(vk));
  vk.addr = ip->daddr & bpf_htonl(0xffff0000);
  vk.port = ports->dest;
  vk.proto = proto;
  struct vip_meta *vip = bpf_map_lookup_elem(&vips, &vk);
  if (!vip)
    return XDP_PASS;
  __u32 vip_num = vip->vip_num;

  struct flow_key fk;
  __builtin_memset(&fk, 0, sizeof(fk));
  fk.saddr = ip->saddr;
  fk.daddr = ip->daddr;
  fk.sport = ports->source;
  fk.dport = ports->dest;
  fk.proto = proto;
  __u32 real;
  struct conn *c = bpf_map_lookup_elem(&conns, &fk);
  if (c) {
    real = c->real;
  } else {
    __u32 h = flow_hash(fk.saddr, fk.daddr, (__u32)fk.sport | (__u32)fk.dport << 16, proto);
    __u32 slot = vip_num * RING_SIZE + h % RING_SIZE;
    __u32 *r = bpf_map_lookup_elem(&ring, &slot);
    if (!r || !*r)
      return XDP_DROP;
    real = *r;
    struct conn fresh = {.real = real};
    bpf_map_update_elem(&conns, &fk, &fresh, BPF_ANY);
  }
  struct real_def *dst = bpf_map_lookup_elem(&reals, &real);
  if (!dst || !dst->addr)
    return XDP_DROP;
  __u32 k0 = 0;
  struct lb_config *cfg = bpf_map_lookup_elem(&lb_config, &k0);
  if (!cfg)
    return XDP_ABORTED;
  struct vip_stats *st = bpf_map_lookup_elem(&vip_stats, &vip_num);
  if (st) {
    st->packets += 1;
    st->bytes += data_end - data;
  }

  // What the outer headers need, before the packet moves.
  __be32 real_addr = dst->addr, tunnel_src = cfg->tunnel_src;
  __u8 gw_mac[ETH_ALEN], our_mac[ETH_ALEN];
  __builtin_memcpy(gw_mac, cfg->gw_mac, ETH_ALEN);
  __builtin_memcpy(our_mac, eth->h_dest, ETH_ALEN);
  __u8 tos = ip->tos;
  __u16 inner_len = bpf_ntohs(ip->tot_len);

  if (bpf_xdp_adjust_head(ctx, -(int)sizeof(struct iphdr)))
    return XDP_DROP;
  data = (void *)(long)ctx->data;
  data_end = (void *)(long)ctx->data_end;
  eth = data;
  struct iphdr *outer = (void *)(eth + 1);
  if ((void *)(outer + 1) > data_end)
    return XDP_ABORTED; // cannot happen: the packet grew by 20 bytes
  __builtin_memcpy(eth->h_dest, gw_mac, ETH_ALEN);
  __builtin_memcpy(eth->h_source, our_mac, ETH_ALEN);
  eth->h_proto = bpf_htons(ETH_P_IP);
  outer->version = 4;
  outer->ihl = 5;
  outer->tos = tos;
  outer->tot_len = bpf_htons(inner_len + sizeof(struct iphdr));
  outer->id = 0;
  outer->frag_off = 0;
  outer->ttl = 64;
  outer->protocol = IPPROTO_IPIP;
  outer->check = 0;
  outer->saddr = tunnel_src;
  outer->daddr = real_addr;
  outer->check = ip_checksum((const __u16 *)outer);
  return XDP_TX;
}

char _license[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
//
// Per-tenant policy tables chosen through maps of maps. A packet's tenant
// is its VLAN id modulo 4 (tagged frames) or the third byte of its IPv4
// destination modulo 4 (untagged); the array of maps `tenant_policy` holds
// each tenant's own rule table (a hash keyed by protocol << 16 | destination
// port), or nothing for a tenant without one (its packets pass). A rule
// says what to do and counts its packets; a drop rule with a budget expires
// (is deleted) after that many drops. A TCP SYN to a port with no rule
// learns a pass rule, so the table shows the services each tenant reached.
// A hash of maps keyed by protocol selects per-protocol counters.
//
// Tenants 0 and 1 get their tables from the static initialiser below (as
// libbpf fills them); samples/xdp_tenant_policy.maps gives tenant 2 the
// table of tenant 1 and sets rules. The result depends on packet order
// (budgets, learning): the GPU is compared with one packet a batch.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct rule {
  __u32 action; // XDP_DROP, XDP_PASS, ...
  __u32 budget; // drop rules: drops left before the rule expires (0: never)
  __u64 packets;
};

struct policy_table {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, struct rule);
  __uint(max_entries, 256);
};

struct policy_table policy_gold SEC(".maps"), policy_silver SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
  __type(key, __u32);
  __uint(max_entries, 4);
  __array(values, struct policy_table);
} tenant_policy SEC(".maps") = {
    .values = {[0] = &policy_gold, [1] = &policy_silver},
};

struct counters {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 2); // [0] packets, [1] bytes
};

struct counters tcp_stats SEC(".maps"), udp_stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
  __type(key, __u32);
  __uint(max_entries, 32);
  __array(values, struct counters);
} proto_stats SEC(".maps") = {
    .values = {[IPPROTO_TCP] = &tcp_stats, [IPPROTO_UDP] = &udp_stats},
};

struct vlan_hdr {
  __be16 tci;
  __be16 proto;
};

static __always_inline void count_proto(__u32 proto, __u64 bytes) {
  void *stats = bpf_map_lookup_elem(&proto_stats, &proto);
  if (!stats)
    return;
  __u32 k = 0;
  __u64 *n = bpf_map_lookup_elem(stats, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
  k = 1;
  n = bpf_map_lookup_elem(stats, &k);
  if (n)
    __sync_fetch_and_add(n, bytes);
}

SEC("xdp")
int xdp_tenant_policy(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  void *l3 = eth + 1;
  __u16 proto = eth->h_proto;
  __u32 tenant = 0;
  int tagged = 0;
  if (proto == bpf_htons(ETH_P_8021Q)) {
    struct vlan_hdr *v = l3;
    if ((void *)(v + 1) > data_end)
      return XDP_DROP;
    tenant = bpf_ntohs(v->tci) & 0xfff;
    proto = v->proto;
    l3 = v + 1;
    tagged = 1;
  }
  if (proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = l3;
  if ((void *)(ip + 1) > data_end)
    return XDP_DROP;
  if (!tagged)
    tenant = (bpf_ntohl(ip->daddr) >> 8) & 0xff;
  tenant &= 3;
  count_proto(ip->protocol, (__u64)(data_end - data));

  __u32 key = (__u32)ip->protocol << 16;
  int syn = 0;
  void *l4 = (void *)ip + ip->ihl * 4;
  if (ip->protocol == IPPROTO_TCP) {
    struct tcphdr *tcp = l4;
    if ((void *)(tcp + 1) > data_end)
      return XDP_PASS;
    key |= bpf_ntohs(tcp->dest);
    syn = tcp->syn && !tcp->ack;
  } else if (ip->protocol == IPPROTO_UDP) {
    struct udphdr *udp = l4;
    if ((void *)(udp + 1) > data_end)
      return XDP_PASS;
    key |= bpf_ntohs(udp->dest);
  }

  void *table = bpf_map_lookup_elem(&tenant_policy, &tenant);
  if (!table)
    return XDP_PASS; // a tenant without a table
  struct rule *r = bpf_map_lookup_elem(table, &key);
  if (!r) {
    if (syn) {
      struct rule learned;
      learned.action = XDP_PASS;
      learned.budget = 0;
      learned.packets = ctx->rx_queue_index + 1; // 1 (keeps the rule off .rodata)
      bpf_map_update_elem(table, &key, &learned, BPF_NOEXIST);
    }
    return XDP_PASS;
  }
  __sync_fetch_and_add(&r->packets, 1);
  __u32 action = r->action;
  if (action == XDP_DROP && r->budget) {
    // Not atomic: concurrent drops of one rule may both take the last one
    // (the delete of the second then finds nothing).
    r->budget -= 1;
    if (r->budget == 0)
      bpf_map_delete_elem(table, &key); // the block has run its course
  }
  return action == XDP_DROP ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";

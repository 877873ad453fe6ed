// SPDX-License-Identifier: GPL-2.0
//
// Hash map stress: every packet picks a key from its flow (4096 keys, as
// many as the map holds) and, by the key's class, inserts it if absent,
// replaces it, inserts and deletes it, or reads it. Values are
// self-checking (b = a * K1, c = a ^ K2): a reader that sees a torn value
// returns XDP_ABORTED, as does an update or delete that fails when it
// cannot (the map never fills), so a run with no ABORTED verdict saw
// neither, and the map after the run must hold only consistent values. Keys of the
// insert-only class hold a value fixed by the key, so every one of them
// that any packet carried is present afterwards with that exact value.

#include <linux/bpf.h>
#include <linux/errno.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define K1 0x9e3779b97f4a7c15ull
#define K2 0x5555aaaa5555aaaaull

struct value {
  __u64 a, b, c;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, struct value);
  __uint(max_entries, 4096);
} table SEC(".maps");

static __always_inline struct value make(__u64 a) {
  struct value v = {a, a * K1, a ^ K2};
  return v;
}

SEC("xdp")
int hash_stress(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end)
    return XDP_PASS;
  struct udphdr *l4 = (void *)(ip + 1);
  if ((void *)(l4 + 1) > data_end)
    return XDP_PASS;
  __u32 key = (bpf_ntohl(ip->saddr) ^ bpf_ntohs(l4->source) ^ bpf_ntohs(ip->id) * 7) & 0xfff;
  struct value v;
  switch (key & 3) {
  case 0: { // insert only: the value depends on the key alone
    v = make(key);
    long rc = bpf_map_update_elem(&table, &key, &v, BPF_NOEXIST);
    return rc == 0 || rc == -EEXIST ? XDP_PASS : XDP_ABORTED;
  }
  case 1: // replace with a value of this packet
    v = make((__u64)key << 32 | bpf_ntohs(ip->id));
    return bpf_map_update_elem(&table, &key, &v, BPF_ANY) ? XDP_ABORTED : XDP_TX;
  case 2: // insert, then delete (another packet of the key may delete first)
    v = make(key + 1);
    if (bpf_map_update_elem(&table, &key, &v, BPF_ANY))
      return XDP_ABORTED;
    bpf_map_delete_elem(&table, &key);
    return XDP_DROP;
  default: { // read whatever is there, replace it on the odd ids
    key ^= 2; // a key the replacing class writes... or deletes
    struct value *p = bpf_map_lookup_elem(&table, &key);
    if (p) {
      __u64 a = p->a, b = p->b, c = p->c;
      if (b != a * K1 || c != (a ^ K2))
        return XDP_ABORTED;
    }
    if (bpf_ntohs(ip->id) & 1) {
      v = make((__u64)key << 32 | 0xffff);
      if (bpf_map_update_elem(&table, &key, &v, BPF_ANY))
        return XDP_ABORTED;
    }
    return XDP_PASS;
  }
  }
}

char LICENSE[] SEC("license") = "GPL";

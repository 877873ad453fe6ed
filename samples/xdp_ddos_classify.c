// SPDX-License-Identifier: Apache-2.0
//
// A DDoS classifier: per-flow features kept in an LRU hash (by IPv4
// 5-tuple), then a model decides each packet's fate with ebpf-gpu's kfunc
// ebpf_gpu_classify (<ebpf-gpu/kfuncs.h>, docs/KFUNCS.md). Class 0 is
// benign (XDP_PASS); any other class is an attack (XDP_DROP). `classes`
// counts packets by class; `stats` counts 0 classified, 1 the kfunc's
// error (-EINVAL: no model loaded, or one for another number of features:
// passed), 2 not classified (not IPv4 TCP/UDP, or headers cut short:
// passed). The model comes at load: ebpf-gpu-loader run
// xdp_ddos_classify.o --map-file samples/xdp_ddos_classify.maps. The
// kernel cannot load it: it has neither the kfunc nor the map type.
//
// The features, all integers (the order a model file's feature indices
// name; docs/KFUNCS.md):
//   0 packets of the flow so far, this one included
//   1 bytes of the flow so far (frame lengths)
//   2 the flow's mean frame length (1 / 0)
//   3 TCP SYNs without ACK in the flow so far
//   4 destination port        5 source port
//   6 IP TTL                  7 IP protocol
//   8 this frame's length     9 this packet's TCP flags (0 for UDP)
// A flow's state is the packets before this one: a packet's verdict
// depends on those before it in its flow.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include <ebpf-gpu/kfuncs.h>

#define NFEATURES 10
#define MAX_CLASSES 16

struct flow_key {
  __u32 saddr, daddr;
  __u16 sport, dport;
  __u32 proto;
};

struct flow_state {
  __u32 packets, bytes, syns, pad;
};

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 65536);
  __type(key, struct flow_key);
  __type(value, struct flow_state);
} flows SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_EBPF_GPU_MODEL);
  __uint(max_entries, 1 << 20); /* bytes for the model */
} model SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, MAX_CLASSES);
  __type(key, __u32);
  __type(value, __u64);
} classes SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 3);
  __type(key, __u32);
  __type(value, __u64);
} stats SEC(".maps");

static __always_inline void count(void *map, __u32 key) {
  __u64 *v = bpf_map_lookup_elem(map, &key);
  if (v)
    __sync_fetch_and_add(v, 1);
}

SEC("xdp")
int xdp_ddos_classify(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
    goto unclassified;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end || ip->ihl < 5)
    goto unclassified;
  void *l4 = (void *)ip + ip->ihl * 4;
  struct flow_key key = {.saddr = ip->saddr, .daddr = ip->daddr, .proto = ip->protocol};
  __u32 flags = 0;
  if (ip->protocol == IPPROTO_TCP) {
    struct tcphdr *tcp = l4;
    if ((void *)(tcp + 1) > data_end)
      goto unclassified;
    key.sport = bpf_ntohs(tcp->source);
    key.dport = bpf_ntohs(tcp->dest);
    flags = ((__u8 *)tcp)[13];
  } else if (ip->protocol == IPPROTO_UDP) {
    struct udphdr *udp = l4;
    if ((void *)(udp + 1) > data_end)
      goto unclassified;
    key.sport = bpf_ntohs(udp->source);
    key.dport = bpf_ntohs(udp->dest);
  } else {
    goto unclassified;
  }
  __u32 len = data_end - data;
  __u32 syn = (flags & 0x12) == 0x02; /* SYN without ACK */
  struct flow_state *st = bpf_map_lookup_elem(&flows, &key);
  struct flow_state now = {1, len, syn, 0};
  if (st) {
    now.packets = st->packets + 1;
    now.bytes = st->bytes + len;
    now.syns = st->syns + syn;
  }
  bpf_map_update_elem(&flows, &key, &now, BPF_ANY);

  __s32 features[NFEATURES] = {
      now.packets, now.bytes, now.bytes / now.packets, now.syns, key.dport,
      key.sport,   ip->ttl,   ip->protocol,            len,      flags,
  };
  int c = ebpf_gpu_classify(features, sizeof(features), &model);
  if (c < 0) {
    count(&stats, 1);
    return XDP_PASS;
  }
  count(&classes, c);
  count(&stats, 0);
  return c == 0 ? XDP_PASS : XDP_DROP;
unclassified:
  count(&stats, 2);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
//
// Layer-4 load balancer: TCP and UDP packets to the service address
// (192.168.0.0/16 here, as the generated traffic) are spread over the
// backends by a hash of their 5-tuple, so every packet of a flow reaches
// the same backend: the backend's MAC becomes the destination and the
// packet is redirected through a devmap to the port it sits behind. A
// backend slot without a port (not filled by the operator) sends its
// packets to the host stack (redirect_map's fallback action). Other
// traffic passes.
//
// Backends: backend_macs[i] (6 bytes + 2 of padding) and tx_ports[i]
// (an ifindex), e.g. --map-set tx_ports:00000000:02000000.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define NUM_BACKENDS 8

struct backend_mac {
  __u8 addr[ETH_ALEN];
  __u8 pad[2];
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct backend_mac);
  __uint(max_entries, NUM_BACKENDS);
} backend_macs SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_DEVMAP);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, NUM_BACKENDS);
} tx_ports SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, NUM_BACKENDS);
} backend_packets SEC(".maps");

static __always_inline __u32 mix(__u32 h, __u32 v) {
  h ^= v;
  h *= 0x01000193; // FNV-1a prime, per 32-bit word
  return h ^ (h >> 15);
}

SEC("xdp")
int xdp_lb(struct xdp_md *ctx) {
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
  if ((bpf_ntohl(ip->daddr) >> 16) != 0xc0a8)
    return XDP_PASS;
  if (ip->protocol != IPPROTO_TCP && ip->protocol != IPPROTO_UDP)
    return XDP_PASS;
  // TCP and UDP both start with the two ports.
  struct udphdr *l4 = (void *)ip + ip->ihl * 4;
  if ((void *)(l4 + 1) > data_end)
    return XDP_DROP;
  __u32 h = 0x811c9dc5;
  h = mix(h, ip->saddr);
  h = mix(h, ip->daddr);
  h = mix(h, (__u32)l4->source << 16 | l4->dest);
  h = mix(h, ip->protocol);
  __u32 backend = h % NUM_BACKENDS;
  struct backend_mac *mac = bpf_map_lookup_elem(&backend_macs, &backend);
  if (!mac)
    return XDP_ABORTED;
  __builtin_memcpy(eth->h_dest, mac->addr, ETH_ALEN);
  __u64 *n = bpf_map_lookup_elem(&backend_packets, &backend);
  if (n)
    *n += 1;
  return bpf_redirect_map(&tx_ports, backend, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";

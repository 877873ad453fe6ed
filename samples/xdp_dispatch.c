// SPDX-License-Identifier: GPL-2.0
//
// Tail-call dispatcher: the entry program classifies a packet by its
// EtherType and IP protocol and jumps to the program that handles that
// class through a program array filled by the object itself; a class with
// no program (an empty slot) falls through to XDP_PASS. The handlers count
// what they see and decide: TCP to port 22 dropped, UDP passed, ICMP
// echo requests reflected (XDP_TX), IPv6 passed after a second tail call
// into the generic counter. Each handler starts with a fresh stack, as
// after a kernel tail call, and re-reads the packet.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#define ICMP_ECHO_REQUEST 8

struct icmp_header {
  __u8 type;
  __u8 code;
  __u16 checksum;
};

enum { SLOT_TCP, SLOT_UDP, SLOT_ICMP, SLOT_IPV6, SLOT_COUNT, SLOT_ARP, NUM_SLOTS };

int handle_tcp(struct xdp_md *ctx);
int handle_udp(struct xdp_md *ctx);
int handle_icmp(struct xdp_md *ctx);
int handle_ipv6(struct xdp_md *ctx);
int count_other(struct xdp_md *ctx);

struct {
  __uint(type, BPF_MAP_TYPE_PROG_ARRAY);
  __uint(max_entries, NUM_SLOTS);
  __uint(key_size, sizeof(__u32));
  __array(values, int(void *));
} handlers SEC(".maps") = {
    .values =
        {
            [SLOT_TCP] = (void *)&handle_tcp,
            [SLOT_UDP] = (void *)&handle_udp,
            [SLOT_ICMP] = (void *)&handle_icmp,
            [SLOT_IPV6] = (void *)&handle_ipv6,
            [SLOT_COUNT] = (void *)&count_other,
            // SLOT_ARP left empty: ARP falls through to XDP_PASS.
        },
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, NUM_SLOTS + 1);
} seen SEC(".maps"); // packets per handler; [NUM_SLOTS]: fell through

static __always_inline void count(__u32 slot) {
  __u64 *n = bpf_map_lookup_elem(&seen, &slot);
  if (n)
    __sync_fetch_and_add(n, 1);
}

static __always_inline struct iphdr *ipv4(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > data_end || eth->h_proto != bpf_htons(ETH_P_IP))
    return 0;
  return ip;
}

SEC("xdp")
int xdp_dispatch(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > data_end)
    return XDP_DROP;
  __u32 slot = SLOT_COUNT;
  if (eth->h_proto == bpf_htons(ETH_P_ARP)) {
    slot = SLOT_ARP;
  } else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
    slot = SLOT_IPV6;
  } else if (eth->h_proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *ip = (void *)(eth + 1);
    if ((void *)(ip + 1) > data_end)
      return XDP_DROP;
    slot = ip->protocol == IPPROTO_TCP    ? SLOT_TCP
           : ip->protocol == IPPROTO_UDP  ? SLOT_UDP
           : ip->protocol == IPPROTO_ICMP ? SLOT_ICMP
                                          : SLOT_COUNT;
  }
  bpf_tail_call(ctx, &handlers, slot);
  count(NUM_SLOTS); // the slot was empty
  return XDP_PASS;
}

SEC("xdp")
int handle_tcp(struct xdp_md *ctx) {
  count(SLOT_TCP);
  void *data_end = (void *)(long)ctx->data_end;
  struct iphdr *ip = ipv4(ctx);
  if (!ip)
    return XDP_ABORTED;
  struct tcphdr *tcp = (void *)ip + ip->ihl * 4;
  if ((void *)(tcp + 1) > data_end)
    return XDP_DROP;
  return tcp->dest == bpf_htons(22) ? XDP_DROP : XDP_PASS;
}

SEC("xdp")
int handle_udp(struct xdp_md *ctx) {
  count(SLOT_UDP);
  return XDP_PASS;
}

SEC("xdp")
int handle_icmp(struct xdp_md *ctx) {
  count(SLOT_ICMP);
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  struct iphdr *ip = ipv4(ctx);
  if (!ip)
    return XDP_ABORTED;
  struct icmp_header *icmp = (void *)ip + ip->ihl * 4;
  if ((void *)(icmp + 1) > data_end || icmp->type != ICMP_ECHO_REQUEST)
    return XDP_PASS;
  // Reflect: swap the MACs (the IP addresses stay: a test reflector).
  struct ethhdr *eth = data;
  __u8 tmp[ETH_ALEN];
  __builtin_memcpy(tmp, eth->h_dest, ETH_ALEN);
  __builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
  __builtin_memcpy(eth->h_source, tmp, ETH_ALEN);
  return XDP_TX;
}

SEC("xdp")
int handle_ipv6(struct xdp_md *ctx) {
  count(SLOT_IPV6);
  bpf_tail_call(ctx, &handlers, SLOT_COUNT);
  return XDP_ABORTED; // not reached: the slot is filled
}

SEC("xdp")
int count_other(struct xdp_md *ctx) {
  count(SLOT_COUNT);
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

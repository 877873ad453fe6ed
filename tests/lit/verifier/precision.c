// Pruning compares only "precise" scalars: those whose bounds decided a check
// or a branch on the paths already explored (the kernel's precision
// tracking). Programs with many independent checks of values that never
// reach an address verify in a few hundred instructions, as in the kernel,
// where comparing every scalar exhausted the 1M-instruction budget
// (tcp_score, features) or needed 285,321 (udp_checks). The kernel loads them.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --section tcp_score --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.o --section features --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.o --section udp_checks --emit=verifier-log | FileCheck %s
// CHECK: verified: {{[0-9]{1,3} }}instructions processed
// RUN: %if kernel-bpf %{ bpftool prog loadall %t.o /sys/fs/bpf/ebpf_gpu_lit_precision type xdp %}
// RUN: %if kernel-bpf %{ rm -rf /sys/fs/bpf/ebpf_gpu_lit_precision %}

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <linux/in.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct config {
  __u32 features;
  __u32 ttl_min;
  __u16 ports[4];
};
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct config);
  __uint(max_entries, 1);
} cfg SEC(".maps");

struct counters {
  __u64 packets, bytes, syn, fin, rst, low_ttl, frag, bad_port, ecn, opts, marked, score;
};
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct counters);
  __uint(max_entries, 1);
} stats SEC(".maps");

// Scores a TCP packet with independent per-field checks; the score is
// written into the packet (TOS) and a counter, never used as an address.
SEC("xdp") int tcp_score(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_TCP)
    return XDP_PASS;
  struct tcphdr *tcp = (void *)ip + ip->ihl * 4;
  if ((void *)(tcp + 1) > end)
    return XDP_PASS;
  __u32 k = 0;
  struct config *c = bpf_map_lookup_elem(&cfg, &k);
  struct counters *s = bpf_map_lookup_elem(&stats, &k);
  if (!c || !s)
    return XDP_PASS;
  __u32 score = 0;
  if (tcp->syn) score += 3;
  if (tcp->fin) score += 5;
  if (tcp->rst) score += 7;
  if (tcp->psh) score += 11;
  if (tcp->urg) score += 13;
  if (tcp->ece) score += 17;
  if (tcp->cwr) score += 19;
  if (ip->ttl < c->ttl_min) score += 23;
  if (ip->tos & 0x3) score += 29;
  if (ip->frag_off & bpf_htons(0x2000)) score += 31;
  if (ip->frag_off & bpf_htons(0x1fff)) score += 37;
  if (tcp->window == 0) score += 41;
  if (tcp->source == c->ports[0]) score += 43;
  if (tcp->dest == c->ports[1]) score += 47;
  if (tcp->dest == c->ports[2]) score += 53;
  if (tcp->dest == c->ports[3]) score += 59;
  if (c->features & 1) score += 61;
  if (c->features & 2) score += 67;
  if (c->features & 4) score += 71;
  if (c->features & 8) score += 73;
  if (ip->id == 0) score += 79;
  if (tcp->doff > 5) score += 83;
  __sync_fetch_and_add(&s->score, score);
  ip->tos = score;
  return XDP_PASS;
}

// Feature flags from a configuration map select independent steps; each
// step bumps its own counter and sets bits of a verdict mask.
SEC("xdp") int features(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end)
    return XDP_DROP;
  __u32 k = 0;
  struct config *c = bpf_map_lookup_elem(&cfg, &k);
  struct counters *s = bpf_map_lookup_elem(&stats, &k);
  if (!c || !s)
    return XDP_PASS;
  __u32 f = c->features;
  __u64 len = (long)end - (long)data;
  __u32 mask = 0;
  if (f & (1 << 0)) { s->packets++; mask |= 1; }
  if (f & (1 << 1)) { s->bytes += len; mask |= 2; }
  if (f & (1 << 2)) { if (eth->h_dest[0] & 1) { s->marked++; mask |= 4; } }
  if (f & (1 << 3)) { if (eth->h_proto == bpf_htons(ETH_P_IPV6)) { s->ecn++; mask |= 8; } }
  if (f & (1 << 4)) { if (eth->h_proto == bpf_htons(ETH_P_ARP)) { s->opts++; mask |= 16; } }
  if (f & (1 << 5)) { if (len > 1500) { s->frag++; mask |= 32; } }
  if (f & (1 << 6)) { if (len < 64) { s->bad_port++; mask |= 64; } }
  if (f & (1 << 7)) { s->syn += eth->h_source[5]; mask |= 128; }
  if (f & (1 << 8)) { s->fin ^= eth->h_source[4]; mask |= 256; }
  if (f & (1 << 9)) { s->rst += 2; mask |= 512; }
  if (f & (1 << 10)) { s->low_ttl += len >> 6; mask |= 1024; }
  if (f & (1 << 11)) { if (eth->h_dest[5] == 0xff) { s->marked += 2; mask |= 2048; } }
  if (f & (1 << 12)) { if (eth->h_source[0] & 2) { s->ecn += 3; mask |= 4096; } }
  if (f & (1 << 13)) { s->opts += 5; mask |= 8192; }
  if (f & (1 << 14)) { s->frag += len & 7; mask |= 16384; }
  if (f & (1 << 15)) { s->bad_port += 7; mask |= 32768; }
  s->score = mask;
  return XDP_PASS;
}

// Per-field sanity checks of a UDP header set bits of an error word that is
// only counted, while the program keeps parsing.
SEC("xdp") int udp_checks(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_UDP || ip->ihl != 5)
    return XDP_PASS;
  struct udphdr *udp = (void *)(ip + 1);
  if ((void *)(udp + 1) > end)
    return XDP_PASS;
  __u32 k = 0;
  struct counters *s = bpf_map_lookup_elem(&stats, &k);
  if (!s)
    return XDP_PASS;
  __u64 errs = 0;
  if (udp->source == 0) errs |= 1;
  if (udp->dest == 0) errs |= 2;
  if (bpf_ntohs(udp->len) < sizeof(*udp)) errs |= 4;
  if ((void *)udp + bpf_ntohs(udp->len) > end) errs |= 8;
  if (udp->check == 0) errs |= 16;
  if (ip->ttl <= 1) errs |= 32;
  if (ip->saddr == ip->daddr) errs |= 64;
  if ((ip->saddr & bpf_htonl(0xff000000)) == bpf_htonl(0x7f000000)) errs |= 128;
  if ((ip->daddr & bpf_htonl(0xf0000000)) == bpf_htonl(0xe0000000)) errs |= 256;
  if (ip->frag_off & bpf_htons(0x3fff)) errs |= 512;
  if (bpf_ntohs(ip->tot_len) != bpf_ntohs(udp->len) + sizeof(*ip)) errs |= 1024;
  if (udp->dest == bpf_htons(53) && bpf_ntohs(udp->len) < 20) errs |= 2048;
  if (udp->source == udp->dest) errs |= 4096;
  if (ip->tos & 3) errs |= 8192;
  __sync_fetch_and_or(&s->opts, errs);
  __u8 *payload = (void *)(udp + 1);
  if ((void *)(payload + 4) > end)
    return XDP_PASS;
  return payload[0] == 0xff ? XDP_DROP : XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

// The SYN cookie helpers (204 to 207): the kernel's secrets are its own,
// so cookie values differ; what the test compares with the kernel is what
// is deterministic: the MSS each cookie encodes (the kernel's tables and
// its option parser), -EINVAL for a bad th_len, a cookie made by gen
// checked (0) and one with its minute counter moved refused (-EACCES), for
// IPv4 and IPv6 headers on the stack, and every IPv4 TCP packet's own
// headers (the IP header in the packet) round-tripped. Results in a map
// (negative ones as the dump prints an s64, unsigned);
// host = kernel on maps, verdicts and packets; the GPU module through
// ptxas.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 60 --seed 5
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_ABORTED 0
// CHECK: XDP_DROP 0
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: res[0] = 18446744073709551594
// MAPS-NEXT: res[1] = 18446744073709551594
// MAPS-NEXT: res[2] = 18446744073709551594
// MAPS-NEXT: res[3] = 536
// MAPS-NEXT: res[4] = 1220
// MAPS-NEXT: res[5] = 1300
// MAPS-NEXT: res[6] = 1440
// MAPS-NEXT: res[7] = 1460
// MAPS-NEXT: res[8] = 8940
// MAPS-NEXT: res[9] = 1220
// MAPS-NEXT: res[10] = 1440
// MAPS-NEXT: res[11] = 536
// MAPS-NEXT: res[12] = 100
// MAPS-NEXT: res[13] = 18446744073709551603
// MAPS-NEXT: res[14] = 100
// MAPS-NEXT: res[15] = 18446744073709551603
// MAPS-NEXT: res[16] = 18446744073709551603
// MAPS-NEXT: roundtrips[0] = 24
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:cookies | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: cookies: 60 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 17);
  __type(key, __u32);
  __type(value, __s64);
} res SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} roundtrips SEC(".maps");

struct th60 {
  struct tcphdr th;
  __u8 opt[40];
};

static __always_inline void put(__u32 k, __s64 v) { bpf_map_update_elem(&res, &k, &v, BPF_ANY); }

// A SYN with an MSS option of `mss` (none where 0).
static __always_inline void syn(struct th60 *t, __u16 mss) {
  __builtin_memset(t, 0, sizeof(*t));
  t->th.source = bpf_htons(40000);
  t->th.dest = bpf_htons(443);
  t->th.seq = bpf_htonl(0x12345678);
  t->th.syn = 1;
  t->th.doff = mss ? 6 : 5;
  t->opt[0] = 2;
  t->opt[1] = 4;
  t->opt[2] = mss >> 8;
  t->opt[3] = mss & 0xff;
}

static __always_inline __s64 mss_of(__s64 r) { return r < 0 ? r : r >> 32; }

// The ACK a client sends back for the cookie in `r` (of the SYN in `t`),
// with `skew` added to its minute counter.
static __always_inline void ack(struct th60 *a, const struct th60 *t, __s64 r, __u32 skew) {
  __builtin_memcpy(a, t, sizeof(*a));
  a->th.syn = 0;
  a->th.ack = 1;
  a->th.seq = bpf_htonl(bpf_ntohl(t->th.seq) + 1);
  a->th.ack_seq = bpf_htonl((__u32)r + 1 + (skew << 24));
}

SEC("xdp") int cookies(struct xdp_md *ctx) {
  // Built at run time: an initialised struct would be copied from a
  // .rodata.* section, which the kernel's dump lists and the host's does not.
  __u32 saddr = bpf_htonl(0x0a000001);
  asm volatile("" : "+r"(saddr));
  struct iphdr ip4 = {.version = 4, .ihl = 5, .protocol = IPPROTO_TCP, .saddr = saddr,
                      .daddr = bpf_htonl(0x0a000002)};
  struct ipv6hdr ip6 = {.version = 6, .nexthdr = IPPROTO_TCP};
  ip6.saddr.in6_u.u6_addr8[0] = 0x20;
  ip6.saddr.in6_u.u6_addr8[15] = 1;
  ip6.daddr.in6_u.u6_addr8[0] = 0x20;
  ip6.daddr.in6_u.u6_addr8[15] = 2;
  struct th60 t, a;
  syn(&t, 1300);
  // th_len below a TCP header, not doff * 4, 0.
  put(0, bpf_tcp_raw_gen_syncookie_ipv4(&ip4, &t.th, 19));
  put(1, bpf_tcp_raw_gen_syncookie_ipv4(&ip4, &t.th, 20));
  put(2, bpf_tcp_raw_gen_syncookie_ipv6(&ip6, &t.th, 0));
  // The MSS chosen: no option (the defaults), then the tables' steps.
  syn(&t, 0);
  put(3, mss_of(bpf_tcp_raw_gen_syncookie_ipv4(&ip4, &t.th, 20)));
  put(4, mss_of(bpf_tcp_raw_gen_syncookie_ipv6(&ip6, &t.th, 20)));
  syn(&t, 1300);
  put(5, mss_of(bpf_tcp_raw_gen_syncookie_ipv4(&ip4, &t.th, 24)));
  syn(&t, 1459);
  put(6, mss_of(bpf_tcp_raw_gen_syncookie_ipv4(&ip4, &t.th, 24)));
  syn(&t, 9000);
  put(7, mss_of(bpf_tcp_raw_gen_syncookie_ipv4(&ip4, &t.th, 24)));
  put(8, mss_of(bpf_tcp_raw_gen_syncookie_ipv6(&ip6, &t.th, 24)));
  syn(&t, 1000);
  put(9, mss_of(bpf_tcp_raw_gen_syncookie_ipv6(&ip6, &t.th, 24)));
  // NOP, NOP, then the MSS: found; an EOL before it: the default.
  syn(&t, 0);
  t.th.doff = 7;
  __u64 nops = 0x0101a00504020101ull; // 1, 1, 2, 4, 0x05, 0xa0, 1, 1
  asm volatile("" : "+r"(nops));
  __builtin_memcpy(t.opt, &nops, 8);
  put(10, mss_of(bpf_tcp_raw_gen_syncookie_ipv4(&ip4, &t.th, 28)));
  nops &= ~0xffull; // an EOL first
  __builtin_memcpy(t.opt, &nops, 8);
  put(11, mss_of(bpf_tcp_raw_gen_syncookie_ipv4(&ip4, &t.th, 28)));
  // Round trips: the cookie checks; moved by five minutes it does not
  // (stored plus 100: a dump leaves out zeroes).
  syn(&t, 1460);
  __s64 r = bpf_tcp_raw_gen_syncookie_ipv4(&ip4, &t.th, 24);
  ack(&a, &t, r, 0);
  put(12, bpf_tcp_raw_check_syncookie_ipv4(&ip4, &a.th) + 100);
  ack(&a, &t, r, 5);
  put(13, bpf_tcp_raw_check_syncookie_ipv4(&ip4, &a.th));
  r = bpf_tcp_raw_gen_syncookie_ipv6(&ip6, &t.th, 24);
  ack(&a, &t, r, 0);
  put(14, bpf_tcp_raw_check_syncookie_ipv6(&ip6, &a.th) + 100);
  ack(&a, &t, r, 5);
  put(15, bpf_tcp_raw_check_syncookie_ipv6(&ip6, &a.th));
  // Another client port: the cookie is not its.
  ack(&a, &t, r, 0);
  a.th.source = bpf_htons(40001);
  put(16, bpf_tcp_raw_check_syncookie_ipv6(&ip6, &a.th));

  // Every IPv4 TCP packet: its IP header where it is, its TCP header's
  // first 20 bytes as a SYN: made, checked, counted.
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  struct ethhdr *eth = data;
  struct iphdr *iph = data + sizeof(*eth);
  struct tcphdr *th = (void *)(iph + 1);
  if ((void *)(th + 1) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
      iph->protocol != IPPROTO_TCP)
    return XDP_PASS;
  struct th60 p = {};
  __builtin_memcpy(&p.th, th, sizeof(*th));
  p.th.doff = 5;
  r = bpf_tcp_raw_gen_syncookie_ipv4(iph, &p.th, 20);
  if (r < 0 || r >> 32 != 536)
    return XDP_DROP;
  ack(&a, &p, r, 0);
  if (bpf_tcp_raw_check_syncookie_ipv4(iph, &a.th))
    return XDP_DROP;
  ack(&a, &p, r, 3);
  if (bpf_tcp_raw_check_syncookie_ipv4(iph, &a.th) != -13)
    return XDP_DROP;
  __u32 k = 0;
  __u64 *n = bpf_map_lookup_elem(&roundtrips, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
  return XDP_TX;
}

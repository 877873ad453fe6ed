// bpf_loop (helper 181), as the kernel's: the callback runs with (i, ctx)
// for i = 0.. until it returns 1, the result is the number of turns run
// (the one that stopped included); more than 1 << 23 turns is -E2BIG,
// flags other than 0 -EINVAL (-22), both before any turn. -E2BIG is
// 0xfffffff9 where flags is the constant 0: the kernel inlines such calls,
// and its inlined form sets r0 with a 32-bit move (-7 otherwise). The program walks
// each TCP SYN's options in a callback (its context on the stack holds
// packet pointers), hashes the payload up to its first zero byte (FNV-1a,
// an early stop), runs a loop in a callback and one in a subprogram, and
// the result's corner cases; results go to the map
// plus 100 (a dump leaves out zeroes). Host and kernel agree on every
// packet's verdict and the maps; the verifier's refusals:
// tests/lit/verifier/bpf-loop.c.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 4000 --seed 9 --tcp-options
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK-DAG: XDP_DROP
// CHECK-DAG: XDP_PASS
// CHECK-DAG: XDP_TX
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: res[0] = 100
// MAPS-NEXT: res[1] = 4294967389
// MAPS-NEXT: res[2] = 78
// MAPS-NEXT: res[3] = 101
// MAPS-NEXT: res[4] = 601
// MAPS-NEXT: res[5] = 124850
// MAPS-NEXT: res[6] = 106
// MAPS-NEXT: res[7] = 93
// MAPS-NEXT: res[8] = 104
// MAPS-NEXT: res[9] = 130
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:loop_opts | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: loop_opts: 4000 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 16);
  __type(key, __u32);
  __type(value, __s64);
} res SEC(".maps");

// Totals over all packets (atomic adds: GPU threads run at once).
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 8);
  __type(key, __u32);
  __type(value, __u64);
} totals SEC(".maps");

volatile __u64 flags_one = 1, flags_zero = 0;
volatile __u32 stop_at = 500;

struct opt_walk {
  void *opts;     // the first option byte
  void *data_end;
  __u32 off;      // of the next option
  __u32 len;      // option bytes (doff * 4 - 20)
  __u32 mss;
  __u32 wscale;
  __u32 seen;     // options walked
  __u32 bad;      // a malformed option stopped the walk
};

static long walk_opt(__u32 i, void *arg) {
  struct opt_walk *w = arg;
  if (w->off >= w->len)
    return 1;
  __u8 *p = w->opts + (w->off & 63);
  if ((void *)(p + 1) > w->data_end)
    return 1;
  if (p[0] == 0) // end of options
    return 1;
  w->seen++;
  if (p[0] == 1) { // NOP
    w->off++;
    return 0;
  }
  if ((void *)(p + 2) > w->data_end || p[1] < 2) {
    w->bad = 1;
    return 1;
  }
  if (p[0] == 2 && p[1] == 4 && (void *)(p + 4) <= w->data_end)
    w->mss = (__u32)p[2] << 8 | p[3];
  if (p[0] == 3 && p[1] == 3 && (void *)(p + 3) <= w->data_end)
    w->wscale = p[2];
  w->off += p[1];
  return 0;
}

struct hash_ctx {
  __u8 *from;
  void *data_end;
  __u32 h;
};

// FNV-1a over the payload's bytes up to its first zero (an early stop).
static long hash_byte(__u32 i, void *arg) {
  struct hash_ctx *c = arg;
  __u8 *p = c->from + (i & 63);
  if ((void *)(p + 1) > c->data_end || *p == 0)
    return 1;
  c->h = (c->h ^ *p) * 16777619u;
  return 0;
}

struct count_ctx {
  __u32 stop;
  __u32 sum;
};

static long count_to(__u32 i, void *arg) {
  struct count_ctx *c = arg;
  if (i >= c->stop)
    return 1;
  c->sum += i;
  return 0;
}

static long nothing(__u32 i, void *arg) { return arg ? 1 : 0; }

// Nested: a callback that runs a loop of its own.
struct nest_ctx {
  __u32 outer;
  __u32 total;
};

static long inner(__u32 i, void *arg) {
  struct nest_ctx *n = arg;
  n->total += i * n->outer;
  return 0;
}

static long outer(__u32 i, void *arg) {
  struct nest_ctx *n = arg;
  n->outer = i + 1;
  return bpf_loop(3, inner, n, 0) == 3 ? 0 : 1;
}

// A loop in a function of its own, its count from the packet.
static __attribute__((noinline)) __u32 sum_below(__u32 n) {
  struct count_ctx c = {.stop = n};
  bpf_loop(64, count_to, &c, 0);
  return c.sum;
}

static __always_inline void put(__u32 k, long r) {
  __s64 v = r + 100;
  bpf_map_update_elem(&res, &k, &v, BPF_ANY);
}

static __always_inline void add(__u32 k, __u64 v) {
  __u64 *t = bpf_map_lookup_elem(&totals, &k);
  if (t)
    __sync_fetch_and_add(t, v);
}

SEC("xdp") int loop_opts(struct xdp_md *ctx) {
  // The result's corner cases, the same for every packet.
  put(0, bpf_loop(0, nothing, NULL, 0));
  put(1, bpf_loop((1u << 23) + 1, nothing, NULL, 0));
  put(2, bpf_loop(4, nothing, NULL, flags_one));
  __u32 any = 0;
  put(3, bpf_loop(1u << 23, nothing, &any, 0)); // stops at once: 1 turn
  struct count_ctx cc = {.stop = stop_at};
  put(4, bpf_loop(1000, count_to, &cc, 0));
  put(5, cc.sum); // 0 + 1 + ... + 499
  put(6, bpf_loop(6, nothing, NULL, 0) + bpf_loop(0, count_to, &cc, 0));
  put(7, bpf_loop((1u << 23) + 1, nothing, NULL, flags_zero)); // not inlined: -7
  struct nest_ctx nc = {};
  put(8, bpf_loop(4, outer, &nc, 0));
  put(9, nc.total); // (1 + 2 + 3 + 4) * (0 + 1 + 2)

  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  add(7, sum_below((__u32)(end - data) & 15));
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end)
    return XDP_PASS;
  if (eth->h_proto != bpf_htons(ETH_P_IP))
    return XDP_PASS;
  struct iphdr *ip = (void *)(eth + 1);
  if ((void *)(ip + 1) > end || ip->ihl != 5 || ip->protocol != IPPROTO_TCP)
    return XDP_PASS;
  struct tcphdr *tcp = (void *)(ip + 1);
  if ((void *)(tcp + 1) > end)
    return XDP_PASS;
  struct opt_walk w = {.opts = tcp + 1, .data_end = end};
  w.len = tcp->doff * 4 < 20 ? 0 : tcp->doff * 4 - 20;
  long turns = bpf_loop(40, walk_opt, &w, 0);
  add(0, turns);
  add(1, w.seen);
  add(2, w.mss);
  add(3, w.wscale);
  add(4, w.bad);
  struct hash_ctx hc = {.from = (__u8 *)(tcp + 1) + (w.len & 63), .data_end = end,
                        .h = 2166136261u};
  long hashed = bpf_loop(64, hash_byte, &hc, 0);
  add(5, hashed);
  add(6, hc.h);
  if (w.bad)
    return XDP_DROP;
  if (w.mss && w.mss < 1400)
    return XDP_TX;
  return (hc.h & 1) ? XDP_PASS : XDP_DROP;
}

// The open-coded iterators of bpf_for() and bpf_repeat() (the kfuncs
// bpf_iter_num_new, _next and _destroy), as the kernel's: the object reader
// resolves the externs by name, the verifier follows each loop to its end
// (the iterator's next is a loop head, imprecise scalars widened there),
// and the lifter lowers the three inline on the iterator's 8 bytes
// (struct bpf_iter_num_kern { int cur, end; }). The program reads each TCP
// SYN's option bytes with bpf_for, hashes the payload up to its first zero byte,
// repeats with bpf_repeat, nests two loops, and checks the corner cases of
// bpf_iter_num_new's result (start > end: -EINVAL, more than 1 << 23
// elements: -E2BIG, both with an empty iterator; the int result is
// zero-extended in r0, as the kernel's); results go to the maps. Host and
// kernel agree on every packet's verdict and the maps; the verifier's
// refusals: tests/lit/verifier/bpf-for.c.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 4000 --seed 9 --tcp-options
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK-DAG: XDP_DROP
// CHECK-DAG: XDP_PASS
// CHECK-DAG: XDP_TX
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: res[0] = 4294967274
// MAPS-NEXT: res[1] = 100
// MAPS-NEXT: res[2] = 4294967289
// MAPS-NEXT: res[3] = 1100
// MAPS-NEXT: res[4] = 100
// MAPS-NEXT: res[5] = 280
// MAPS-NEXT: res[6] = 110
// MAPS-NEXT: res[7] = 136
// MAPS-NEXT: res[8] = 97
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:for_opts | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: for_opts: 4000 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/tcp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

// As libbpf 1.2+'s bpf_helpers.h (this machine's libbpf 1.1 has neither):
// the iterator is 8 bytes, 8-aligned, destroyed when it goes out of scope.
struct bpf_iter_num {
  __u64 __opaque[1];
} __attribute__((aligned(8)));

extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

#define bpf_for(i, start, end)                                                                   \
  for (struct bpf_iter_num ___it __attribute__((aligned(8), cleanup(bpf_iter_num_destroy))),    \
       *___p __attribute__((unused)) =                                                           \
           (bpf_iter_num_new(&___it, (start), (end)), (void)bpf_iter_num_destroy, (void *)0);    \
       ({                                                                                        \
         int *___t = bpf_iter_num_next(&___it);                                                  \
         (___t && ((i) = *___t, (i) >= (start) && (i) < (end)));                                 \
       });)

#define bpf_repeat(N)                                                                            \
  for (struct bpf_iter_num ___it __attribute__((aligned(8), cleanup(bpf_iter_num_destroy))),    \
       *___p __attribute__((unused)) =                                                           \
           (bpf_iter_num_new(&___it, 0, (N)), (void)bpf_iter_num_destroy, (void *)0);            \
       bpf_iter_num_next(&___it);)

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

volatile int lo = 5, hi = 20, huge = (1 << 23) + 1;

static __always_inline void put(__u32 k, __s64 v) {
  bpf_map_update_elem(&res, &k, &v, BPF_ANY);
}

static __always_inline void add(__u32 k, __u64 v) {
  __u64 *t = bpf_map_lookup_elem(&totals, &k);
  if (t)
    __sync_fetch_and_add(t, v);
}

// The raw kfuncs: the result of _new as the program sees it in r0 (an
// unsigned long: no sign extension by clang), and the elements _next gives.
static __attribute__((noinline)) __u64 iter_new_result(int start, int end) {
  struct bpf_iter_num it;
  unsigned long (*new_raw)(struct bpf_iter_num *, int, int) = (void *)bpf_iter_num_new;
  __u64 r = new_raw(&it, start, end);
  int *p = bpf_iter_num_next(&it); // empty after an error
  if (p)
    r += 1000;
  bpf_iter_num_destroy(&it);
  return r;
}

SEC("xdp") int for_opts(struct xdp_md *ctx) {
  // The corner cases, the same for every packet.
  put(0, iter_new_result(hi, lo));     // -EINVAL, zero-extended
  put(1, iter_new_result(lo, lo) + 100); // empty: 0
  put(2, iter_new_result(0, huge));    // -E2BIG
  put(3, iter_new_result(-huge + 2, 0) + 100); // 1 << 23 elements: fine
  int i, n = 0, sum = 0;
  bpf_for(i, hi, lo) n++;             // start > end: no turn
  put(4, n + 100);
  bpf_for(i, lo, hi) sum += i;         // 5 + ... + 19 = 180
  put(5, sum + 100);
  n = 0;
  bpf_repeat(10) n++;
  put(6, n + 100);
  // Nested: two iterators at once.
  int j, k, pairs = 0;
  bpf_for(j, 0, 4) {
    bpf_for(k, 0, j) pairs += j * k; // 1*0 + 2*(0+1) + 3*(0+1+2) = 11
  }
  put(7, pairs + 125);
  n = 0;
  bpf_for(i, -3, 0) n += i;           // -3 + -2 + -1
  put(8, n + 103);

  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
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
  __u8 *opts = (__u8 *)(tcp + 1);
  __u32 len = tcp->doff * 4 < 20 ? 0 : tcp->doff * 4 - 20;
  __u32 seen = 0, nops = 0, mss = 0, bytes = 0, bad = 0;
  // The option bytes, one a turn, indexed by the loop variable: NOPs, a
  // byte sum, the first MSS-looking option (kind 2, length 4).
  bpf_for(i, 0, 40) {
    if (i >= len)
      break;
    __u8 *p = opts + i;
    if ((void *)(p + 1) > end) {
      bad = 1;
      break;
    }
    seen++;
    bytes += *p;
    if (*p == 1)
      nops++;
    if (!mss && *p == 2 && (void *)(p + 4) <= end && p[1] == 4)
      mss = (__u32)p[2] << 8 | p[3];
  }
  add(0, nops);
  add(1, seen);
  add(2, mss);
  add(3, bytes);
  add(4, bad);
  // FNV-1a over the payload up to its first zero byte, indexed by the
  // loop variable.
  __u8 *from = opts + (len & 63);
  __u32 h = 2166136261u, hashed = 0;
  bpf_for(i, 0, 64) {
    __u8 *p = from + i;
    if ((void *)(p + 1) > end || *p == 0)
      break;
    h = (h ^ *p) * 16777619u;
    hashed++;
  }
  add(5, hashed);
  add(6, h);
  if (bad)
    return XDP_DROP;
  if (mss && mss < 1400)
    return XDP_TX;
  return (h & 1) ? XDP_PASS : XDP_DROP;
}

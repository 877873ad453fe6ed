// bpf_for_each_map_elem (helper 164), as the kernel's: the callback runs
// with (map, key, value, ctx) for each element of an array (every index,
// in order), a hash or LRU hash (every key) and their per-CPU kinds (this
// CPU's copy of each value) until it returns 1; the result is the number of
// elements visited, the one that stopped included; flags other than 0 give
// -EINVAL (-22) before any element. Hashed maps are walked in an order of
// their own (the kernel's buckets are not ours): what the program keeps of
// a hash walk does not depend on the order (sums, counts, a stop at the
// first element). Each packet counts itself into the maps, walks each,
// changes values through the callback's value pointer, and stops walks
// early; results go to `res`. Host and
// kernel agree on every packet's verdict and the maps; the verifier's
// refusals: tests/lit/verifier/for-each-map-elem.c. Program each_churn
// inserts and deletes keys of a hash and walks it, checking each element
// whole (its value derived from its key): on the GPU, thousands of threads
// do so at once (tests/gpu-device/stress/for-each-churn.test). Program
// each_inner walks an inner map of a map of maps (known only at run time).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 3000 --seed 5
// RUN: ebpf-gpu-loader run %t.o --section each_elem --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_PASS 3000
// CHECK-NOT: XDP_DROP
// CHECK-NOT: XDP_ABORTED
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: pcarr[0] = 3000
// MAPS-NEXT: pcarr[1] = 6000
// MAPS-NEXT: pcarr[2] = 9000
// MAPS-NEXT: pcarr[3] = 12000
// MAPS: res[0] = 24000
// MAPS-NEXT: res[1] = 12000
// MAPS-NEXT: res[2] = 38779
// MAPS-NEXT: res[3] = 38779
// MAPS-NEXT: res[4] = 12000
// MAPS-NEXT: res[5] = 3000
// MAPS-NEXT: res[6] = 97664042
// MAPS-NEXT: res[7] = 4501500
// MAPS-NEXT: res[8] = 232713
// MAPS-NEXT: res[9] = 45015000
// MAPS-NEXT: res[10] = 1579265
// RUN: ebpf-gpu-loader run %t.o --section each_churn --pcap %t.pcap --backend host \
// RUN:   --dump-maps %t.churn.maps | FileCheck %s --check-prefix=CHURN
// CHURN: XDP_PASS 3000
// CHURN-NOT: XDP_DROP
// RUN: FileCheck %s --check-prefix=CHURN-MAPS < %t.churn.maps
// CHURN-MAPS: churn{{[{]}}
// RUN: ebpf-gpu-loader run %t.o --section each_inner --pcap %t.pcap --backend host \
// RUN:   --dump-maps %t.inner.maps | FileCheck %s
// RUN: FileCheck %s --check-prefix=INNER < %t.inner.maps
// INNER: inner_res[0] = 14983
// INNER-NEXT: inner_res[1] = 22456552
// RUN: ebpf-gpu-cc %t.o --section each_inner --emit=ptx --target=sm_90 -o %t.inner.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.inner.ptx -o %t.inner.cubin %}
// RUN: ebpf-gpu-cc %t.o --section each_elem --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o --section each_elem -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --section each_churn -o %t.churn.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --batch 1 --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:each_elem %t.o:each_churn %t.o:each_inner \
// RUN:   | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: each_elem: 3000 packets, host and kernel agree
// KERNEL: each_churn: 3000 packets, host and kernel agree
// KERNEL: each_inner: 3000 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 8);
  __type(key, __u32);
  __type(value, __u64);
} arr SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} pcarr SEC(".maps");

struct flow {
  __u64 pkts;
  __u64 bytes;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 64);
  __type(key, __u32);
  __type(value, struct flow);
} flows SEC(".maps");

// Never full: LRU eviction is no part of the comparison.
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 64);
  __type(key, __u32);
  __type(value, struct flow);
} lru SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, 16);
  __type(key, __u32);
  __type(value, __u64);
} pchash SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 16);
  __type(key, __u32);
  __type(value, __s64);
} res SEC(".maps");

// Not constants to the verifier: a walk's counters are unknown scalars
// (a known one would be a new state at every element, as in the kernel).
volatile __u64 zero = 0, flags_one = 1;
volatile __u32 stop_key = 3;

struct walk {
  __u64 n;    // elements seen
  __u64 sum;  // of their values (packets for flows)
  __u64 keys; // of their keys
  __u32 stop; // the key to stop at (arrays), 0 for none
  __u32 bad;  // the map's own lookup disagreed
};

static long array_cb(void *map, __u32 *key, __u64 *val, struct walk *w) {
  w->n++;
  w->sum += *val;
  w->keys += *key;
  *val += 1; // the callback's value pointer writes the map
  return w->stop && *key == w->stop;
}

static long flow_cb(void *map, __u32 *key, struct flow *f, struct walk *w) {
  w->n++;
  w->sum += f->pkts;
  w->keys += *key;
  f->bytes += 1;
  // The map the callback gets is the map walked, its key that value's.
  if (bpf_map_lookup_elem(map, key) != f)
    w->bad = 1;
  return 0;
}

static long first_cb(void *map, __u32 *key, struct flow *f, void *ctx) {
  return 1;
}

static long percpu_cb(void *map, __u32 *key, __u64 *val, struct walk *w) {
  w->n++;
  *val += *key + 1;
  w->sum += *val;
  return 0;
}

static void add_res(__u32 k, __s64 v) {
  __s64 *r = bpf_map_lookup_elem(&res, &k);
  if (r)
    *r += v;
}

static void count_flow(void *map, __u32 key, __u64 len) {
  struct flow *f = bpf_map_lookup_elem(map, &key);
  if (f) {
    f->pkts++;
    return;
  }
  struct flow nf = {1, len};
  bpf_map_update_elem(map, &key, &nf, BPF_ANY);
}

SEC("xdp") int each_elem(struct xdp_md *ctx) {
  __u64 len = ctx->data_end - ctx->data;
  __u32 key = len % 13, slot = key % 8, pk = key % 4;
  __u64 *a = bpf_map_lookup_elem(&arr, &slot);
  if (!a)
    return XDP_ABORTED;
  *a += len;
  count_flow(&flows, key, len);
  count_flow(&lru, key * 7, len);
  __u64 one = 1;
  if (bpf_map_update_elem(&pchash, &pk, &one, BPF_NOEXIST) != 0) {
    __u64 *p = bpf_map_lookup_elem(&pchash, &pk);
    if (p)
      *p += 1;
  }

  // Arrays: every index in order; a stop at key 3 visits 4.
  struct walk w = {zero, zero, zero, 0, 0};
  long n = bpf_for_each_map_elem(&arr, array_cb, &w, 0);
  if (n != 8 || w.n != 8 || w.keys != 28)
    return XDP_DROP;
  add_res(0, n);
  struct walk s = {zero, zero, zero, stop_key, 0};
  n = bpf_for_each_map_elem(&arr, array_cb, &s, 0);
  if (n != 4 || s.n != 4 || s.keys != 6)
    return XDP_DROP;
  add_res(1, n);
  add_res(6, w.sum & 0xffff);

  // Hashed maps: every key once; a first-element stop visits one.
  struct walk h = {zero, zero, zero, 0, 0};
  n = bpf_for_each_map_elem(&flows, flow_cb, &h, 0);
  if (n != h.n || h.bad)
    return XDP_DROP;
  add_res(3, n);
  add_res(7, h.sum);
  add_res(8, h.keys);
  struct walk l = {zero, zero, zero, 0, 0};
  n = bpf_for_each_map_elem(&lru, flow_cb, &l, 0);
  if (n != l.n || l.bad || l.sum != h.sum || l.keys != h.keys * 7)
    return XDP_DROP;
  add_res(2, n);
  n = bpf_for_each_map_elem(&flows, first_cb, NULL, 0);
  if (n != 1)
    return XDP_DROP;

  // Per-CPU maps: this CPU's copy of each value.
  struct walk p = {zero, zero, zero, 0, 0};
  n = bpf_for_each_map_elem(&pcarr, percpu_cb, &p, 0);
  if (n != 4 || p.n != 4)
    return XDP_DROP;
  add_res(4, n);
  add_res(9, p.sum & 0xffff);
  struct walk q = {zero, zero, zero, 0, 0};
  n = bpf_for_each_map_elem(&pchash, percpu_cb, &q, 0);
  add_res(10, n * 100 + (q.sum & 0xff));

  // Flags other than 0: -EINVAL, no element visited.
  struct walk e = {zero, zero, zero, 0, 0};
  n = bpf_for_each_map_elem(&arr, array_cb, &e, flags_one);
  if (n != -22 || e.n != 0)
    return XDP_DROP;
  add_res(5, 1);
  return XDP_PASS;
}

// each_churn: a key from the packet's addresses and ports is inserted
// (odd) or deleted (even); then a walk checks that every element it meets
// is whole: its value names its key and a check derived from it.
struct churn_val {
  __u32 key;
  __u32 check;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 256);
  __type(key, __u32);
  __type(value, struct churn_val);
} churn SEC(".maps");

struct churn_walk {
  __u64 n;
  __u64 torn;
};

static long check_cb(void *map, __u32 *key, struct churn_val *v, struct churn_walk *w) {
  w->n++;
  if (v->key != *key || v->check != *key * 2654435761u)
    w->torn++;
  return 0;
}

SEC("xdp") int each_churn(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 38 > end)
    return XDP_PASS;
  // Source and destination address, the ports (Ethernet + IPv4 offsets).
  __u32 mix = *(__u32 *)(data + 26) ^ *(__u32 *)(data + 30) ^ *(__u32 *)(data + 34);
  mix ^= mix >> 16;
  __u32 key = (mix >> 1) % 512;
  if (mix & 1) {
    struct churn_val v = {key, key * 2654435761u};
    bpf_map_update_elem(&churn, &key, &v, BPF_ANY);
  } else {
    bpf_map_delete_elem(&churn, &key);
  }
  struct churn_walk w = {zero, zero};
  long n = bpf_for_each_map_elem(&churn, check_cb, &w, 0);
  // Each key at most once: never more than the keys there can be.
  if (n < 0 || n > 512 || n != w.n)
    return XDP_ABORTED;
  return w.torn ? XDP_DROP : XDP_PASS;
}

// each_inner: a walk of an inner map, found through a map of maps (a map
// the call site does not know).
struct inner_hash {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16);
  __type(key, __u32);
  __type(value, __u64);
} inner_flows SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
  __uint(max_entries, 1);
  __type(key, __u32);
  __array(values, struct inner_hash);
} outer SEC(".maps") = {
    .values = {[0] = &inner_flows},
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u64);
} inner_res SEC(".maps");

static long inner_cb(void *map, __u32 *key, __u64 *val, struct walk *w) {
  w->n++;
  w->sum += *val;
  *val += 1;
  return 0;
}

SEC("xdp") int each_inner(struct xdp_md *ctx) {
  __u32 k0 = 0, k1 = 1, key = (ctx->data_end - ctx->data) % 5;
  void *t = bpf_map_lookup_elem(&outer, &k0);
  if (!t)
    return XDP_ABORTED;
  __u64 one = 1;
  bpf_map_update_elem(t, &key, &one, BPF_NOEXIST);
  struct walk w = {zero, zero, zero, 0, 0};
  long n = bpf_for_each_map_elem(t, inner_cb, &w, 0);
  if (n != w.n || n < 1 || n > 5)
    return XDP_DROP;
  __u64 *a = bpf_map_lookup_elem(&inner_res, &k0), *b = bpf_map_lookup_elem(&inner_res, &k1);
  if (!a || !b)
    return XDP_ABORTED;
  *a += n;
  *b += w.sum;
  return XDP_PASS;
}

// bpf_map_update_elem from a program on maps whose values hold a
// struct bpf_spin_lock, with and without BPF_F_LOCK, as the kernel's
// (array_map_update_elem, htab_map_update_elem): the lock word of the
// value written is not the writer's (the program's copy holds ff bytes
// there: the map keeps its own, a new hash element starts unlocked);
// BPF_F_LOCK writes a key that is there in place under the value's lock;
// the answers of every flag case are the kernel's (-EEXIST, -ENOENT,
// -EINVAL for BPF_F_LOCK on a map without a lock, on an LRU hash, and for
// unknown flags). Each packet then takes both locks (a lock left held
// would hang the run) and reads the value's two copies of its length
// under it: a write not done under the lock could be seen half done
// (`torn`; on the GPU under 65,536 threads a launch:
// tests/gpu-device/stress/spin-lock-update.test). Host and kernel agree on
// every verdict and map.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 2000 --seed 4
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_PASS 2000
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// The answers: 0, -EEXIST, -ENOENT, 0, -EEXIST, -EINVAL, -EINVAL, 0, -EINVAL.
// MAPS: answers[0] = 0000000000000000effffffffffffffffeffffffffffffff0000000000000000efffffffffffffffeaffffffffffffffeaffffffffffffff0000000000000000eaffffffffffffff
// The lock words (bytes 8-11) read 0, never the ff bytes the program's
// copies held; each value was taken under its lock once since its update
// (under_lock 1), and no read under a lock saw the two lengths differ
// (torn stays 0: a dump leaves zero values out).
// MAPS: flows{00000000} = 3c0000000000000000000000010000003c00000000000000
// MAPS: flows{04000000} = 3c0000000000000000000000010000003c00000000000000
// MAPS: slots[0] = 3c0000000000000000000000010000003c00000000000000
// MAPS-NOT: torn
// RUN: ebpf-gpu-cc %t.o -o %t.gpu.o
// The shapes the map helpers get carry the lock's offset + 1 (last field:
// 8 + 1 in flows and slots, 0 in plain), so a map without a lock compiles no
// lock-word code (bench/NOTES.md round 17: one such store cost xdp_l4lb 40%).
// RUN: ebpf-gpu-cc %t.o --emit=llvm -o %t.ll
// RUN: FileCheck %s --check-prefix=SHAPE < %t.ll
// SHAPE-DAG: @ebpfgpu_shape_flows = {{.*}}[7 x i32] [i32 1, i32 4, i32 24, i32 16, i32 0, i32 0, i32 9]
// SHAPE-DAG: @ebpfgpu_shape_slots = {{.*}}[7 x i32] [i32 2, i32 4, i32 24, i32 4, i32 0, i32 0, i32 9]
// SHAPE-DAG: @ebpfgpu_shape_plain = {{.*}}[7 x i32] [i32 2, i32 4, i32 8, i32 1, i32 0, i32 0, i32 0]
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:locked_update | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: locked_update: 2000 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct val {
  __u64 len;
  struct bpf_spin_lock lock;
  __u32 under_lock; // packets that took the lock since the last update
  __u64 len_again;
};

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16);
  __type(key, __u32);
  __type(value, struct val);
} flows SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, struct val);
} slots SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} plain SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 16);
  __type(key, __u32);
  __type(value, __u64);
} recent SEC(".maps");

struct answers {
  __s64 rc[9];
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct answers);
} answers SEC(".maps");

// Reads under the lock that saw the value's two lengths differ.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} torn SEC(".maps");

static __always_inline int check(struct val *v, __u64 *t) {
  bpf_spin_lock(&v->lock);
  __u64 a = v->len, b = v->len_again;
  v->under_lock++;
  bpf_spin_unlock(&v->lock);
  if (a != b)
    __sync_fetch_and_add(t, 1);
  return 0;
}

SEC("xdp") int locked_update(struct xdp_md *ctx) {
  __u64 len = ctx->data_end - ctx->data;
  __u32 k = len % 4, zero = 0, absent = 100 + k, other = 4 + k;
  struct answers *ans = bpf_map_lookup_elem(&answers, &zero);
  __u64 *t = bpf_map_lookup_elem(&torn, &zero);
  if (!ans || !t)
    return XDP_ABORTED;
  struct val v;
  __builtin_memset(&v, 0xff, sizeof(v)); // the lock word too: not the writer's
  v.len = len;
  v.len_again = len;
  v.under_lock = 0;
  __u64 one = len;
  // In place under the lock where the key is there, else a new element.
  ans->rc[0] = bpf_map_update_elem(&flows, &k, &v, BPF_F_LOCK);
  ans->rc[1] = bpf_map_update_elem(&flows, &k, &v, BPF_F_LOCK | BPF_NOEXIST);
  ans->rc[2] = bpf_map_update_elem(&flows, &absent, &v, BPF_F_LOCK | BPF_EXIST);
  ans->rc[3] = bpf_map_update_elem(&slots, &k, &v, BPF_F_LOCK);
  ans->rc[4] = bpf_map_update_elem(&slots, &k, &v, BPF_F_LOCK | BPF_NOEXIST);
  ans->rc[5] = bpf_map_update_elem(&plain, &zero, &one, BPF_F_LOCK);
  ans->rc[6] = bpf_map_update_elem(&flows, &k, &v, 8);
#ifndef IN_PLACE_ONLY
  // Without BPF_F_LOCK: a hash's key replaced by a new, unlocked element.
  ans->rc[7] = bpf_map_update_elem(&flows, &other, &v, BPF_ANY);
#else
  // (The GPU stress's build: 65,536 threads a launch replacing four keys
  // would run the pool of spare elements dry; in place instead.)
  ans->rc[7] = bpf_map_update_elem(&flows, &other, &v, BPF_F_LOCK);
#endif
  ans->rc[8] = bpf_map_update_elem(&recent, &k, &one, BPF_F_LOCK);
  struct val *f = bpf_map_lookup_elem(&flows, &k);
  struct val *g = bpf_map_lookup_elem(&flows, &other);
  struct val *s = bpf_map_lookup_elem(&slots, &k);
  if (!f || !g || !s)
    return XDP_ABORTED;
  check(f, t);
  check(g, t);
  check(s, t);
  __s64 *r = ans->rc;
  if (r[0] || r[1] != -17 || r[2] != -2 || r[3] || r[4] != -17 || r[5] != -22 || r[6] != -22 ||
      r[7] || r[8] != -22)
    return XDP_DROP;
  return XDP_PASS;
}

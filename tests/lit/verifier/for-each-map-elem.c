// SPDX-License-Identifier: Apache-2.0
// bpf_for_each_map_elem's callback is verified as the kernel's: a function
// of its own (its own frame), entered with r1 the map, r2 a key of the
// map's key size that it may only read, r3 the element's value of the
// value size (read and written), r4 the helper's third argument (the stack
// or null); its r0 at its exit must be 0 or 1; the helper call is a loop
// head, each element's turn starting from the state the last one left,
// with no bound but the states' convergence. Each misuse is refused by ours
// and by the kernel's verifier; cases 0 (a walk whose key is a lookup's key
// in another map and whose value is written) and 9 (the map passed on to a
// helper) are accepted by both. What the helper does at run time:
// tests/lit/loader/for-each-map-elem.c.
// RUN: %clang-bpf -DCASE=0 -c %s -o %t.0.o
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -DCASE=7 -c %s -o %t.7.o
// RUN: %clang-bpf -DCASE=8 -c %s -o %t.8.o
// RUN: %clang-bpf -DCASE=9 -c %s -o %t.9.o
// RUN: ebpf-gpu-cc %t.0.o -o %t.0.gpu.o
// RUN: ebpf-gpu-cc %t.9.o -o %t.9.gpu.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=RET2
// RET2: for-each-map-elem.c:{{[0-9]+}}: pc {{[0-9]+}}: a callback must return 0 or 1: r0 is 2 at its exit (callback_return(r0) in [0, 1])
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=KEYWRITE
// KEYWRITE: pc {{[0-9]+}}: write to change key r2 not allowed: bpf_for_each_map_elem's callback may only read the key of map 'vals' (writable(r2))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=KEYPAST
// KEYPAST: pc {{[0-9]+}}: map key read of 4 bytes at offset 4 is outside the 4-byte key of map 'vals'
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=VALPAST
// VALPAST: pc {{[0-9]+}}: map value write of 8 bytes at offset 8 is outside the 8-byte value of map 'vals'
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=LPM
// LPM: pc {{[0-9]+}}: bpf_for_each_map_elem cannot use map 'prefixes' (lpm_trie) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=MAPCTX
// MAPCTX: pc {{[0-9]+}}: bpf_for_each_map_elem argument 3 (r3) must be a stack pointer or null, is map value pointer #0+0 (type(r3) == stack|null)
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: pc {{[0-9]+}}: a callback must return 0 or 1: r0 is scalar{{.*}} at its exit (callback_return(r0) in [0, 1])
// RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=NOTMAP
// NOTMAP: pc {{[0-9]+}}: bpf_for_each_map_elem argument 1 (r1) must be a map reference, is a stack pointer (type(r1) == map)
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.0.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.9.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.8.o %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} vals SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} other SEC(".maps");

struct lpm_key {
  __u32 prefixlen;
  __u32 addr;
};

struct {
  __uint(type, BPF_MAP_TYPE_LPM_TRIE);
  __uint(max_entries, 4);
  __type(key, struct lpm_key);
  __type(value, __u64);
  __uint(map_flags, BPF_F_NO_PREALLOC);
} prefixes SEC(".maps");

// Case 0: the key looks up another map, the value is written.
static long sum_other(void *map, __u32 *key, __u64 *val, void *ctx) {
  __u64 *o = bpf_map_lookup_elem(&other, key);
  if (o)
    *val += *o;
  return 0;
}

static long two(void *map, __u32 *key, __u64 *val, void *ctx) { return 2; }

static long write_key(void *map, __u32 *key, __u64 *val, void *ctx) {
  *key = 1;
  return 0;
}

static long key_past(void *map, __u32 *key, __u64 *val, void *ctx) {
  return key[1] & 1; // 4 bytes past a 4-byte key
}

static long value_past(void *map, __u32 *key, __u64 *val, void *ctx) {
  val[1] = 0; // 8 bytes past an 8-byte value
  return 0;
}

static long lpm_cb(void *map, struct lpm_key *key, __u64 *val, void *ctx) { return 0; }

static long low_bits(void *map, __u32 *key, __u64 *val, void *ctx) { return *val & 3; }

// Case 9: the map given to the callback serves a map helper.
static long delete_self(void *map, __u32 *key, __u64 *val, void *ctx) {
  bpf_map_delete_elem(map, key);
  return 0;
}

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 k = 0;
  __u64 *v = bpf_map_lookup_elem(&vals, &k);
  if (!v)
    return XDP_PASS;
  long n;
#if CASE == 1 // the callback returns 2
  n = bpf_for_each_map_elem(&vals, two, NULL, 0);
#elif CASE == 2 // the callback writes its key
  n = bpf_for_each_map_elem(&vals, write_key, NULL, 0);
#elif CASE == 3 // a read past the key
  n = bpf_for_each_map_elem(&vals, key_past, NULL, 0);
#elif CASE == 4 // a write past the value
  n = bpf_for_each_map_elem(&vals, value_past, NULL, 0);
#elif CASE == 5 // a map the kernel cannot walk
  n = bpf_for_each_map_elem(&prefixes, lpm_cb, NULL, 0);
#elif CASE == 6 // the context is a map value
  n = bpf_for_each_map_elem(&vals, sum_other, v, 0);
#elif CASE == 7 // r0 at the exit may be 2 or 3
  n = bpf_for_each_map_elem(&vals, low_bits, NULL, 0);
#elif CASE == 8 // no map
  __u64 x = 0;
  asm volatile("r1 = r10; r1 += -8; r2 = 0; r3 = 0; r4 = 0; call 164" ::: "r0", "r1", "r2", "r3",
               "r4", "r5");
  n = x;
#elif CASE == 9
  n = bpf_for_each_map_elem(&other, delete_self, NULL, 0);
#else
  n = bpf_for_each_map_elem(&vals, sum_other, NULL, 0);
#endif
  return n > 2 ? XDP_DROP : XDP_PASS;
}

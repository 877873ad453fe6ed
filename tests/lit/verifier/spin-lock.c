// SPDX-License-Identifier: Apache-2.0
// bpf_spin_lock / bpf_spin_unlock (helpers 93, 94) are verified as the
// kernel's process_spin_lock: the argument is the struct bpf_spin_lock of
// a map value exactly (the map's BTF says where: a member of the value
// struct, in an array or hash value), at most one lock is held, no other
// helper is called while it is, the lock released is the one taken (the
// same lookup's value), and the program releases it before it ends; no
// load or store touches the lock word. Each misuse is refused by ours and
// by the kernel's verifier, with the kernel's words; case 0 (a counter
// under the lock, in an array and a hash value) and case 10
// (bpf_map_update_elem on such a map, whose copy leaves the lock word) are
// accepted by both; case 11: a lock in an LRU hash's value, which the
// kernel cannot create. What the helpers do at run time:
// tests/lit/loader/spin-lock.c and spin-lock-update.c.
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
// RUN: %clang-bpf -DCASE=10 -c %s -o %t.10.o
// RUN: %clang-bpf -DCASE=11 -c %s -o %t.11.o
// RUN: ebpf-gpu-cc %t.0.o -o %t.0.gpu.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: spin-lock.c:{{[0-9]+}}: pc {{[0-9]+}}: BPF_EXIT instruction in main prog cannot be used inside bpf_spin_lock-ed region: bpf_spin_unlock is missing on this path (unlocked(exit))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=CALL
// CALL: pc {{[0-9]+}}: function calls are not allowed while holding a lock (bpf_ktime_get_ns inside a bpf_spin_lock-ed region) (no_call(locked))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=OFF
// OFF: pc {{[0-9]+}}: off 8 doesn't point to 'struct bpf_spin_lock' that is at 0 (spin_lock(r1))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: pc {{[0-9]+}}: function calls are not allowed while holding a lock (bpf_spin_lock inside a bpf_spin_lock-ed region) (no_call(locked))
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=NOLOCK
// NOLOCK: pc {{[0-9]+}}: bpf_spin_unlock without taking a lock (locked(r1))
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: pc {{[0-9]+}}: bpf_spin_unlock of different lock (locked(r1))
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=STORE
// STORE: pc {{[0-9]+}}: bpf_spin_lock cannot be accessed directly by load/store (write of 4 bytes at offset 0 of the value of map 'counters') (no_access(bpf_spin_lock))
// RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: pc {{[0-9]+}}: map 'plain' has no valid bpf_spin_lock (spin_lock(r1))
// RUN: not ebpf-gpu-cc %t.9.o 2>&1 | FileCheck %s --check-prefix=STACK
// STACK: pc {{[0-9]+}}: bpf_spin_lock argument 1 (r1) must point to a map value's struct bpf_spin_lock, is a stack pointer (type(r1) == map_value)
// RUN: ebpf-gpu-cc %t.10.o -o %t.10.gpu.o
// RUN: not ebpf-gpu-cc %t.11.o 2>&1 | FileCheck %s --check-prefix=LRU
// LRU: a struct bpf_spin_lock in the value of a lru_hash map (the kernel allows one only in array and hash values)
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.0.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.10.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.8.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.9.o %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct counter {
  struct bpf_spin_lock lock;
  __u32 pad;
  __u64 count;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, struct counter);
} counters SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, struct counter);
} flows SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} plain SEC(".maps");

#if CASE == 11
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, struct counter);
} lru SEC(".maps");
#endif

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 k = 0, k1 = 1;
  struct counter *c = bpf_map_lookup_elem(&counters, &k);
  if (!c)
    return XDP_PASS;
#if CASE == 1 // no unlock on one path
  bpf_spin_lock(&c->lock);
  c->count++;
  if (c->count > 10)
    return XDP_DROP;
  bpf_spin_unlock(&c->lock);
#elif CASE == 2 // a helper call while locked
  bpf_spin_lock(&c->lock);
  c->count = bpf_ktime_get_ns();
  bpf_spin_unlock(&c->lock);
#elif CASE == 3 // not the lock's offset
  bpf_spin_lock((struct bpf_spin_lock *)&c->count);
  bpf_spin_unlock((struct bpf_spin_lock *)&c->count);
#elif CASE == 4 // two locks
  struct counter *d = bpf_map_lookup_elem(&counters, &k1);
  if (!d)
    return XDP_PASS;
  bpf_spin_lock(&c->lock);
  bpf_spin_lock(&d->lock);
  bpf_spin_unlock(&d->lock);
  bpf_spin_unlock(&c->lock);
#elif CASE == 5 // unlock without lock
  bpf_spin_unlock(&c->lock);
#elif CASE == 6 // unlock of another value's lock
  struct counter *d = bpf_map_lookup_elem(&counters, &k1);
  if (!d)
    return XDP_PASS;
  bpf_spin_lock(&c->lock);
  c->count++;
  bpf_spin_unlock(&d->lock);
#elif CASE == 7 // a store to the lock word
  *(volatile __u32 *)&c->lock = 0;
#elif CASE == 8 // a map whose value has no lock
  __u64 *p = bpf_map_lookup_elem(&plain, &k);
  if (!p)
    return XDP_PASS;
  bpf_spin_lock((struct bpf_spin_lock *)p);
  bpf_spin_unlock((struct bpf_spin_lock *)p);
#elif CASE == 9 // a lock on the stack
  struct bpf_spin_lock l = {};
  bpf_spin_lock(&l);
  bpf_spin_unlock(&l);
#elif CASE == 10 // an update of a map whose value holds a lock
  struct counter n = {};
  bpf_map_update_elem(&counters, &k1, &n, BPF_ANY);
#elif CASE == 11
  struct counter *l = bpf_map_lookup_elem(&lru, &k);
  if (l)
    c->count++;
#else
  bpf_spin_lock(&c->lock);
  c->count++;
  bpf_spin_unlock(&c->lock);
  struct counter *f = bpf_map_lookup_elem(&flows, &k);
  if (f) {
    bpf_spin_lock(&f->lock);
    f->count += 2;
    bpf_spin_unlock(&f->lock);
  }
#endif
  return XDP_PASS;
}

// SPDX-License-Identifier: Apache-2.0
// The open-coded iterators (bpf_iter_num_new, _next, _destroy: what
// bpf_for() and bpf_repeat() emit) are verified as the kernel's: the
// iterator is a stack slot of its own kind (8 bytes, 8-aligned, a constant
// offset) that _new makes of slots holding no iterator and that holds a
// reference _destroy must release on every path; _next needs an iterator
// and gives null (drained) or a read-only pointer to the next element,
// whose value is unknown to the verifier (bpf_for checks it against the
// bounds). Each misuse is refused by ours and by the kernel's verifier;
// case 0 (loops whose variable indexes a stack array and a map value, a
// counter, two nested loops, a loop in a subprogram) is accepted by both.
// What the kfuncs do at run time: tests/lit/loader/bpf-for.c.
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
// RUN: ebpf-gpu-cc %t.0.o -o %t.0.gpu.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=LEAK
// LEAK: pc {{[0-9]+}}: unreleased reference: the iterator made at pc {{[0-9]+}} is not destroyed on this path (released(ref {{[0-9]+}}))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=UNINIT
// UNINIT: pc {{[0-9]+}}: bpf_iter_num_next argument 1 (r1) must point to an iterator made by bpf_iter_num_new; r10-8 holds none (initialized_iter(stack[-8]))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: pc {{[0-9]+}}: bpf_iter_num_new argument 1 (r1): r10-8 already holds an iterator (made at pc {{[0-9]+}}), not yet destroyed (uninitialized_iter(stack[-8]))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: pc {{[0-9]+}}: read through r0, which is a scalar, not a pointer to memory (valid_access(r0))
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: pc {{[0-9]+}}: write of 4 bytes through r0, an iterator's element: it is read-only (writable(r0))
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=OVERWRITE
// OVERWRITE: pc {{[0-9]+}}: stack write of 8 bytes at r10-8 touches the iterator at r10-8 (iterator(stack[-8]))
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=UNBOUNDED
// UNBOUNDED: pc {{[0-9]+}}: {{.*}}unbounded{{.*}}
// RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=DESTROYED
// DESTROYED: pc {{[0-9]+}}: bpf_iter_num_destroy argument 1 (r1) must point to an iterator made by bpf_iter_num_new; r10-8 holds none (initialized_iter(stack[-8]))
// RUN: not ebpf-gpu-cc %t.9.o 2>&1 | FileCheck %s --check-prefix=TURNS
// TURNS: pc {{[0-9]+}}: stack read of 1 bytes at r10+0 is outside the 512-byte frame
// RUN: not ebpf-gpu-cc %t.10.o 2>&1 | FileCheck %s --check-prefix=TAIL
// TAIL: pc {{[0-9]+}}: bpf_tail_call while an iterator made at pc {{[0-9]+}} is not destroyed (the reference would leak)
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.0.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.8.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.9.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.10.o %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

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

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64[16]);
} vals SEC(".maps");

volatile int n_items = 12;

#if CASE == 0
static __attribute__((noinline)) int sum_to(int n) {
  int i, s = 0;
  bpf_for(i, 0, n) s += i;
  return s;
}

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u8 buf[16] = {};
  __u32 k = 0, count = 0;
  int i, j;
  __u64 *v = bpf_map_lookup_elem(&vals, &k);
  bpf_for(i, 0, 16) {
    buf[i] = i * 3;
    count++;
  }
  bpf_for(i, 0, n_items) {
    if (i >= 16)
      break;
    bpf_for(j, 0, 4) count += buf[i] + j;
    if (v)
      v[i] += count;
  }
  return (count + sum_to(n_items)) & 1 ? XDP_PASS : XDP_DROP;
}
#elif CASE == 1
// Leak: the iterator is never destroyed.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_iter_num it;
  bpf_iter_num_new(&it, 0, 4);
  return bpf_iter_num_next(&it) ? XDP_PASS : XDP_DROP;
}
#elif CASE == 2
// _next on slots bpf_iter_num_new never made an iterator of.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_iter_num it;
  __builtin_memset(&it, 0, sizeof(it));
  int *p = bpf_iter_num_next(&it);
  return p ? XDP_PASS : XDP_DROP;
}
#elif CASE == 3
// _new twice on the same slot: the first iterator would leak.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_iter_num it;
  bpf_iter_num_new(&it, 0, 4);
  bpf_iter_num_new(&it, 0, 8);
  bpf_iter_num_destroy(&it);
  return XDP_PASS;
}
#elif CASE == 4
// The element read without a null check: null once drained.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_iter_num it;
  bpf_iter_num_new(&it, 0, 4);
  int v = *bpf_iter_num_next(&it);
  bpf_iter_num_destroy(&it);
  return v ? XDP_PASS : XDP_DROP;
}
#elif CASE == 5
// A write through the element: read-only.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_iter_num it;
  bpf_iter_num_new(&it, 0, 4);
  int *p = bpf_iter_num_next(&it);
  if (p)
    *p = 7;
  bpf_iter_num_destroy(&it);
  return XDP_PASS;
}
#elif CASE == 6
// A store over the iterator's own bytes.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_iter_num it;
  bpf_iter_num_new(&it, 0, 4);
  *(volatile __u64 *)&it = 0;
  bpf_iter_num_destroy(&it);
  return XDP_PASS;
}
#elif CASE == 7
// The element is not known to lie in [start, end): unchecked, it cannot
// index anything.
SEC("xdp") int prog(struct xdp_md *ctx) {
  __u8 buf[16] = {};
  struct bpf_iter_num it;
  int *p, s = 0;
  bpf_iter_num_new(&it, 0, 16);
  while ((p = bpf_iter_num_next(&it)))
    s += buf[*p];
  bpf_iter_num_destroy(&it);
  return s ? XDP_PASS : XDP_DROP;
}
#elif CASE == 8
// Destroyed twice.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_iter_num it;
  bpf_iter_num_new(&it, 0, 4);
  bpf_iter_num_destroy(&it);
  bpf_iter_num_destroy(&it);
  return XDP_PASS;
}
#elif CASE == 9
// A counter is not bounded by the loop's turns: the verifier knows no
// count of them, only what each turn checks.
SEC("xdp") int prog(struct xdp_md *ctx) {
  __u8 buf[8] = {};
  int i;
  __u32 turns = 0;
  bpf_for(i, 0, 8) turns++;
  return buf[turns] ? XDP_PASS : XDP_DROP;
}
#elif CASE == 10
struct {
  __uint(type, BPF_MAP_TYPE_PROG_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} progs SEC(".maps");

// A tail call never returns: the iterator would never be destroyed.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_iter_num it;
  bpf_iter_num_new(&it, 0, 4);
  bpf_tail_call(ctx, &progs, 0);
  bpf_iter_num_destroy(&it);
  return XDP_PASS;
}
#endif

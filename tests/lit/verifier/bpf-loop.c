// SPDX-License-Identifier: Apache-2.0
// bpf_loop's callback is verified as the kernel's: a function of its own
// (its own frame), entered with r1 an index below 1 << 23 and r2 the
// helper's third argument (the stack or null), whose r0 at its exit must
// be 0 or 1; the helper call is a loop head, each turn of the callback
// starting from the state the last one left. Each misuse is refused by ours
// and by the kernel's verifier; cases 0 (a walk over a stack array whose
// index lives in the callback's context) and 9 are accepted by both. What the
// helper does at run time: tests/lit/loader/bpf-loop.c.
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
// RUN: ebpf-gpu-cc %t.9.o -o %t.9.gpu.o
// RUN: ebpf-gpu-cc %t.0.o -o %t.0.gpu.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=RET2
// RET2: bpf-loop.c:{{[0-9]+}}: pc {{[0-9]+}}: a callback must return 0 or 1: r0 is 2 at its exit (callback_return(r0) in [0, 1])
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// OUTSIDE: pc {{[0-9]+}}: stack write of 8 bytes at r10+{{[0-9]+}} is outside the 512-byte frame
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=NRPTR
// NRPTR: pc {{[0-9]+}}: bpf_loop argument 1 (r1) must be a scalar, is a stack pointer (type(r1) == scalar)
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=NOFUNC
// NOFUNC: pc {{[0-9]+}}: bpf_loop argument 2 (r2) must be a function's address (a static function), is a scalar (type(r2) == func)
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=MAPCTX
// MAPCTX: pc {{[0-9]+}}: bpf_loop argument 3 (r3) must be a stack pointer or null, is map value pointer #0+0 (type(r3) == stack|null)
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=INDEX
// INDEX: pc {{[0-9]+}}: offset added to r3 (stack pointer) is unbounded (r1 = scalar(u0..8388607,s0..8388607)) (bounded(r1))
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: pc {{[0-9]+}}: a callback must return 0 or 1: r0 is scalar{{.*}} at its exit (callback_return(r0) in [0, 1])
// RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=TURNS
// TURNS: pc {{[0-9]+}}: stack read of 1 bytes at r10+0 is outside the 512-byte frame
// RUN: not ebpf-gpu-cc %t.10.o 2>&1 | FileCheck %s --check-prefix=PRECISE
// PRECISE: pc {{[0-9]+}}: stack read of 1 bytes at r10+{{[0-9]+}} is outside the 512-byte frame
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
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.10.o %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} vals SEC(".maps");

struct walk {
  __u8 bytes[16];
  __u64 at;
  __u64 sum;
};

// Case 0: the index the checks bound lives in the context, from turn to turn.
static long step(__u32 i, void *arg) {
  struct walk *w = arg;
  if (w->at >= sizeof(w->bytes))
    return 1;
  w->sum ^= w->bytes[w->at];
  w->at++;
  return 0;
}

static long two(__u32 i, void *arg) { return 2; }

static long past(__u32 i, void *arg) {
  ((__u64 *)arg)[8] = i; // 64 bytes past an 8-byte context at r10-8
  return 0;
}

static long by_index(__u32 i, void *arg) {
  struct walk *w = arg;
  w->sum += w->bytes[i]; // i is not bounded by 16
  return 0;
}

static long index_low_bit(__u32 i, void *arg) { return i & 3; }

// Case 8: each turn moves the index one on, with no bound: after 32 turns
// the caller's read through it leaves the frame (only the 32nd turn shows
// it: the turns are explored one by one, at most nr_loops of them, as the
// kernel's; with 16 turns, as in case 9, the read stays in the frame).
static long advance(__u32 i, void *arg) {
  struct walk *w = arg;
  w->at++;
  return 0;
}

// Case 10: the index in the context is safe on one path into the call and
// not on the other; the first path's callback makes it precise back to
// where the two paths meet (through the callback's entry), so the second
// is not pruned there.
static long read_at(__u32 i, void *arg) {
  struct walk *w = arg;
  w->sum = w->bytes[w->at];
  return 1;
}

SEC("xdp") int prog(struct xdp_md *ctx) {
  struct walk w = {.at = 0};
  __u64 x = 0;
  __u32 k = 0;
  __u64 *v = bpf_map_lookup_elem(&vals, &k);
  if (!v)
    return XDP_PASS;
  __builtin_memcpy(w.bytes, v, 8);
  __builtin_memcpy(w.bytes + 8, v, 8);
#if CASE == 1 // the callback returns 2
  bpf_loop(4, two, NULL, 0);
#elif CASE == 2 // the callback writes past the frame through its context
  bpf_loop(4, past, &x, 0);
#elif CASE == 3 // nr_loops is a pointer
  asm volatile("r1 = r10; r1 += -8; r2 = 0; r3 = 0; r4 = 0; call 181" ::: "r0", "r1", "r2", "r3",
               "r4", "r5");
#elif CASE == 4 // no function
  bpf_loop(4, NULL, NULL, 0);
#elif CASE == 5 // the context is a map value
  bpf_loop(4, step, v, 0);
#elif CASE == 6 // the index read beyond the context's array
  bpf_loop(4, by_index, &w, 0);
#elif CASE == 7 // r0 at the exit may be 2 or 3
  bpf_loop(4, index_low_bit, NULL, 0);
#elif CASE == 8 // the turns move an index the caller reads through
  bpf_loop(40, advance, &w, 0);
  return w.bytes[w.at];
#elif CASE == 9 // the same, 16 turns at most: accepted
  bpf_loop(16, advance, &w, 0);
  return w.bytes[w.at];
#elif CASE == 10 // an index safe on one path only
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 1 > end)
    return XDP_PASS;
  __u64 at, byte = *(__u8 *)data;
  // 0 on the path explored first (the fall-through), 600 on the other.
  asm volatile("%0 = 600; if %1 == 0x42 goto +1; %0 = 0" : "=&r"(at) : "r"(byte));
  w.at = at;
  bpf_loop(1, read_at, &w, 0);
#else
  bpf_loop(100, step, &w, 0);
#endif
  return w.sum & 1 ? XDP_DROP : XDP_PASS + (x & 0);
}

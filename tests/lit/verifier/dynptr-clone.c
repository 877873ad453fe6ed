// SPDX-License-Identifier: Apache-2.0
// bpf_dynptr_clone, bpf_dynptr_copy, bpf_dynptr_memset (kfuncs) and
// bpf_dynptr_data (helper 203) are verified as the kernel's: clone takes
// an initialised dynptr and makes a second one in its clone__uninit bytes
// (a dynptr of its own: a store over it destroys it and leaves the parent;
// made over an initialised dynptr, the parent itself included, as the
// kernel allows for dynptrs that hold no reference); copy takes two
// initialised dynptrs and scalars, memset one and scalars; copy and memset
// change the packet's bytes (no packet pointer moves: slices stay valid);
// bpf_dynptr_data's result is a writable slice of its constant length or
// null (always null for an XDP dynptr at run time). Case 0 is accepted by
// both verifiers, cases 1 to 7 are refused by both.
// What they do at run time: tests/lit/loader/dynptr-copy.c.
// One difference is not tested here: a slice used after its dynptr is made
// again (bpf_dynptr_from_xdp or _clone over it) or after
// bpf_xdp_adjust_head (bpf_dynptr_data's) is refused here and accepted by
// this kernel (its destroy_if_dynptr_stack_slot and clear_all_pkt_pointers
// miss those slices' types); docs/VERIFIER.md.
// RUN: %clang-bpf -DCASE=0 -c %s -o %t.0.o
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -DCASE=7 -c %s -o %t.7.o
// RUN: ebpf-gpu-cc %t.0.o -o %t.0.gpu.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=UNINIT
// UNINIT: pc {{[0-9]+}}: bpf_dynptr_clone argument 1 (r1) must be an initialized dynptr (made by bpf_dynptr_from_xdp); r10-{{[0-9]+}} holds none
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=SRC
// SRC: pc {{[0-9]+}}: bpf_dynptr_copy argument 3 (r3) must be an initialized dynptr (made by bpf_dynptr_from_xdp); r10-{{[0-9]+}} holds none
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: pc {{[0-9]+}}: bpf_dynptr_memset argument 2 (r2) must be a scalar, is a packet
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=CLOBBERED
// CLOBBERED: pc {{[0-9]+}}: bpf_dynptr_size argument 1 (r1) must be an initialized dynptr (made by bpf_dynptr_from_xdp); r10-32 holds none
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: pc {{[0-9]+}}: bpf_dynptr_clone argument 2 (r2) must point to a dynptr's 16 bytes on the stack at a constant 8-aligned offset, is stack pointer frame0-36 (dynptr(r2))
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=DATA-LEN
// DATA-LEN: pc {{[0-9]+}}: bpf_dynptr_data argument 3 (r3) must be a known constant size, is scalar
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=DATA-BOUNDS
// DATA-BOUNDS: pc {{[0-9]+}}: dynptr slice read of 1 bytes at offset 4 is outside the 4-byte slice
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.0.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

extern int bpf_dynptr_from_xdp(struct xdp_md *xdp, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
                              __u32 buffer__szk) __ksym;
extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
extern int bpf_dynptr_clone(const struct bpf_dynptr *p, struct bpf_dynptr *clone__uninit) __ksym;
extern int bpf_dynptr_copy(struct bpf_dynptr *dst_ptr, __u32 dst_off, struct bpf_dynptr *src_ptr,
                           __u32 src_off, __u32 size) __ksym;
extern int bpf_dynptr_memset(struct bpf_dynptr *p, __u32 offset, __u32 size, __u8 val) __ksym;

volatile __u32 sel = 3;

#if CASE == 0
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr d, c;
  bpf_dynptr_from_xdp(ctx, 0, &d);
  __u8 *p = bpf_dynptr_slice(&d, 0, NULL, 4);
  if (!p)
    return XDP_DROP;
  bpf_dynptr_clone(&d, &c);
  __u8 *q = bpf_dynptr_slice(&c, 0, NULL, 4);
  if (!q)
    return XDP_DROP;
  // The parent's slice stays valid across copy and memset.
  bpf_dynptr_copy(&c, sel, &d, 0, 4);
  bpf_dynptr_memset(&d, sel, 2, 0);
  // Cloned over an initialised dynptr and over itself; a store over a
  // clone leaves its parent.
  struct bpf_dynptr e;
  bpf_dynptr_from_xdp(ctx, 0, &e);
  bpf_dynptr_clone(&d, &e);
  bpf_dynptr_clone(&e, &e);
  *(volatile __u64 *)&e = 0;
  // bpf_dynptr_data: a writable slice, or null (always, for XDP).
  __u8 *w = bpf_dynptr_data(&d, sel, 4);
  if (w)
    w[3] = 1;
  return p[0] + q[1] + bpf_dynptr_size(&d) ? XDP_PASS : XDP_TX;
}
#elif CASE == 1
// Cloned before it is made.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr d, c;
  int r = bpf_dynptr_clone(&d, &c);
  bpf_dynptr_from_xdp(ctx, 0, &d);
  return r ? XDP_PASS : XDP_DROP;
}
#elif CASE == 2
// A copy from bytes that hold no dynptr.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr d, s;
  bpf_dynptr_from_xdp(ctx, 0, &d);
  return bpf_dynptr_copy(&d, 0, &s, 0, 4) ? XDP_PASS : XDP_DROP;
}
#elif CASE == 3
// A packet pointer where memset takes an offset.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr d;
  bpf_dynptr_from_xdp(ctx, 0, &d);
  return bpf_dynptr_memset(&d, (__u32)(long)ctx->data, 4, 0) ? XDP_PASS : XDP_DROP;
}
#elif CASE == 4
// A clone used after a store over it.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr d, c;
  bpf_dynptr_from_xdp(ctx, 0, &d);
  bpf_dynptr_clone(&d, &c);
  *(volatile __u64 *)&c = 0;
  return bpf_dynptr_size(&c) > 100 ? XDP_PASS : XDP_DROP;
}
#elif CASE == 5
// A clone's bytes at a misaligned offset.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr d;
  char b[24];
  bpf_dynptr_from_xdp(ctx, 0, &d);
  return bpf_dynptr_clone(&d, (struct bpf_dynptr *)(b + 4)) ? XDP_PASS : XDP_DROP;
}
#elif CASE == 6
// bpf_dynptr_data's length not a constant.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr d;
  bpf_dynptr_from_xdp(ctx, 0, &d);
  __u8 *p = bpf_dynptr_data(&d, 0, sel & 7);
  if (!p)
    return XDP_DROP;
  return p[0] ? XDP_PASS : XDP_TX;
}
#elif CASE == 7
// Past the end of bpf_dynptr_data's bytes.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr d;
  bpf_dynptr_from_xdp(ctx, 0, &d);
  __u8 *p = bpf_dynptr_data(&d, 0, 4);
  if (!p)
    return XDP_DROP;
  return p[4] ? XDP_PASS : XDP_TX;
}
#endif

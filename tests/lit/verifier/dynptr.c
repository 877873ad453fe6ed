// SPDX-License-Identifier: Apache-2.0
// XDP dynptrs (bpf_dynptr_from_xdp, bpf_dynptr_slice, _slice_rdwr and the
// helpers bpf_dynptr_read and _write) are verified as the kernel's: the
// dynptr is a 16-byte stack object (two slots, 8-aligned, a constant
// offset) that bpf_dynptr_from_xdp makes and only the dynptr kfuncs and
// helpers read; a store over it destroys it; a slice is the packet's bytes,
// exactly the constant size asked for, or null, read-only unless made by
// _rdwr, and it goes stale with the packet pointers when a helper moves the
// packet. Each misuse is refused by ours and by the kernel's verifier;
// case 0 (slices read and written, a slice given to a helper, a dynptr made
// again over one, the helpers, bpf_dynptr_size and _adjust) is accepted by
// both.
// What the kfuncs do at run time: tests/lit/loader/dynptr.c.
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
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: pc {{[0-9]+}}: r{{[0-9]}} is read before it is written (initialized(r{{[0-9]}}))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: pc {{[0-9]+}}: bpf_dynptr_slice argument 4 (r4), the slice's size, must be a known constant, is scalar(u1..8{{.*}}) (constant(r4))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=RDONLY
// RDONLY: pc {{[0-9]+}}: write of 1 bytes through r0, a slice of bpf_dynptr_slice: it is read-only (bpf_dynptr_slice_rdwr gives a writable one) (writable(r0))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=OVERWRITTEN
// OVERWRITTEN: pc {{[0-9]+}}: bpf_dynptr_slice argument 1 (r1) must be an initialized dynptr (made by bpf_dynptr_from_xdp); r10-16 holds none (initialized_dynptr(stack[-16]))
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: pc {{[0-9]+}}: r0 may be null: dynptr slice read without a null check (not_null(r0))
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=BOUNDS
// BOUNDS: pc {{[0-9]+}}: dynptr slice read of 1 bytes at offset 14 is outside the 14-byte slice
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=PEEK
// PEEK: pc {{[0-9]+}}: stack read of 8 bytes at r10-16 touches the dynptr at r10-16: only the dynptr kfuncs and helpers may (dynptr(stack[-16]))
// RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=UNINIT
// UNINIT: pc {{[0-9]+}}: bpf_dynptr_read argument 3 (r3) must be an initialized dynptr (made by bpf_dynptr_from_xdp); r10-16 holds none (initialized_dynptr(stack[-16]))
// RUN: not ebpf-gpu-cc %t.9.o 2>&1 | FileCheck %s --check-prefix=HELPERBUF
// HELPERBUF: pc {{[0-9]+}}: bpf_xdp_load_bytes argument 3 (r3): stack write of 8 bytes at r10-16 touches the dynptr at r10-16
// RUN: not ebpf-gpu-cc %t.10.o 2>&1 | FileCheck %s --check-prefix=SIZE-UNINIT
// SIZE-UNINIT: pc {{[0-9]+}}: bpf_dynptr_size argument 1 (r1) must be an initialized dynptr (made by bpf_dynptr_from_xdp); r10-16 holds none (initialized_dynptr(stack[-16]))
// Case 0 on the kernel: accepted, or, by kernels that keep XDP programs
// from writable slices (seen on 6.18.44-fc-v1272), refused for that alone.
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.0.o --reason 'bpf_dynptr_slice_rdwr() is not allowed' > %t.k0.txt || true %}
// RUN: %if kernel-bpf %{ FileCheck %s --check-prefix=KERNEL-CASE0 < %t.k0.txt %}
// KERNEL-CASE0: {{the kernel ACCEPTED|the kernel's verifier refused .*: bpf_dynptr_slice_rdwr\(\) is not allowed}}
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

// The kernel's kfuncs (kernel/bpf/helpers.c, net/core/filter.c), declared
// as its selftests' bpf_kfuncs.h does.
extern int bpf_dynptr_from_xdp(struct xdp_md *xdp, __u64 flags, struct bpf_dynptr *ptr__uninit) __ksym;
extern void *bpf_dynptr_slice(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
                              __u32 buffer__szk) __ksym;
extern void *bpf_dynptr_slice_rdwr(const struct bpf_dynptr *p, __u32 offset, void *buffer__opt,
                                   __u32 buffer__szk) __ksym;
extern __u32 bpf_dynptr_size(const struct bpf_dynptr *p) __ksym;
extern int bpf_dynptr_adjust(const struct bpf_dynptr *p, __u32 start, __u32 end) __ksym;

volatile __u32 sel = 3;

#if CASE == 0
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  __u8 buf[14] = {};
  __u8 copy[4];
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  __u8 *eth = bpf_dynptr_slice(&ptr, 0, buf, sizeof(buf));
  if (!eth)
    return XDP_DROP;
  __u8 proto = eth[12];
  // Made again over the same bytes: the kernel allows it for a dynptr
  // that holds no reference.
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  __u8 *w = bpf_dynptr_slice_rdwr(&ptr, 0, NULL, 6);
  if (!w)
    return XDP_DROP;
  w[0] = proto;
  // A slice given to a helper as memory.
  __s64 sum = bpf_csum_diff(0, 0, (__be32 *)w, 4, 0);
  if (bpf_dynptr_read(copy, sizeof(copy), &ptr, sel, 0))
    return XDP_ABORTED;
  bpf_dynptr_write(&ptr, 6, copy, sizeof(copy), 0);
  // Narrowed to all but its first byte; its slices stay valid.
  if (bpf_dynptr_adjust(&ptr, 1, bpf_dynptr_size(&ptr)))
    return XDP_DROP;
  return (sum + w[1]) & 1 ? XDP_PASS : XDP_TX;
}
#elif CASE == 1
// A slice used after bpf_xdp_adjust_head moved the packet.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  __u8 *eth = bpf_dynptr_slice(&ptr, 0, NULL, 14);
  if (!eth)
    return XDP_DROP;
  if (bpf_xdp_adjust_head(ctx, 4))
    return XDP_DROP;
  return eth[12] ? XDP_PASS : XDP_DROP;
}
#elif CASE == 2
// A slice whose size is not a constant.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  __u8 buf[8] = {};
  __u32 n = (sel & 7) + 1;
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  __u8 *p = bpf_dynptr_slice(&ptr, 0, buf, n);
  return p && p[0] ? XDP_PASS : XDP_DROP;
}
#elif CASE == 3
// A write through a read-only slice.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  __u8 *p = bpf_dynptr_slice(&ptr, 0, NULL, 14);
  if (!p)
    return XDP_DROP;
  p[0] = 1;
  return XDP_PASS;
}
#elif CASE == 4
// The dynptr overwritten by a store, then used.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  *(volatile __u64 *)&ptr = 0;
  __u8 *p = bpf_dynptr_slice(&ptr, 0, NULL, 14);
  return p && p[0] ? XDP_PASS : XDP_DROP;
}
#elif CASE == 5
// A slice read without a null check.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  __u8 *p = bpf_dynptr_slice(&ptr, 0, NULL, 14);
  return p[12] ? XDP_PASS : XDP_DROP;
}
#elif CASE == 6
// A read past the slice's size.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  volatile __u8 *p = bpf_dynptr_slice(&ptr, 0, NULL, 14);
  if (!p)
    return XDP_DROP;
  return p[14] ? XDP_PASS : XDP_DROP;
}
#elif CASE == 7
// The dynptr's bytes read as data.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  return *(volatile __u64 *)&ptr ? XDP_PASS : XDP_DROP;
}
#elif CASE == 8
// A helper given stack bytes that hold no dynptr.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  __u8 buf[4];
  __builtin_memset(&ptr, 0, sizeof(ptr));
  return bpf_dynptr_read(buf, sizeof(buf), &ptr, 0, 0) ? XDP_DROP : XDP_PASS;
}
#elif CASE == 9
// A helper that writes its buffer given the dynptr's bytes.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  bpf_dynptr_from_xdp(ctx, 0, &ptr);
  bpf_xdp_load_bytes(ctx, 0, &ptr, 8);
  __u8 *p = bpf_dynptr_slice(&ptr, 0, NULL, 14);
  return p && p[0] ? XDP_PASS : XDP_DROP;
}
#elif CASE == 10
// A dynptr kfunc given stack bytes that hold no dynptr.
SEC("xdp") int prog(struct xdp_md *ctx) {
  struct bpf_dynptr ptr;
  __builtin_memset(&ptr, 0, sizeof(ptr));
  return bpf_dynptr_size(&ptr) ? XDP_DROP : XDP_PASS;
}
#endif

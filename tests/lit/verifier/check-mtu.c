// SPDX-License-Identifier: GPL-2.0
// bpf_check_mtu's arguments (XDP's form): mtu_len must point to a u32,
// 4-byte aligned, on the stack (written or not: the kernel lets a
// privileged loader pass stack bytes never written, and our runtime zeroes
// every frame), in a writable map value or in a ring buffer record, never
// in the packet (the helper has no packet access); the helper rewrites it;
// and the program must be GPL-compatible
// (the helper is GPL-only), as the kernel's verifier requires (its
// ARG_PTR_TO_FIXED_SIZE_MEM | MEM_WRITE | MEM_ALIGNED of 4 bytes). Each
// misuse is refused by ours and by the kernel's. A flag (BPF_MTU_CHK_SEGS
// included) verifies and returns -EINVAL at run time
// (tests/lit/loader/check-mtu.c).
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -DCASE=7 -c %s -o %t.7.o
// RUN: %clang-bpf -DCASE=8 -c %s -o %t.8.o
// RUN: ebpf-gpu-cc %t.1.o -o %t.1.gpu.o
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: check-mtu.c:{{[0-9]+}}: pc {{[0-9]+}}: bpf_check_mtu argument 3 (r3) must be 4-byte aligned at a constant offset, is {{.*}} (aligned(r3, 4))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=PACKET
// PACKET: bpf_check_mtu argument 3 (r3) must point to a u32 on the stack, in a map value or in a record, is a packet pointer (type(r3) == stack|map_value|ringbuf_mem)
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=RODATA
// RODATA: bpf_check_mtu argument 3 (r3): write to read-only map '.rodata' (writable(r3))
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=LICENSE
// LICENSE: bpf_check_mtu is GPL-only; the program's license 'Proprietary' is not GPL-compatible (gpl_compatible(license))
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=REWRITTEN
// REWRITTEN: offset added to r1 (stack pointer) is unbounded
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: bpf_check_mtu argument 3 (r3): {{.*}}
// RUN: ebpf-gpu-cc %t.8.o -o %t.8.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.1.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.8.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile __u32 ro_mtu = 0;

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} mtu_map SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 4096);
} rb SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
#if CASE == 1 // accepted: mtu_len never written
  __u32 mtu;
  asm volatile("" : "=m"(mtu));
  return bpf_check_mtu(ctx, 0, &mtu, 0, 0) & 3;
#elif CASE == 2 // mtu_len at an odd offset
  __u8 buf[8] = {};
  return bpf_check_mtu(ctx, 0, (__u32 *)(buf + 1), 0, 0) & 3;
#elif CASE == 3 // mtu_len in the packet
  if (data + 8 > data_end)
    return XDP_DROP;
  return bpf_check_mtu(ctx, 0, (__u32 *)data, 0, 0) & 3;
#elif CASE == 4 // mtu_len in read-only global data
  return bpf_check_mtu(ctx, 0, (__u32 *)&ro_mtu, 0, 0) & 3;
#elif CASE == 5 // a GPL-only helper in a program that is not GPL
  __u32 mtu = 0;
  return bpf_check_mtu(ctx, 0, &mtu, 0, 0) & 3;
#elif CASE == 6 // the helper rewrites mtu_len: it is no longer the 0 written before
  __u32 mtu = 0;
  __u8 small[4] = {};
  bpf_check_mtu(ctx, 0, &mtu, 0, 0);
  return small[mtu];
#elif CASE == 7 // mtu_len past the end of a map value
  __u32 k = 0;
  __u8 *v = bpf_map_lookup_elem(&mtu_map, &k);
  if (!v)
    return XDP_PASS;
  return bpf_check_mtu(ctx, 0, (__u32 *)(v + 8), 0, 0) & 3;
#elif CASE == 8 // accepted: on the stack, in a map value, in a record, with flags
  __u32 k = 0, mtu = 0;
  __u32 *v = bpf_map_lookup_elem(&mtu_map, &k);
  if (!v)
    return XDP_PASS;
  long rc = bpf_check_mtu(ctx, 0, v + 1, 0, 0);
  rc += bpf_check_mtu(ctx, 0, &mtu, -20, BPF_MTU_CHK_SEGS);
  __u32 *r = bpf_ringbuf_reserve(&rb, 8, 0);
  if (r) {
    *r = 0;
    rc += bpf_check_mtu(ctx, 3, r, 0, 0);
    bpf_ringbuf_submit(r, 0);
  }
  return (rc + mtu) & 3;
#endif
}
#if CASE == 5
char LICENSE[] SEC("license") = "Proprietary";
#else
char LICENSE[] SEC("license") = "GPL";
#endif

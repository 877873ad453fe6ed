// SPDX-License-Identifier: GPL-2.0
// bpf_strncmp's third argument is the kernel's constant string: a pointer
// at a constant offset into a read-only map value (.rodata, which libbpf
// freezes) whose bytes from there hold a NUL; its first is memory of the
// constant size its second gives (above 0), not the packet. Each misuse
// is refused by ours and by the kernel's verifier; case 6 is accepted by
// both.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -DCASE=7 -c %s -o %t.7.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=WRITABLE
// WRITABLE: strncmp.c:{{[0-9]+}}: pc {{[0-9]+}}: bpf_strncmp argument 3 (r3) does not point to a read-only map: '.data' may change while the program runs (only .rodata's strings are constant) (readonly_map(r3))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=STACK
// STACK: bpf_strncmp argument 3 (r3) must point to a string in a read-only map value, is a stack pointer (type(r3) == map_value)
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=NONUL
// NONUL: bpf_strncmp argument 3 (r3): the string at offset 0 of '.rodata.nonul' is not zero-terminated (nul_terminated(r3))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=VAROFF
// VAROFF: bpf_strncmp argument 3 (r3) is not a constant address in '.rodata': {{.*}} (constant_offset(r3))
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: bpf_strncmp argument 2 (r2) must be a size above 0 with a known bound
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=PACKET
// PACKET: bpf_strncmp argument 1 (r1): helper access to the packet is not allowed (bpf_strncmp takes no packet memory, as the kernel's) (type(r1) != packet)
// RUN: ebpf-gpu-cc %t.6.o -o %t.6.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.6.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char writable[8] = "abc";
const char word[8] = "abcdefg";
const char nonul[4] __attribute__((section(".rodata.nonul"))) = {'a', 'b', 'c', 'd'};

SEC("xdp") int prog(struct xdp_md *ctx) {
  char s1[8] = "abcdefg";
#if CASE == 1 // a writable global
  long r = bpf_strncmp(s1, sizeof(s1), writable);
#elif CASE == 2 // the stack
  char s2[4] = "abc";
  long r = bpf_strncmp(s1, sizeof(s1), s2);
#elif CASE == 3 // no NUL
  long r = bpf_strncmp(s1, sizeof(s1), nonul);
#elif CASE == 4 // an offset known only in bounds
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 1 > end)
    return XDP_PASS;
  long r = bpf_strncmp(s1, sizeof(s1), word + (*(__u8 *)data & 3));
#elif CASE == 5 // s1_sz 0
  volatile __u32 n = 0;
  long r = bpf_strncmp(s1, n & 0, word);
#elif CASE == 7 // s1 in the packet
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 8 > end)
    return XDP_PASS;
  long r = bpf_strncmp(data, 8, word);
#else
  long r = bpf_strncmp(s1, sizeof(s1), word + 2);
#endif
  return r ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";

// SPDX-License-Identifier: GPL-2.0
// bpf_snprintf's checks: the format a constant of .rodata that the verifier
// parses with the kernel's bpf_bprintf_prepare rules, a u64 of data for
// each conversion (its size a multiple of 8), str not the packet. Cases 1
// to 7 are refused by ours and by the kernel's verifier. Cases 8 to 11 the
// kernel accepts and ours refuses, by design (docs/VERIFIER.md): the %p
// forms that print kernel addresses, %s of a string whose end the verifier
// cannot see (a map value may hold no NUL: the kernel probe-reads where
// the runtime cannot), a pointer printed as a number. Case 12, a string on
// the stack, one of .rodata and an IPv4 address in the packet, is accepted
// by both.
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
// RUN: %clang-bpf -DCASE=12 -c %s -o %t.12.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=WRITABLE
// WRITABLE: bpf_snprintf argument 3 (r3) does not point to a read-only map: '.data' may change while the program runs (only .rodata's strings are constant) (readonly_map(r3))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: bpf_snprintf argument 3 (r3): invalid format string: unknown conversion '%f' at offset 2 (the kernel takes %d %i %u %x %X with l or ll, %c, %s, %pks, %pI4 %pi4 %pI6 %pi6 and %%) (format(r3))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=SLETTER
// SLETTER: invalid format string: %s at offset 0 is followed by 'x' (a string conversion ends at a space, punctuation or the end)
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: bpf_snprintf: the format has 2 conversions but bpf_snprintf argument 4 (r4) holds 1 u64s (conversions(r3) <= r5 / 8)
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: bpf_snprintf argument 5 (r5): 12 bytes of arguments is not a multiple of 8 (each is a u64) (multiple_of_8(r5))
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=PACKET
// PACKET: bpf_snprintf argument 1 (r1): helper access to the packet is not allowed (bpf_snprintf takes no packet memory, as the kernel's) (type(r1) != packet)
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=PRECISION
// PRECISION: invalid format string: unknown conversion '%5.' at offset 0
// RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=PK
// PK: invalid format string: %pK at offset 3 prints a kernel address or symbol, which has no meaning here
// RUN: not ebpf-gpu-cc %t.9.o 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN: invalid format string: %p at offset 0 prints a kernel address (hashed), which has no meaning here
// RUN: not ebpf-gpu-cc %t.10.o 2>&1 | FileCheck %s --check-prefix=MAPSTR
// MAPSTR: bpf_snprintf argument 4 (r4): u64 0 (for %s) reads a string whose end the verifier cannot see: it must point to a constant string of .rodata, or to stack bytes ending in a known NUL, is map value pointer
// RUN: not ebpf-gpu-cc %t.11.o 2>&1 | FileCheck %s --check-prefix=LEAK
// LEAK: pointer leak: bpf_snprintf argument 4 (r4) reads the stack pointer spilled at r10-{{[0-9]+}} as data
// RUN: ebpf-gpu-cc %t.12.o -o %t.12.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.8.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.9.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.10.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.11.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.12.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char writable[8] = "%d";
const char word[8] = "abcdefg";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, char[16]);
} strs SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  char out[32];
  __u64 a[2] = {1, 2};
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
#if CASE == 1 // a writable format
  long r = bpf_snprintf(out, sizeof(out), writable, a, 8);
#elif CASE == 2
  static const char f[] = "x %f";
  long r = bpf_snprintf(out, sizeof(out), f, a, 8);
#elif CASE == 3
  static const char f[] = "%sx";
  a[0] = (__u64)word;
  long r = bpf_snprintf(out, sizeof(out), f, a, 8);
#elif CASE == 4
  static const char f[] = "%d %d";
  long r = bpf_snprintf(out, sizeof(out), f, a, 8);
#elif CASE == 5
  static const char f[] = "%d";
  __u32 b[3] = {1, 2, 3};
  long r = bpf_snprintf(out, sizeof(out), f, (__u64 *)b, 12);
#elif CASE == 6
  static const char f[] = "%d";
  if (data + 32 > end)
    return XDP_PASS;
  long r = bpf_snprintf(data, 32, f, a, 8);
#elif CASE == 7
  static const char f[] = "%5.2d";
  long r = bpf_snprintf(out, sizeof(out), f, a, 8);
#elif CASE == 8
  static const char f[] = "at %pK";
  a[0] = (__u64)word;
  long r = bpf_snprintf(out, sizeof(out), f, a, 8);
#elif CASE == 9
  static const char f[] = "%p";
  a[0] = (__u64)word;
  long r = bpf_snprintf(out, sizeof(out), f, a, 8);
#elif CASE == 10
  static const char f[] = "%s";
  __u32 k = 0;
  char *s = bpf_map_lookup_elem(&strs, &k);
  if (!s)
    return XDP_PASS;
  a[0] = (__u64)s;
  long r = bpf_snprintf(out, sizeof(out), f, a, 8);
#elif CASE == 11
  static const char f[] = "%lx";
  a[0] = (__u64)out;
  long r = bpf_snprintf(out, sizeof(out), f, a, 8);
#else
  static const char f[] = "%s %pks %pI4";
  char name[8] = "eth0";
  if (data + 34 > end)
    return XDP_PASS;
  __u64 c[3] = {(__u64)name, (__u64)word, (__u64)(data + 26)};
  long r = bpf_snprintf(out, sizeof(out), f, c, sizeof(c));
#endif
  return r > 0 ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";

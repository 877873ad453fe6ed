// SPDX-License-Identifier: GPL-2.0
// bpf_trace_vprintk's checks (libbpf's bpf_printk past three arguments):
// the format, its size and its u64 arguments as bpf_snprintf's
// (tests/lit/verifier/snprintf.c). Case 1, a format size past the end of
// the .rodata value that holds it, is refused by ours and by the kernel
// (the format is memory of that size). Case 2, a format on the stack, the
// kernel accepts (it parses the format when the helper runs) and ours
// refuses by design: the verifier parses a constant format to prove what
// its %s and %pI4 read (docs/MAPS.md). Case 3, bpf_printk with four
// arguments, is accepted by both.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: bpf_trace_vprintk argument 1 (r1): map value read of 76 bytes at offset 0 is outside the 12-byte value of map '.rodata'
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=STACK
// STACK: bpf_trace_vprintk argument 1 (r1) must point to a string in a read-only map value, is a stack pointer
// RUN: ebpf-gpu-cc %t.3.o -o %t.3.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.2.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.3.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

SEC("xdp") int vprintk_case(struct xdp_md *ctx) {
  __u64 args[4] = {1, 2, 3, ctx->data_end - ctx->data};
#if CASE == 1
  static const char fmt[] = "%d %d %d %d";
  bpf_trace_vprintk(fmt, sizeof(fmt) + 64, args, sizeof(args));
#elif CASE == 2
  char fmt[] = "%d %d %d %d";
  bpf_trace_vprintk(fmt, sizeof(fmt), args, sizeof(args));
#else
  bpf_printk("%d %d %d %llu", 1, 2, 3, args[3]);
#endif
  return XDP_PASS;
}

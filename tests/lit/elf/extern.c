// Externs (kconfig, ksym variables) have nothing to bind to: refused by
// name. A kfunc ebpf-gpu does not know is refused by name too
// (tests/lit/loader/unlinked-program.c).
// RUN: %clang-bpf -c %s -o %t.o
// RUN: not ebpf-gpu-cc %t.o 2>&1 | FileCheck %s
// CHECK: ebpf-gpu-cc: error: {{.*}}.o: program uses_kconfig: section xdp: insn {{[0-9]+}}: refers to extern 'LINUX_KERNEL_VERSION' (kconfig and ksym variable externs are not supported)

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern unsigned int LINUX_KERNEL_VERSION __attribute__((section(".kconfig")));

SEC("xdp") int uses_kconfig(struct xdp_md *ctx) {
  return LINUX_KERNEL_VERSION > 1 ? XDP_PASS : XDP_DROP;
}

// Errors name the C source line from .BTF.ext, the pc and the reason.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=insns | FileCheck %s --check-prefix=INSNS
// RUN: not ebpf-gpu-cc %t.o 2>&1 | FileCheck %s
// INSNS: ; ctx->data = 0;
// CHECK: ebpf-gpu-cc: error: {{.*}}.o: program writes_ctx: refused by the verifier: line-info.c:[[@LINE+6]]: pc {{[0-9]+}}: the context is read-only: write of 4 bytes at offset 0 (valid_access(ctx, off=0) for write)

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp") int writes_ctx(struct xdp_md *ctx) {
  ctx->data = 0;
  return XDP_PASS;
}

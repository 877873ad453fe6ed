// bpf-to-bpf calls: global and static functions in .text are linked into
// the program once each, and each becomes its own LLVM function.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=insns | FileCheck %s --check-prefix=INSNS
// RUN: ebpf-gpu-cc %t.o --emit=llvm -O0 | FileCheck %s --check-prefix=IR
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 40
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --json | FileCheck %s --check-prefix=EXEC
// INSNS: program entry (section xdp,
// INSNS: entry:
// INSNS: call pc
// INSNS-DAG: {{^}}helper_global:
// INSNS-DAG: {{^}}helper_static:
// IR: define i64 @entry(
// IR-DAG: define internal i64 @helper_global(
// IR-DAG: define internal i64 @helper_static(
// Every frame is 60 bytes or more, so both checks hold and the result is XDP_TX.
// EXEC: "XDP_TX": {"packets": 40,

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

static __attribute__((noinline)) int helper_static(int len) { return len >= 60; }

__attribute__((noinline)) int helper_global(struct xdp_md *ctx) {
  return helper_static(ctx->data_end - ctx->data) + 1;
}

SEC("xdp") int entry(struct xdp_md *ctx) {
  return helper_global(ctx) + helper_static(ctx->data_end - ctx->data);
}

char LICENSE[] SEC("license") = "GPL";

// Global data: .data, .rodata and .bss become single-entry array maps;
// .rodata is a constant the optimiser folds, .data and .bss are writable
// globals the loader can find by name.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=maps | FileCheck %s --check-prefix=MAPS
// RUN: ebpf-gpu-cc %t.o --emit=llvm | FileCheck %s --check-prefix=IR
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 50
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --json | FileCheck %s --check-prefix=EXEC
// MAPS: .data: array key 4B value 8B max_entries 1
// MAPS: .rodata: array key 4B value 4B max_entries 1 flags 0x80
// MAPS: .bss: array key 4B value 8B max_entries 1
// IR-DAG: @ebpfgpu_data__data = {{.*}}global [8 x i8] c"\07\00\00\00\00\00\00\00", align 8
// IR-DAG: @ebpfgpu_data__bss = {{.*}}global [8 x i8] zeroinitializer, align 8
// The verdict comes from .rodata, folded to a constant.
// IR: ret i64 3
// EXEC: "XDP_TX": {"packets": 50,

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

__u64 seen = 7;
__u64 bytes;
const volatile __u32 verdict = XDP_TX;

SEC("xdp") int count(struct xdp_md *ctx) {
  seen++;
  bytes += ctx->data_end - ctx->data;
  return verdict;
}

// Loops on the GPU carry a guard: every 65,536th backward jump of a
// function's activation reads the loader's abort word (GpuAbi.h:
// EBPFGPU_ABORT_GLOBAL) and ends its thread (PTX exit) once it is set, so
// the loader can end a kernel that hangs (a verifier bug, an unverified
// program): cuCtxDestroy waits for ever on a kernel that never returns, and
// a trap would poison every CUDA context of the process. The host back end
// has no guard. The program's loop depends on the packet but the verifier
// bounds it (64 turns), and LLVM, seeing the count never reach 65,536,
// removes its guard: it costs nothing. A program that never returns
// (tests/stress/spin_forever.c) keeps it, and the persistent kernel's waits
// read the word in every XDP module.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=gpu-llvm -o %t.ll
// RUN: FileCheck %s --check-prefix=IR < %t.ll
// IR: @ebpfgpu_abort_word = {{.*}}global i64 0
// IR-LABEL: define {{.*}}@ebpfgpu_xdp_batch(
// IR-NOT: @ebpfgpu_abort_word
// IR-LABEL: define {{.*}}@ebpfgpu_xdp_persistent(
// IR: load volatile i64, ptr @ebpfgpu_abort_word
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: .visible .global .align 8 .u64 ebpfgpu_abort_word;
// PTX: ld.relaxed.sys.u32
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o --emit=llvm | FileCheck %s --check-prefix=HOST
// HOST-NOT: loop_guard
// RUN: %clang-bpf -c %S/../../stress/spin_forever.c -o %t.spin.o
// RUN: ebpf-gpu-cc %t.spin.o --no-verify --emit=gpu-llvm | FileCheck %s --check-prefix=SPIN
// SPIN: define {{.*}}@ebpfgpu_xdp_batch(
// SPIN: load volatile i64, ptr @ebpfgpu_abort_word
// SPIN: call void asm sideeffect "exit;"
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 20 --seed 9
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host | FileCheck %s --check-prefix=VERDICTS
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.o --pcap %t.pcap --backend gpu | FileCheck %s --check-prefix=VERDICTS %}
// VERDICTS-DAG: XDP_PASS
// VERDICTS-DAG: XDP_DROP
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp") int sum_bytes(struct xdp_md *ctx) {
  unsigned char *p = (unsigned char *)(long)ctx->data;
  unsigned char *end = (unsigned char *)(long)ctx->data_end;
  if (p + 14 > end)
    return XDP_ABORTED;
  unsigned n = p[12] & 63, sum = 0;
  for (unsigned i = 0; i < n && i < 64; i++) {
    if (p + i + 1 > end)
      break;
    sum += p[i];
  }
  return sum & 1 ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";

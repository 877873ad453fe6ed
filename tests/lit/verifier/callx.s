# callx (an indirect call) verifies when the analysis knows the target: it
# is then that helper's call, with its checks; an unknown target is refused.
# The kernel refuses every callx. (Raw platform: helper 5 returns its first
# argument, as in bpf_conformance.)
# RUN: %llvm-mc-bpf --defsym=CASE=1 %s -o %t1.o
# RUN: ebpf-gpu-cc --platform=raw --emit=llvm %t1.o | FileCheck %s --check-prefix=KNOWN
# KNOWN: call i64 @ebpfgpu_identity(
# RUN: %llvm-mc-bpf --defsym=CASE=2 %s -o %t2.o
# RUN: not ebpf-gpu-cc --platform=raw --mem-size=8 %t2.o 2>&1 | FileCheck %s --check-prefix=UNKNOWN
# UNKNOWN: pc 1: callx through r2 whose value is not a known helper id (indirect calls are allowed only to a known helper) (known_target(r2))
# RUN: %llvm-mc-bpf --defsym=CASE=3 %s -o %t3.o
# RUN: not ebpf-gpu-cc --platform=raw --mem-size=8 %t3.o 2>&1 | FileCheck %s --check-prefix=BRANCH
# BRANCH: pc 4: callx through r2 whose value is not a known helper id
# RUN: %llvm-mc-bpf --defsym=CASE=4 %s -o %t4.o
# RUN: not ebpf-gpu-cc --platform=raw %t4.o 2>&1 | FileCheck %s --check-prefix=NOHELPER
# NOHELPER: pc 1: bpf_trace_printk (helper 6) is not supported for raw programs

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
.if CASE == 1
  r1 = 7
  r2 = 5
  callx r2
  exit
.endif
.if CASE == 2
  r2 = *(u64 *)(r1 + 0)
  callx r2
  exit
.endif
.if CASE == 3
  # A target in a range [5, 6]: not one known helper.
  r2 = *(u8 *)(r1 + 0)
  r2 &= 1
  r2 += 5
  r1 = 1
  callx r2
  exit
.endif
.if CASE == 4
  r2 = 6
  callx r2
  exit
.endif
  .size entry, .-entry

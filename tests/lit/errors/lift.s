# Programs the lifter cannot lower safely are refused with pc and reason,
# also when the verifier is skipped (--no-verify): the lifter keeps its own
# checks (see tests/lit/verifier for what the verifier says of them).
# RUN: %llvm-mc-bpf --defsym=CASE=1 %s -o %t1.o
# RUN: not ebpf-gpu-cc --emit=llvm --no-verify --platform=raw %t1.o 2>&1 | FileCheck %s --check-prefix=STACK
# STACK: pc 0: stack access of 8 bytes at r10-520 is outside the frame (512 bytes below r10)
# RUN: %llvm-mc-bpf --defsym=CASE=2 %s -o %t2.o
# RUN: not ebpf-gpu-cc --emit=llvm --no-verify --platform=raw %t2.o 2>&1 | FileCheck %s --check-prefix=FALL
# FALL: pc 0: execution falls off the end of function entry
# RUN: %llvm-mc-bpf --defsym=CASE=3 %s -o %t3.o
# RUN: not ebpf-gpu-cc --emit=llvm --no-verify --platform=raw %t3.o 2>&1 | FileCheck %s --check-prefix=CALLX
# CALLX: pc 1: callx target r2 is not a known helper id
# RUN: %llvm-mc-bpf --defsym=CASE=4 %s -o %t4.o
# RUN: not ebpf-gpu-cc --emit=llvm --no-verify %t4.o 2>&1 | FileCheck %s --check-prefix=HELPER
# HELPER: pc 0: helper function 999 is not supported for xdp programs
# RUN: %llvm-mc-bpf --defsym=CASE=5 %s -o %t5.o
# RUN: not ebpf-gpu-cc --emit=llvm --no-verify %t5.o 2>&1 | FileCheck %s --check-prefix=CTX
# CTX: pc 0: invalid read of 4 bytes at context offset 24
# RUN: %llvm-mc-bpf --defsym=CASE=6 %s -o %t6.o
# RUN: not ebpf-gpu-cc --emit=llvm --no-verify %t6.o 2>&1 | FileCheck %s --check-prefix=LDABS
# LDABS: pc 0: legacy packet loads (ld_abs, ld_ind) are not allowed here

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
.if CASE == 1
  *(u64 *)(r10 - 520) = r1
  exit
.endif
.if CASE == 2
  r0 = 0
.endif
.if CASE == 3
  r2 = *(u64 *)(r1 + 0)
  callx r2
  exit
.endif
.if CASE == 4
  call 999
  exit
.endif
.if CASE == 5
  r0 = *(u32 *)(r1 + 24)
  exit
.endif
.if CASE == 6
  r0 = *(u8 *)skb[12]
  exit
.endif

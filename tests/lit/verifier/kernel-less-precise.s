# Programs found by tests/differential/random-programs.py (seeds 12, 99 and
# 2026) that only our verifier accepts: each is safe, and the
# kernel 6.18 refuses it because it explores a path that cannot run (or
# bounds an offset less tightly): after JSET its signed 32-bit bounds do not
# take in the cleared bits. Ours proves, in each, that the variable stack
# write is inside the frame or never reached. Kept so that the reasoning
# stays right (each must still verify, and its unsafe twin in ranges.s must
# not).
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=1 %s -o %t.1.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=2 %s -o %t.2.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=3 %s -o %t.3.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=4 %s -o %t.4.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=5 %s -o %t.5.o
# RUN: ebpf-gpu-cc %t.1.o --emit=verifier-log | FileCheck %s --check-prefix=ZERO
# ZERO: r7=0 r8=stack pointer frame0-64 r10
# ZERO: verified:
# RUN: ebpf-gpu-cc %t.2.o --emit=verifier-log | FileCheck %s
# RUN: ebpf-gpu-cc %t.3.o --emit=verifier-log | FileCheck %s
# RUN: ebpf-gpu-cc %t.4.o --emit=verifier-log | FileCheck %s
# RUN: ebpf-gpu-cc %t.5.o --emit=verifier-log | FileCheck %s --check-prefix=LOW
# LOW: r7=scalar(u0..63,s0..63) r8=stack pointer frame0-64+[0..63]
# LOW: verified:
# CHECK-NOT: r8 += r7
# CHECK: verified:

  .section xdp,"ax",@progbits
  .globl prog
  .type prog,@function
prog:
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r0 = 2
  r4 = r2
  r4 += 4
  if r4 > r3 goto out
.if CASE == 1
  # s32 in [-32768, 0] and bits 7-31 clear: the value is 0.
  r7 = *(u16 *)(r2 + 0)
  w7 = (s16)w7
  if w7 s> 0 goto out
  if w7 & -128 goto out
.endif
.if CASE == 2
  # In [-128, 127] with bits 6-31 clear is in [0, 63]: never below -1.
  r7 = *(u16 *)(r2 + 0)
  r7 = (s8)r7
  if w7 & -64 goto out
  if r7 s>= -1 goto out
.endif
.if CASE == 3
  # In [-128, 127]: never equal to INT32_MIN in the low half.
  r7 = *(u16 *)(r2 + 0)
  r7 = (s8)r7
  if w7 & 4 goto out
  if w7 s> -2147483648 goto out
.endif
.if CASE == 4
  # At least 255 and at most 127: impossible.
  r7 = *(u32 *)(r2 + 0)
  if r7 < 255 goto out
  if w7 & -128 goto out
.endif
.if CASE == 5
  # s32 in [-5, 250], bits 6-30 clear: the negative ones have them set, so
  # the value is in [0, 63].
  r7 = *(u8 *)(r2 + 0)
  w7 -= 5
  if r7 & 2147483584 goto out
.endif
  r8 = r10
  r8 += -64
  r8 += r7
  *(u8 *)(r8 + 0) = 1
out:
  r0 = 2
  exit
  .size prog, .-prog
  .section license,"aw",@progbits
  .asciz "GPL"

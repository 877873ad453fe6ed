# 64-bit arithmetic: each step folds into r0; a wrong operation changes it.
# ((1000 * 3 - 7) ^ 0xff | 0x100) & 0xfff = 0xb4e, negated.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: ebpf-gpu-cc --platform=raw %t.o --emit=insns | FileCheck %s --check-prefix=INSNS
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin "" --elf | FileCheck %s --check-prefix=EXEC
# INSNS: program entry (section prog, {{[0-9]+}} insns)
# INSNS: r0 = 1000
# INSNS: r0 *= r1
# INSNS: r0 -= 7
# INSNS: r0 ^= r2
# INSNS: r0 = -r0
# EXEC: {{^}}fffffffffffff4b2{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r0 = 1000
  r1 = 3
  r0 *= r1
  r0 -= 7
  r2 = 0xff
  r0 ^= r2
  r0 |= 0x100
  r0 &= 0xfff
  r0 += 0
  r0 = -r0
  exit

# 32-bit operations work on the low half and zero the upper half.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: ebpf-gpu-cc --platform=raw %t.o --emit=insns | FileCheck %s --check-prefix=INSNS
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin "" --elf | FileCheck %s --check-prefix=EXEC
# RUN: ebpf-gpu-cc --platform=raw %t.o --emit=llvm -O0 | FileCheck %s --check-prefix=IR
# INSNS: w0 += w1
# INSNS: w0 = -w0
# IR: trunc i64 {{.*}} to i32
# IR: zext i32 {{.*}} to i64
# 0xffffffff + 2 wraps to 1 in 32 bits, negated: 0xffffffff, upper half zero.
# EXEC: {{^}}ffffffff{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r0 = -1 ll
  w1 = 2
  w0 += w1
  w0 = -w0
  exit

# 64-bit immediates keep all 64 bits.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: ebpf-gpu-cc --platform=raw %t.o --emit=insns | FileCheck %s --check-prefix=INSNS
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin "" --elf | FileCheck %s
# INSNS: 0: r0 = 0x8000000000000001 ll
# INSNS-NEXT: 2: exit
# CHECK: {{^}}8000000000000001{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r0 = 0x8000000000000001 ll
  exit

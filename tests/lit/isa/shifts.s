# Shift amounts are masked (63 for 64-bit, 31 for 32-bit); arsh keeps the sign.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin "" --elf | FileCheck %s
# CHECK: {{^}}7{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r0 = 0
  r1 = 1
  r2 = 65
  r1 <<= r2
  if r1 != 2 goto bad
  r0 |= 1
  w3 = 0x80000000
  w4 = 33
  w3 s>>= w4
  if w3 != 0xc0000000 goto bad
  r0 |= 2
  r5 = -16
  r5 s>>= 2
  if r5 != -4 goto bad
  r0 |= 4
  exit
bad:
  r0 = 0xbad
  exit

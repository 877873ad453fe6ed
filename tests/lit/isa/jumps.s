# Every condition of JMP and JMP32, unsigned and signed, and gotol.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: ebpf-gpu-cc --platform=raw %t.o --emit=insns | FileCheck %s --check-prefix=INSNS
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin "" --elf | FileCheck %s
# INSNS: if r1 s< r2 goto
# INSNS: if w1 > w2 goto
# INSNS: if r1 & 4 goto
# INSNS: gotol
# CHECK: {{^}}3ff{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r0 = 0
  r1 = -1
  r2 = 1
  if r1 > r2 goto l1
  goto bad
l1:
  r0 |= 1
  if r1 s< r2 goto l2
  goto bad
l2:
  r0 |= 2
  if r1 >= r1 goto l3
  goto bad
l3:
  r0 |= 4
  if r1 s<= -1 goto l4
  goto bad
l4:
  r0 |= 8
  if r2 == 1 goto l5
  goto bad
l5:
  r0 |= 16
  if r2 != 2 goto l6
  goto bad
l6:
  r0 |= 32
  r1 = 0x100000004 ll
  r2 = 5
  if w1 > w2 goto bad
  r0 |= 64
  if r1 & 4 goto l7
  goto bad
l7:
  r0 |= 128
  if w1 s>= -3 goto l8
  goto bad
l8:
  r0 |= 256
  gotol l9
  goto bad
l9:
  r0 |= 512
  exit
bad:
  r0 = 0xbad
  exit

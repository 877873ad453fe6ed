# Sign-extending moves (v4) and sign-extending loads.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: ebpf-gpu-cc --platform=raw %t.o --emit=insns | FileCheck %s --check-prefix=INSNS
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin "" --elf | FileCheck %s
# INSNS: r1 = (s8)r2
# INSNS: w3 = (s16)w2
# INSNS: r5 = *(s16 *)(r10 - 8)
# CHECK: {{^}}7{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r0 = 0
  r2 = 0x1ff80
  r1 = (s8)r2
  if r1 != -128 goto bad
  r0 |= 1
  w3 = (s16)w2
  r4 = 0xffffff80 ll
  if r3 != r4 goto bad
  r0 |= 2
  *(u16 *)(r10 - 8) = r2
  r5 = *(s16 *)(r10 - 8)
  if r5 != -128 goto bad
  r0 |= 4
  exit
bad:
  r0 = 0xbad
  exit

# be/le conversions truncate to their width; bswap (v4) swaps unconditionally.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: ebpf-gpu-cc --platform=raw %t.o --emit=insns | FileCheck %s --check-prefix=INSNS
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin "" --elf | FileCheck %s
# INSNS: r1 = be16 r1
# INSNS: r2 = le32 r2
# INSNS: r3 = bswap64 r3
# CHECK: {{^}}7{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r0 = 0
  r1 = 0x11223344 ll
  r1 = be16 r1
  if r1 != 0x4433 goto bad
  r0 |= 1
  r2 = 0x1122334455667788 ll
  r2 = le32 r2
  if r2 != 0x55667788 goto bad
  r0 |= 2
  r3 = 0x0102030405060708 ll
  r3 = bswap64 r3
  r4 = 0x0807060504030201 ll
  if r3 != r4 goto bad
  r0 |= 4
  exit
bad:
  r0 = 0xbad
  exit

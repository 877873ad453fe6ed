# Loads and stores of every width on the input memory (r1) and the stack.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin 0102030405060708 --elf | FileCheck %s
# The stack frame is sized from what the program touches (16 bytes here).
# RUN: ebpf-gpu-cc --platform=raw --mem-size=8 %t.o --emit=llvm -O0 | FileCheck %s --check-prefix=IR
# IR: alloca [16 x i8]
# IR-NOT: alloca [512 x i8]
# CHECK: {{^}}102030405060708{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r0 = *(u64 *)(r1 + 0)
  *(u64 *)(r10 - 16) = r0
  r3 = *(u8 *)(r10 - 16)
  if r3 != 1 goto bad
  r3 = *(u16 *)(r10 - 15)
  if r3 != 0x302 goto bad
  r3 = *(u32 *)(r1 + 4)
  if r3 != 0x8070605 goto bad
  *(u32 *)(r10 - 8) = 0x7f
  *(u8 *)(r10 - 7) = r3
  r4 = *(u32 *)(r10 - 8)
  if r4 != 0x57f goto bad
  r1 = *(u16 *)(r1 + 6)
  if r1 != 0x807 goto bad
  r0 = be64 r0
  exit
bad:
  r0 = 0xbad
  exit

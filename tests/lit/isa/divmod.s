# RFC 9669 division: x/0 = 0, x%0 = x, signed INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0.
# The IR never divides by a value that could be zero.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin "" --elf | FileCheck %s
# RUN: ebpf-gpu-cc --platform=raw %t.o --emit=llvm -O0 | FileCheck %s --check-prefix=IR
# IR: icmp eq i64 %{{.*}}, 0
# IR: select i1 %{{.*}}, i64 1, i64 %{{.*}}
# IR: udiv i64
# IR: sdiv i64
# CHECK: {{^}}f{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r0 = 0
  r1 = 77
  r2 = 0
  r3 = r1
  r3 /= r2
  if r3 != 0 goto bad
  r0 |= 1
  r3 = r1
  r3 %= r2
  if r3 != 77 goto bad
  r0 |= 2
  r4 = -9223372036854775808 ll
  r5 = -1
  r6 = r4
  r6 s/= r5
  if r6 != r4 goto bad
  r0 |= 4
  r6 = r4
  r6 s%= r5
  if r6 != 0 goto bad
  r0 |= 8
  exit
bad:
  r0 = 0xbad
  exit

# bpf-to-bpf calls: each eBPF function is an LLVM function, arguments in
# r1-r5, result in r0, r6-r9 and the stack preserved across the call.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin "" --elf | FileCheck %s
# RUN: ebpf-gpu-cc --platform=raw %t.o --emit=llvm -O0 | FileCheck %s --check-prefix=IR
# IR: define i64 @entry(ptr %ctx, i64 %arg1, i64 %arg2, i64 %arg3, i64 %arg4, i64 %arg5)
# IR: call i64 @add3(
# IR: define internal i64 @add3(
# IR-NOT: indirectbr
# IR-NOT: blockaddress
# CHECK: {{^}}3f{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r6 = 100
  *(u64 *)(r10 - 8) = r6
  r1 = 1
  r2 = 2
  r3 = 3
  call add3
  r1 = *(u64 *)(r10 - 8)
  if r1 != 100 goto bad
  if r6 != 100 goto bad
  r0 += 57
  exit
bad:
  r0 = 0xbad
  exit

  .text
  .type add3,@function
add3:
  r0 = r1
  r0 += r2
  r0 += r3
  r6 = 0
  *(u64 *)(r10 - 8) = r6
  exit

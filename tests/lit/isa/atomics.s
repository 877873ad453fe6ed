# Atomic add/or/and/xor with and without fetch, xchg and cmpxchg, 32 and 64 bits.
# On the thread-private stack they are plain read-modify-writes (PTX leaves
# atomics on local memory undefined); on other memory, LLVM atomics.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: %tohex %t.o | ebpf-gpu-conformance-plugin 0100000000000000 --elf | FileCheck %s
# RUN: ebpf-gpu-cc --platform=raw --mem-size=8 %t.o --emit=llvm -O0 | FileCheck %s --check-prefix=IR
# RUN: ebpf-gpu-cc --platform=raw --mem-size=8 %t.o --emit=ptx | FileCheck %s --check-prefix=PTX
# IR: atomicrmw add ptr {{.*}} seq_cst
# IR-NOT: atomicrmw
# IR-NOT: cmpxchg ptr
# PTX: atom.{{(global.)?}}add.u64
# PTX-NOT: atom.
# CHECK: {{^}}3f{{$}}

  .section prog,"ax",@progbits
  .globl entry
  .type entry,@function
entry:
  r9 = r1
  r0 = 0
  r1 = 10
  *(u64 *)(r10 - 8) = r1
  r2 = 5
  lock *(u64 *)(r10 - 8) += r2
  r3 = *(u64 *)(r10 - 8)
  if r3 != 15 goto bad
  r0 |= 1
  r2 = 1
  r2 = atomic_fetch_add((u64 *)(r10 - 8), r2)
  if r2 != 15 goto bad
  r0 |= 2
  r2 = 0xf0
  r2 = xchg_64(r10 - 8, r2)
  if r2 != 16 goto bad
  r0 |= 4
  r5 = r0
  r0 = 0xf0
  r4 = 0x42
  r0 = cmpxchg_64(r10 - 8, r0, r4)
  r3 = *(u64 *)(r10 - 8)
  r0 = r5
  if r3 != 0x42 goto bad
  r0 |= 8
  w6 = 0x0f
  *(u32 *)(r10 - 16) = r6
  w7 = 0x3c
  w7 = atomic_fetch_xor((u32 *)(r10 - 16), w7)
  r3 = *(u32 *)(r10 - 16)
  if r3 != 0x33 goto bad
  if w7 != 0x0f goto bad
  r0 |= 16
  r2 = 0x10
  lock *(u64 *)(r9 + 0) += r2
  r3 = *(u64 *)(r9 + 0)
  if r3 != 0x11 goto bad
  r0 |= 32
  exit
bad:
  r0 = 0xbad
  exit

# Reading stack bytes the program never wrote: the kernel lets a privileged
# loader do it (allow_uninit_stack: the bytes read as an unknown value), and
# so does ebpf-gpu, which zeroes every frame, so the value here is always 0
# where the kernel's is whatever its stack held. The verifier log names
# each instruction that may read such bytes; the value stays unknown to the
# verifier (case 5: both refuse a packet offset made from it).
#   1. an 8-byte load of bytes never written
#   2. a load half written (4 bytes written, 8 read)
#   3. a variable-offset load (0..7 from the packet) over bytes never written
#   4. a helper reading a buffer never written (bpf_csum_diff's `from`)
#   5. the value read used as a packet offset without a check: refused
#   7. a subprogram reading what an earlier call's frame left there (the
#      kernel's frames of two calls from one caller share their stack)
# RUN: %llvm-mc-bpf --defsym=CASE=1 %s -o %t.1.o
# RUN: %llvm-mc-bpf --defsym=CASE=2 %s -o %t.2.o
# RUN: %llvm-mc-bpf --defsym=CASE=3 %s -o %t.3.o
# RUN: %llvm-mc-bpf --defsym=CASE=4 %s -o %t.4.o
# RUN: %llvm-mc-bpf --defsym=CASE=5 %s -o %t.5.o
# RUN: %llvm-mc-bpf --defsym=CASE=6 %s -o %t.6.o
# RUN: %llvm-mc-bpf --defsym=CASE=7 %s -o %t.7.o
# RUN: ebpf-gpu-cc %t.1.o --emit=verifier-log | FileCheck %s --check-prefix=C1
# C1: 1: r1 = *(u64 *)(r10 - 16)
# C1: verified:
# C1-NEXT: note: pc 1 reads stack bytes the program may not have written: zero here, whatever the kernel's stack held there
# C1-NOT: note:
# RUN: ebpf-gpu-cc %t.2.o --emit=verifier-log | FileCheck %s --check-prefix=C2
# C2: verified:
# C2-NEXT: note: pc 2 reads stack bytes
# RUN: ebpf-gpu-cc %t.3.o --emit=verifier-log | FileCheck %s --check-prefix=C3
# C3: verified:
# C3-NEXT: note: pc 11 reads stack bytes
# RUN: ebpf-gpu-cc %t.4.o --emit=verifier-log | FileCheck %s --check-prefix=C4
# C4: verified:
# C4-NEXT: note: pc 6 reads stack bytes
# RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=C5
# C5: pc 7: packet read of 1 bytes at offset 0 (after a variable offset) not proven within packet
# A program that writes what it reads gets no note (6: case 1 with the write).
# RUN: ebpf-gpu-cc %t.6.o --emit=verifier-log | FileCheck %s --check-prefix=W
# W: verified:
# W-NOT: note:
# The kernel accepts 1-4 as root and refuses 5.
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.1.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.2.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.3.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.4.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
# RUN: ebpf-gpu-trafgen -o %t.pcap --count 20 --seed 3
# `compare` tells such a difference from a fault: case 7 leaves 1 where the
# second call reads (PASS in the kernel), zero here (DROP).
# RUN: ebpf-gpu-cc %t.7.o --emit=verifier-log | FileCheck %s --check-prefix=C7
# C7: verified:
# C7-NEXT: note: pc 9 reads stack bytes
# RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.7.o --pcap %t.pcap | FileCheck %s --check-prefix=CMP %}
# CMP: prog: uninit-stack: host and kernel differ where the program reads stack bytes it may not have written (prog pc 9): zero on ebpf-gpu's back ends, whatever the kernel's stack held there; packet differs: host: 0 XDP_DROP {{[0-9]+}} / kernel: 0 XDP_PASS
# Here the bytes are zero: case 2's verdict is the low bit of its value + 1,
# DROP on every packet, and case 3's the same from its variable offset.
# RUN: ebpf-gpu-loader run %t.2.o --section xdp --backend host --pcap %t.pcap | FileCheck %s --check-prefix=ZERO
# RUN: ebpf-gpu-loader run %t.3.o --section xdp --backend host --pcap %t.pcap | FileCheck %s --check-prefix=ZERO
# RUN: ebpf-gpu-loader run %t.4.o --section xdp --backend host --pcap %t.pcap | FileCheck %s --check-prefix=ZERO
# RUN: ebpf-gpu-loader run %t.1.o --section xdp --backend host --pcap %t.pcap | FileCheck %s --check-prefix=PASS
# RUN: ebpf-gpu-loader run %t.6.o --section xdp --backend host --pcap %t.pcap | FileCheck %s --check-prefix=PASS
# ZERO: XDP_DROP 20
# PASS: XDP_PASS 20

  .section xdp,"ax",@progbits
  .globl prog
  .type prog,@function
prog:
.if CASE == 1
  r0 = 2
  r1 = *(u64 *)(r10 - 16)
  exit
.endif
.if CASE == 2
  r2 = 0
  *(u32 *)(r10 - 8) = r2
  r0 = *(u64 *)(r10 - 8)
  r0 >>= 32
  r0 &= 1
  r0 += 1
  exit
.endif
.if CASE == 3
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r4 = r2
  r4 += 1
  r0 = 2
  if r4 > r3 goto out3
  r5 = *(u8 *)(r2 + 0)
  r5 &= 7
  r6 = r10
  r6 += -16
  r6 += r5
  r0 = *(u8 *)(r6 + 0)
  r0 &= 1
  r0 += 1
out3:
  exit
.endif
.if CASE == 4
  r1 = r10
  r1 += -16
  r2 = 8
  r3 = 0
  r4 = 0
  r5 = 0
  call 28
  r0 &= 1
  r0 += 1
  exit
.endif
.if CASE == 5
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r4 = r2
  r4 += 1
  if r4 > r3 goto out5
  r5 = *(u8 *)(r10 - 8)
  r2 += r5
  r0 = *(u8 *)(r2 + 0)
out5:
  r0 = 2
  exit
.endif
.if CASE == 7
  call first
  call second
  r0 &= 1
  r0 += 1
  exit
.endif
.if CASE == 6
  r0 = 2
  r1 = 0
  *(u64 *)(r10 - 16) = r1
  r1 = *(u64 *)(r10 - 16)
  exit
.endif
  .size prog, .-prog

.if CASE == 7
  .text
  .type first,@function
first:
  r1 = 1
  *(u64 *)(r10 - 8) = r1
  r0 = 0
  exit
  .size first, .-first
  .type second,@function
second:
  r0 = *(u64 *)(r10 - 8)
  exit
  .size second, .-second
.endif

  .section license,"aw",@progbits
  .asciz "GPL"

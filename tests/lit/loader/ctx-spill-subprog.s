# The context pointer spilled to the stack survives a call to a sub-program
# that is given a pointer into the caller's stack but writes only its own
# frame (as a hash over a key on the caller's stack: Katran's jhash), and
# its reloads reach bpf_xdp_adjust_head as the context. The lifter once
# forgot every spill at such a call and refused the program ("argument 1 of
# xdp_adjust_head must be the context pointer"), which the kernel accepts.
# A sub-program that does write through its argument (second program) is
# refused by the verifier, as by the kernel: the context it overwrote is a
# scalar for the helper; and the lifter alone (--no-verify) forgets the slot.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: ebpf-gpu-cc %t.o --section spill_keep -o %t.gpu.o
# RUN: ebpf-gpu-trafgen -o %t.pcap --count 20 --seed 4
# RUN: ebpf-gpu-loader run %t.o --section spill_keep --pcap %t.pcap --backend host | FileCheck %s
# RUN: not ebpf-gpu-cc %t.o --section spill_lost -o %t.lost.gpu.o 2>&1 | FileCheck %s --check-prefix=LOST
# RUN: not ebpf-gpu-cc %t.o --section spill_lost --no-verify -o %t.lost.gpu.o 2>&1 | FileCheck %s --check-prefix=LIFTER
# RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
# RUN:   --pcap %t.pcap --work %t.d %t.o:spill_keep | FileCheck %s --check-prefix=KERNEL %}
# CHECK: XDP_PASS 20
# LOST: refused by the verifier: pc 6: bpf_xdp_adjust_head argument 1 (r1) must be the context pointer, is a scalar
# LIFTER: pc 6: argument 1 of xdp_adjust_head must be the context pointer
# KERNEL: spill_keep: 20 packets, host and kernel agree

  .section xdp,"ax",@progbits
  .globl spill_keep
  .type spill_keep,@function
spill_keep:
  *(u64 *)(r10 - 8) = r1
  r2 = 7
  *(u64 *)(r10 - 16) = r2
  r1 = r10
  r1 += -16
  call mix
  r6 = r0
  r1 = *(u64 *)(r10 - 8)
  r2 = -4
  call 44
  if r0 != 0 goto keep_bad
  r1 = *(u64 *)(r10 - 8)
  r2 = 4
  call 44
  if r0 != 0 goto keep_bad
  if r6 != 14 goto keep_bad
  r0 = 2
  exit
keep_bad:
  r0 = 0
  exit
  .size spill_keep, .-spill_keep

  .globl spill_lost
  .type spill_lost,@function
spill_lost:
  *(u64 *)(r10 - 8) = r1
  r1 = r10
  r1 += -8
  call clobber
  r1 = *(u64 *)(r10 - 8)
  r2 = -4
  call 44
  r0 = 2
  exit
  .size spill_lost, .-spill_lost

  .text
  .type mix,@function
mix:
  r0 = *(u64 *)(r1 + 0)
  r0 += 7
  exit
  .size mix, .-mix

  .type clobber,@function
clobber:
  r2 = 0
  *(u64 *)(r1 + 0) = r2
  r0 = 0
  exit
  .size clobber, .-clobber

  .section license,"aw",@progbits
  .asciz "GPL"

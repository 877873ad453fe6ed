# Pruning compares only "precise" scalars, those whose bounds decided a
# check or a branch on the paths already explored. Each program here has a
# first path that is safe and a second one that is not, and reaches a join
# point where the second path would be pruned if precision missed the
# scalar that matters: through registers, a stack spill, a decided branch,
# a subprogram's argument, and a copy linked to a compared scalar (its
# link must hold in the pruned state too). Each is refused by our verifier
# and by the kernel's; each is accepted by ours when precision is broken.
# RUN: %llvm-mc-bpf --defsym=CASE=1 %s -o %t.1.o
# RUN: %llvm-mc-bpf --defsym=CASE=2 %s -o %t.2.o
# RUN: %llvm-mc-bpf --defsym=CASE=3 %s -o %t.3.o
# RUN: %llvm-mc-bpf --defsym=CASE=4 %s -o %t.4.o
# RUN: %llvm-mc-bpf --defsym=CASE=5 %s -o %t.5.o
# RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=REG
# REG: pc 13: stack write of 1 bytes at r10+0 is outside the 512-byte frame (valid_access(stack, off=0, width=1))
# RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=SPILL
# SPILL: pc 15: stack write of 1 bytes at r10+0 is outside the 512-byte frame (valid_access(stack, off=0, width=1))
# RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=DECIDED
# DECIDED: pc 12: stack write of 8 bytes at r10-520 is outside the 512-byte frame (valid_access(stack, off=-520, width=8))
# RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=CALL
# CALL: pc 17: stack write of 1 bytes at r10+0 is outside the 512-byte frame (valid_access(stack, off=0, width=1))
# RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=LINKED
# LINKED: pc 18: stack write of 1 bytes at r10-32 is outside the 512-byte frame (valid_access(stack, off=-32, width=1))
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}

  .section xdp,"ax",@progbits
  .globl prog
  .type prog,@function
prog:
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r0 = 2
  r4 = r2
  r4 += 2
  if r4 > r3 goto out
.if CASE == 1
  # r5 moves a stack pointer: [0,31] is safe, [32,255] is not.
  r5 = *(u8 *)(r2 + 0)
  if r5 > 31 goto join
  r0 = 1
join:
  r0 = 2
  r1 = r10
  r1 += -32
  r1 += r5
  *(u8 *)(r1 + 0) = 0
.endif
.if CASE == 2
  # The same offset, spilled before the join and filled after it.
  r5 = *(u8 *)(r2 + 0)
  if r5 > 31 goto big
  *(u64 *)(r10 - 8) = r5
  goto join
big:
  *(u64 *)(r10 - 8) = r5
join:
  r6 = *(u64 *)(r10 - 8)
  r1 = r10
  r1 += -32
  r1 += r6
  *(u8 *)(r1 + 0) = 0
.endif
.if CASE == 3
  # A constant decides a branch on the first path only.
  r5 = 0
  r6 = *(u8 *)(r2 + 0)
  if r6 > 7 goto other
  goto join
other:
  r5 = 1
join:
  if r5 == 0 goto out
  *(u64 *)(r10 - 520) = r5
.endif
.if CASE == 4
  # The offset is a subprogram's argument.
  r5 = *(u8 *)(r2 + 0)
  if r5 > 31 goto join
  r0 = 1
join:
  r1 = r5
  call sub
  r0 = 2
.endif
.if CASE == 5
  # r6 is bounded through its copy r5 on the first path only.
  r5 = *(u8 *)(r2 + 0)
  r7 = *(u8 *)(r2 + 1)
  if r7 > 100 goto other
  r6 = r5
  goto join
other:
  r8 = r7
  r8 &= 63
  r6 = r8
join:
  if r5 > 31 goto out
  r1 = r10
  r1 += -32
  r1 += r6
  *(u8 *)(r1 + 0) = 0
.endif
out:
  r0 = 2
  exit
  .size prog, .-prog

.if CASE == 4
  .text
  .type sub,@function
sub:
  r2 = r10
  r2 += -32
  r2 += r1
  *(u8 *)(r2 + 0) = 0
  r0 = 0
  exit
  .size sub, .-sub
.endif

  .section license,"aw",@progbits
  .asciz "GPL"

# Unsafe programs, one per CASE: each is refused by our verifier with its
# reason and obligation, and (where the kernel can be asked) by the Linux
# kernel's verifier too.
# RUN: %llvm-mc-bpf --defsym=CASE=1 %s -o %t.1.o
# RUN: %llvm-mc-bpf --defsym=CASE=2 %s -o %t.2.o
# RUN: %llvm-mc-bpf --defsym=CASE=3 %s -o %t.3.o
# RUN: %llvm-mc-bpf --defsym=CASE=4 %s -o %t.4.o
# RUN: %llvm-mc-bpf --defsym=CASE=5 %s -o %t.5.o
# RUN: %llvm-mc-bpf --defsym=CASE=6 %s -o %t.6.o
# RUN: %llvm-mc-bpf --defsym=CASE=7 %s -o %t.7.o
# RUN: %llvm-mc-bpf --defsym=CASE=8 %s -o %t.8.o
# RUN: %llvm-mc-bpf --defsym=CASE=9 %s -o %t.9.o
# RUN: %llvm-mc-bpf --defsym=CASE=10 %s -o %t.10.o
# RUN: %llvm-mc-bpf --defsym=CASE=11 %s -o %t.11.o
# RUN: %llvm-mc-bpf --defsym=CASE=12 %s -o %t.12.o
# RUN: %llvm-mc-bpf --defsym=CASE=13 %s -o %t.13.o
# RUN: %llvm-mc-bpf --defsym=CASE=14 %s -o %t.14.o
# RUN: %llvm-mc-bpf --defsym=CASE=15 %s -o %t.15.o
# RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=OOB
# OOB: pc 5: packet read of 1 bytes at offset 14 not proven within packet (have 14) (valid_access(r2.offset+14, width=1) for read)
# RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=NOCHECK
# NOCHECK: pc 2: packet read of 2 bytes at offset 12 not proven within packet (have 0)
# RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=STACKREADOOB
# STACKREADOOB: pc 1: stack read of 8 bytes at r10-528 is outside the 512-byte frame (valid_access(stack, off=-528, width=8))
# RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=LOOP
# LOOP: pc 1: infinite loop: pc 1 is reached again in the same state (terminates)
# RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=UNBOUNDED
# UNBOUNDED: the analysis budget of 1000000 instructions is exhausted: a loop is not proven to end, or the program is too complex (bounded_loop_count)
# RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=CTX
# CTX: pc 0: invalid context access: read of 4 bytes at offset 24 (valid_access(ctx, off=24, width=4))
# RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=UNINITREG
# UNINITREG: pc 0: r5 is read before it is written (initialized(r5))
# RUN: not ebpf-gpu-cc %t.8.o 2>&1 | FileCheck %s --check-prefix=STACKOOB
# STACKOOB: pc 1: stack write of 8 bytes at r10-520 is outside the 512-byte frame (valid_access(stack, off=-520, width=8))
# RUN: not ebpf-gpu-cc %t.9.o 2>&1 | FileCheck %s --check-prefix=LEAK
# LEAK: pc 1: pointer leak: r0 is a packet pointer at exit (no_pointer_leak(r0))
# RUN: not ebpf-gpu-cc %t.10.o 2>&1 | FileCheck %s --check-prefix=HELPER
# HELPER: pc 3: bpf_map_lookup_elem argument 1 (r1) must be a map reference, is a scalar (type(r1) == map)
# RUN: not ebpf-gpu-cc %t.11.o 2>&1 | FileCheck %s --check-prefix=UNREACH
# UNREACH: pc 2: unreachable instruction (reachable)
# RUN: not ebpf-gpu-cc %t.12.o 2>&1 | FileCheck %s --check-prefix=ARITH
# ARITH: pc 0: operation on a pointer (r1, ctx) is not allowed (pointer_arithmetic)
# RUN: not ebpf-gpu-cc %t.13.o 2>&1 | FileCheck %s --check-prefix=FALL
# FALL: pc 0: execution falls off the end of the program (terminates_with(exit))
# RUN: not ebpf-gpu-cc %t.14.o 2>&1 | FileCheck %s --check-prefix=VAROFF
# VAROFF: pc 11: packet read through r2, whose variable offset may be negative (-128..127) (nonnegative(r2.offset))
# RUN: not ebpf-gpu-cc %t.15.o 2>&1 | FileCheck %s --check-prefix=SCALARBASE
# SCALARBASE: pc 6: read through r4, which is a scalar, not a pointer to memory (valid_access(r4))
# The kernel refuses them too; as root it allows returning a pointer (9),
# which ebpf-gpu refuses for everyone. (Reading stack bytes never written,
# which root may: uninit-stack.s.)
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.8.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.10.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.11.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.12.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.13.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.14.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.15.o %}

  .section xdp,"ax",@progbits
  .globl prog
  .type prog,@function
prog:
.if CASE == 1
  # Checks 14 bytes, reads the 15th.
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r4 = r2
  r4 += 14
  if r4 > r3 goto out
  r0 = *(u8 *)(r2 + 14)
out:
  r0 = 2
  exit
.endif
.if CASE == 2
  # No bounds check at all.
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r0 = *(u16 *)(r2 + 12)
  exit
.endif
.if CASE == 3
  r0 = 0
  r1 = *(u64 *)(r10 - 528)
  exit
.endif
.if CASE == 4
  r0 = 0
spin:
  goto spin
.endif
.if CASE == 5
  r0 = 0
  r1 = 0
again:
  r1 += 1
  if r1 != 0 goto again
  exit
.endif
.if CASE == 6
  r0 = *(u32 *)(r1 + 24)
  exit
.endif
.if CASE == 7
  r0 = r5
  exit
.endif
.if CASE == 8
  r2 = 1
  *(u64 *)(r10 - 520) = r2
  r0 = 2
  exit
.endif
.if CASE == 9
  r0 = *(u32 *)(r1 + 0)
  exit
.endif
.if CASE == 10
  r2 = r10
  r2 += -8
  r1 = 7
  call 1
  r0 = 2
  exit
.endif
.if CASE == 11
  r0 = 2
  exit
  r0 = 1
  exit
.endif
.if CASE == 12
  r1 *= 2
  r0 = 2
  exit
.endif
.if CASE == 13
  r0 = 2
.endif
.if CASE == 14
  # A signed byte from the packet moves the packet pointer: maybe backwards.
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r4 = r2
  r4 += 1
  if r4 > r3 goto out14
  r5 = *(u8 *)(r2 + 0)
  r5 = (s8)r5
  r2 += r5
  r4 = r2
  r4 += 1
  if r4 > r3 goto out14
  r0 = *(u8 *)(r2 + 0)
out14:
  r0 = 2
  exit
.endif
.if CASE == 15
  # Eight packet bytes as an address: an unknown scalar (bounds up to
  # INT64_MAX), read at +8. fuzz_verifier found the bounds of such a base
  # added to the offset (a signed overflow, UBSan) before its kind was
  # checked.
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r4 = r2
  r4 += 8
  if r4 > r3 goto out15
  r4 = *(u64 *)(r2 + 0)
  r0 = *(u8 *)(r4 + 8)
out15:
  r0 = 2
  exit
.endif

  .size prog, .-prog

  .section license,"aw",@progbits
  .asciz "GPL"

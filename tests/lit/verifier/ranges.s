# Range refinement as the kernel's: JSET (both outcomes, and decided by
# known bits), signed and unsigned JMP32 with 32-bit subregister bounds kept
# beside the 64-bit ones, comparisons with a bounded register, known bits
# (tnums) through AND, OR and shifts, a 32-bit packet length, signed and unsigned
# ranges narrowing each other across 0. Cases 1-8 are safe and accepted (the
# kernel accepts them; before these refinements ours refused 1-5, 7 and 8);
# cases 11-20 are the unsafe counterparts, refused here and by the
# kernel.
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=1 %s -o %t.1.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=2 %s -o %t.2.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=3 %s -o %t.3.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=4 %s -o %t.4.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=5 %s -o %t.5.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=6 %s -o %t.6.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=7 %s -o %t.7.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=8 %s -o %t.8.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=11 %s -o %t.11.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=12 %s -o %t.12.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=13 %s -o %t.13.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=14 %s -o %t.14.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=15 %s -o %t.15.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=16 %s -o %t.16.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=17 %s -o %t.17.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=18 %s -o %t.18.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=19 %s -o %t.19.o
# RUN: %llvm-mc-bpf -mattr=+alu32 --defsym=CASE=20 %s -o %t.20.o
# RUN: ebpf-gpu-cc %t.1.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.2.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.3.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.4.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.5.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.6.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.7.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.8.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# OK: verified:
# RUN: not ebpf-gpu-cc %t.11.o 2>&1 | FileCheck %s --check-prefix=U11
# U11: pc 12: stack write of 1 bytes at r10-63 is outside the 512-byte frame (valid_access(stack, off=-63, width=1))
# RUN: not ebpf-gpu-cc %t.12.o 2>&1 | FileCheck %s --check-prefix=U12
# U12: pc 11: stack write of 1 bytes at r10-64 is outside the 512-byte frame (valid_access(stack, off=-64, width=1))
# RUN: not ebpf-gpu-cc %t.13.o 2>&1 | FileCheck %s --check-prefix=U13
# U13: pc 12: offset added to r3 (stack pointer) is unbounded
# RUN: not ebpf-gpu-cc %t.14.o 2>&1 | FileCheck %s --check-prefix=U14
# U14: pc 11: offset added to r3 (stack pointer) is unbounded
# RUN: not ebpf-gpu-cc %t.15.o 2>&1 | FileCheck %s --check-prefix=U15
# U15: pc 11: offset added to r3 (stack pointer) is unbounded
# RUN: not ebpf-gpu-cc %t.16.o 2>&1 | FileCheck %s --check-prefix=U16
# U16: pc 14: stack write of 1 bytes at r10-64 is outside the 512-byte frame (valid_access(stack, off=-64, width=1))
# RUN: not ebpf-gpu-cc %t.17.o 2>&1 | FileCheck %s --check-prefix=U17
# U17: pc 14: stack write of 1 bytes at r10-64 is outside the 512-byte frame (valid_access(stack, off=-64, width=1))
# RUN: not ebpf-gpu-cc %t.18.o 2>&1 | FileCheck %s --check-prefix=U18
# U18: pc 12: offset added to r3 (stack pointer) is unbounded
# RUN: not ebpf-gpu-cc %t.19.o 2>&1 | FileCheck %s --check-prefix=U19
# U19: offset added to r3 (stack pointer) is unbounded
# RUN: not ebpf-gpu-cc %t.20.o 2>&1 | FileCheck %s --check-prefix=U20
# U20: is outside the 512-byte frame
# RUN: %if kernel-bpf %{ bpftool prog load %t.1.o /sys/fs/bpf/ebpf_gpu_lit_ranges_1 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_ranges_1 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.2.o /sys/fs/bpf/ebpf_gpu_lit_ranges_2 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_ranges_2 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.3.o /sys/fs/bpf/ebpf_gpu_lit_ranges_3 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_ranges_3 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.4.o /sys/fs/bpf/ebpf_gpu_lit_ranges_4 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_ranges_4 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.5.o /sys/fs/bpf/ebpf_gpu_lit_ranges_5 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_ranges_5 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.6.o /sys/fs/bpf/ebpf_gpu_lit_ranges_6 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_ranges_6 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.7.o /sys/fs/bpf/ebpf_gpu_lit_ranges_7 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_ranges_7 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.8.o /sys/fs/bpf/ebpf_gpu_lit_ranges_8 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_ranges_8 %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.11.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.12.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.13.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.14.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.15.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.16.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.17.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.18.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.19.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.20.o %}

  .section xdp,"ax",@progbits
  .globl prog
  .type prog,@function
prog:
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r0 = 2
  r4 = r2
  r4 += 16
  if r4 > r3 goto out
  r1 = *(u8 *)(r2 + 0)
.if CASE == 1
  # JSET not taken: no bit above 63 is set.
  if r1 & -64 goto out
.endif
.if CASE == 2
  # JSET decided by known bits: bit 2 of (b & 3) is clear.
  r1 &= 3
  if r1 & 4 goto bad
.endif
.if CASE == 3
  # Signed 32-bit compares of a 32-bit value.
  w1 = *(u32 *)(r2 + 4)
  if w1 s< 0 goto out
  if w1 s> 40 goto out
.endif
.if CASE == 4
  # A 32-bit compare of a 64-bit value, then its low half.
  r1 = *(u64 *)(r2 + 8)
  if w1 > 63 goto out
  w1 = w1
.endif
.if CASE == 5
  # Compared with a bounded variable.
  r5 = *(u8 *)(r2 + 1)
  r5 &= 63
  if r1 >= r5 goto out
.endif
.if CASE == 6
  # Known bits through shifts and OR: ((b & 3) << 4) | (c >> 4) <= 63.
  r1 &= 3
  r1 <<= 4
  r5 = *(u8 *)(r2 + 1)
  r5 >>= 4
  r1 |= r5
.endif
.if CASE == 7
  # A packet length in 32 bits (clang -mcpu=v3: (int)(data_end - data)).
  w3 -= w2
  if w3 > 63 goto out
  w1 = w3
.endif
.if CASE == 8
  # A signed range across 0 meets an unsigned one at its negative end only:
  # (s8)b >= 128 unsigned is in [-128, -1]; plus 64 is in [-64, 63].
  r1 = (s8)r1
  if r1 < 128 goto out
  r1 += 64
.endif
.if CASE == 11
  # JSET taken says only that some of the bits is set.
  if r1 & 192 goto use
  goto out
use:
.endif
.if CASE == 12
  # JSET not taken clears bit 6 only: up to 191.
  if r1 & 64 goto out
.endif
.if CASE == 13
  # Signed 32-bit compares of a 64-bit value bound its low half only.
  r1 = *(u64 *)(r2 + 8)
  if w1 s< 0 goto out
  if w1 s> 40 goto out
.endif
.if CASE == 14
  # An unsigned 32-bit compare of a 64-bit value, used as 64 bits.
  r1 = *(u64 *)(r2 + 8)
  if w1 > 63 goto out
.endif
.if CASE == 15
  # Only an upper signed bound: negative values remain.
  w1 = *(u32 *)(r2 + 4)
  if w1 s> 40 goto out
.endif
.if CASE == 16
  # Known bits through OR: (b & 0x30) | (c & 0x4f) may be 127.
  r1 &= 48
  r5 = *(u8 *)(r2 + 1)
  r5 &= 79
  r1 |= r5
.endif
.if CASE == 17
  # r1 <= r5 (not <) with r5 up to 64.
  r5 = *(u8 *)(r2 + 1)
  r5 &= 127
  if r5 > 64 goto out
  if r1 > r5 goto out
.endif
.if CASE == 20
  # (s8)b >= 100 unsigned is in [100, 127] or [-128, -1].
  r1 = (s8)r1
  if r1 < 100 goto out
  r1 += 64
.endif
.if CASE == 19
  # A 32-bit packet length is not bounded by itself.
  w3 -= w2
  r1 = r3
.endif
.if CASE == 18
  # The other side of an unsigned 32-bit compare.
  w1 = *(u32 *)(r2 + 4)
  if w1 > 40 goto low
  goto out
low:
.endif
  # A write at r10 - 64 + r1: inside the frame for r1 in 0..63.
  r3 = r10
  r3 += -64
  r3 += r1
  *(u8 *)(r3 + 0) = 0
out:
  r0 = 2
  exit
.if CASE == 2
bad:
  r0 = r9
  exit
.endif
  .size prog, .-prog
  .section license,"aw",@progbits
  .asciz "GPL"

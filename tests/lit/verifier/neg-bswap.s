# BPF_NEG and BPF_END keep what is known of a scalar, as this kernel's
# verifier does (6.18: a negation is 0 - x, its bounds and known bits; a
# byte swap moves the known bits with their bytes; a conversion to little
# endian on this little-endian machine keeps the low 16, 32 or 64 bits).
# Each case bounds a packet offset to 0..31 through the operation, then
# reads the byte there after a check: ours refused cases 1, 2, 4 and 6
# before (a negation gave an unknown scalar, le16 0..0xffff) and took 3, 5
# and 7 through coarser bounds (0..0xffff shifted), the kernel all. Cases
# 11-14 are what both refuse: a negative offset after one negation, a
# 64-bit byte swap (the bytes go high), a 16-bit conversion of an unbounded
# u16 (0..0xffff reaches MAX_PACKET_OFF), and a signed division, which
# neither tracks.
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=1 %s -o %t.1.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=2 %s -o %t.2.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=3 %s -o %t.3.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=4 %s -o %t.4.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=5 %s -o %t.5.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=6 %s -o %t.6.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=7 %s -o %t.7.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=11 %s -o %t.11.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=12 %s -o %t.12.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=13 %s -o %t.13.o
# RUN: %llvm-mc-bpf -mcpu=v4 --defsym=CASE=14 %s -o %t.14.o
# RUN: ebpf-gpu-cc %t.1.o --emit=verifier-log | FileCheck %s --check-prefix=NEG64
# (The log shows each instruction with the state it starts from.)
# NEG64: 9: r5 = -r5
# NEG64-NEXT: {{.*}} r5=scalar(u0..18446744073709551615,s-31..0)
# NEG64: 10: r2 += r5
# NEG64-NEXT: {{.*}} r5=scalar(u0..31,s0..31)
# NEG64: verified:
# RUN: ebpf-gpu-cc %t.2.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.3.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.4.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.5.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.6.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.7.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# OK: verified:
# RUN: not ebpf-gpu-cc %t.11.o 2>&1 | FileCheck %s --check-prefix=U11
# U11: pc 13: packet read through r2, whose variable offset may be negative (-31..0)
# RUN: not ebpf-gpu-cc %t.12.o 2>&1 | FileCheck %s --check-prefix=U12
# U12: pc 9: offset added to r2 (packet pointer) is unbounded
# RUN: not ebpf-gpu-cc %t.13.o 2>&1 | FileCheck %s --check-prefix=U13
# U13: pc 12: packet read of 1 bytes at offset 0 (after a variable offset) not proven within packet
# RUN: not ebpf-gpu-cc %t.14.o 2>&1 | FileCheck %s --check-prefix=U14
# U14: pc 9: offset added to r2 (packet pointer) is unbounded (r5 = scalar)
# RUN: %if kernel-neg-bswap %{ bpftool prog load %t.1.o /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_1 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_1 %}
# RUN: %if kernel-neg-bswap %{ bpftool prog load %t.2.o /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_2 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_2 %}
# RUN: %if kernel-neg-bswap %{ bpftool prog load %t.3.o /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_3 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_3 %}
# RUN: %if kernel-neg-bswap %{ bpftool prog load %t.4.o /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_4 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_4 %}
# RUN: %if kernel-neg-bswap %{ bpftool prog load %t.5.o /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_5 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_5 %}
# RUN: %if kernel-neg-bswap %{ bpftool prog load %t.6.o /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_6 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_6 %}
# RUN: %if kernel-neg-bswap %{ bpftool prog load %t.7.o /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_7 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_neg_bswap_7 %}
# The accepted cases run the kernel's way on every packet (on a kernel
# whose verifier tracks these operations: feature kernel-neg-bswap).
# RUN: ebpf-gpu-trafgen -o %t.pcap --count 50 --seed 4
# RUN: %if kernel-neg-bswap %{ ebpf-gpu-loader compare %t.1.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-neg-bswap %{ ebpf-gpu-loader compare %t.2.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-neg-bswap %{ ebpf-gpu-loader compare %t.3.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-neg-bswap %{ ebpf-gpu-loader compare %t.4.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-neg-bswap %{ ebpf-gpu-loader compare %t.5.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-neg-bswap %{ ebpf-gpu-loader compare %t.6.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-neg-bswap %{ ebpf-gpu-loader compare %t.7.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# SAME: prog: both: 50 packets, host and kernel agree
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.11.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.12.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.13.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.14.o %}

  .section xdp,"ax",@progbits
  .globl prog
  .type prog,@function
prog:
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r0 = 2
  r4 = r2
  r4 += 64
  if r4 > r3 goto out
.if CASE == 13
  r5 = *(u16 *)(r2 + 0)
.else
  r5 = *(u8 *)(r2 + 0)
  r5 &= 31
.endif
.if CASE == 1
  r5 = -r5
  r5 = -r5
.endif
.if CASE == 2
  w5 = -w5
  w5 = -w5
.endif
.if CASE == 3
  r5 = be16 r5
  r5 >>= 8
.endif
.if CASE == 4
  r5 = le16 r5
.endif
.if CASE == 5
  r5 = be32 r5
  r5 >>= 24
.endif
.if CASE == 6
  r5 = -r5
  r5 += 31
.endif
.if CASE == 7
  r5 = bswap16 r5
  r5 >>= 8
.endif
.if CASE == 11
  r5 = -r5
.endif
.if CASE == 12
  r5 = bswap64 r5
.endif
.if CASE == 13
  r5 = le16 r5
.endif
.if CASE == 14
  r5 s/= 2
.endif
  r2 += r5
  r4 = r2
  r4 += 1
  if r4 > r3 goto out
  r0 = *(u8 *)(r2 + 0)
out:
  exit
  .size prog, .-prog

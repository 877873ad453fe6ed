# Packet bytes proven by a strict comparison with data_end, as the kernel's
# find_good_pkt_pointers with range_right_open: after `ptr + 8 < end` (in
# any of its four spellings: ptr < end taken, ptr >= end not taken, end >
# ptr taken, end <= ptr not taken) the byte at ptr + 8 is in the packet too,
# 9 bytes in all; the same for data_meta against data. Found by
# tests/differential/rich-programs.py (seed 31: 11 of 3,000 programs, every
# one `if r4 >= r8 goto` then a read of its last byte; docs/VERIFIER.md).
# Cases 1-5 are accepted by both verifiers (ours refused them before);
# 11-15 are the near misses both refuse: one byte more, the non-strict
# comparison, and a strict one at offset 0, from which the kernel learns
# nothing (and so ours neither). Case 16: a check of a pointer past
# MAX_PACKET_OFF (0xffff) proves nothing in the kernel; ours accepted it
# before.
# RUN: %llvm-mc-bpf --defsym=CASE=1 %s -o %t.1.o
# RUN: %llvm-mc-bpf --defsym=CASE=2 %s -o %t.2.o
# RUN: %llvm-mc-bpf --defsym=CASE=3 %s -o %t.3.o
# RUN: %llvm-mc-bpf --defsym=CASE=4 %s -o %t.4.o
# RUN: %llvm-mc-bpf --defsym=CASE=5 %s -o %t.5.o
# RUN: %llvm-mc-bpf --defsym=CASE=11 %s -o %t.11.o
# RUN: %llvm-mc-bpf --defsym=CASE=12 %s -o %t.12.o
# RUN: %llvm-mc-bpf --defsym=CASE=13 %s -o %t.13.o
# RUN: %llvm-mc-bpf --defsym=CASE=14 %s -o %t.14.o
# RUN: %llvm-mc-bpf --defsym=CASE=15 %s -o %t.15.o
# RUN: %llvm-mc-bpf --defsym=CASE=16 %s -o %t.16.o
# RUN: ebpf-gpu-cc %t.1.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.2.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.3.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.4.o --emit=verifier-log | FileCheck %s --check-prefix=OK
# RUN: ebpf-gpu-cc %t.5.o --emit=verifier-log | FileCheck %s --check-prefix=META
# OK: pkt_range id0:9
# OK: verified:
# META: verified:
# RUN: not ebpf-gpu-cc %t.11.o 2>&1 | FileCheck %s --check-prefix=U11
# U11: pc 6: packet read of 2 bytes at offset 8 not proven within packet (have 9) (valid_access(r2.offset+8, width=2) for read)
# RUN: not ebpf-gpu-cc %t.12.o 2>&1 | FileCheck %s --check-prefix=U12
# U12: pc 6: packet read of 1 bytes at offset 8 not proven within packet (have 8) (valid_access(r2.offset+8, width=1) for read)
# RUN: not ebpf-gpu-cc %t.13.o 2>&1 | FileCheck %s --check-prefix=U13
# U13: pc 5: packet read of 1 bytes at offset 0 not proven within packet (have 0) (valid_access(r2.offset+0, width=1) for read)
# RUN: not ebpf-gpu-cc %t.14.o 2>&1 | FileCheck %s --check-prefix=U14
# U14: pc 7: packet read of 2 bytes at offset 8 not proven within packet (have 9) (valid_access(r2.offset+8, width=2) for read)
# RUN: not ebpf-gpu-cc %t.15.o 2>&1 | FileCheck %s --check-prefix=U15
# U15: pc 7: metadata read of 2 bytes at offset 8 not proven within the metadata (have 9) (valid_access(meta, width=2))
# RUN: not ebpf-gpu-cc %t.16.o 2>&1 | FileCheck %s --check-prefix=U16
# U16: pc 6: packet read of 1 bytes at offset 0 not proven within packet (have 0) (valid_access(r2.offset+0, width=1) for read)
# RUN: %if kernel-bpf %{ bpftool prog load %t.1.o /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_1 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_1 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.2.o /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_2 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_2 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.3.o /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_3 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_3 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.4.o /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_4 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_4 %}
# RUN: %if kernel-bpf %{ bpftool prog load %t.5.o /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_5 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_pkt_ranges_5 %}
# The accepted cases run the kernel's way: the host back end and
# BPF_PROG_TEST_RUN give every packet the same verdict and bytes.
# RUN: ebpf-gpu-trafgen -o %t.pcap --count 50 --seed 4
# RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.1.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.2.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.3.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.4.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.5.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
# SAME: prog: both: 50 packets, host and kernel agree
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.11.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.12.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.13.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.14.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.15.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.16.o %}

  .section xdp,"ax",@progbits
  .globl prog
  .type prog,@function
prog:
  r2 = *(u32 *)(r1 + 0)
  r3 = *(u32 *)(r1 + 4)
  r0 = 2
.if CASE == 1 || CASE == 11
  # ptr >= end not taken.
  r4 = r2
  r4 += 8
  if r4 >= r3 goto out
.if CASE == 1
  r0 = *(u8 *)(r2 + 8)
.else
  r0 = *(u16 *)(r2 + 8)
.endif
.endif
.if CASE == 2
  # end <= ptr not taken.
  r4 = r2
  r4 += 8
  if r3 <= r4 goto out
  r0 = *(u8 *)(r2 + 8)
.endif
.if CASE == 3
  # ptr < end taken.
  r4 = r2
  r4 += 8
  if r4 < r3 goto ok
  goto out
ok:
  r0 = *(u8 *)(r2 + 8)
.endif
.if CASE == 4 || CASE == 14
  # end > ptr taken.
  r4 = r2
  r4 += 8
  if r3 > r4 goto ok
  goto out
ok:
.if CASE == 4
  r0 = *(u8 *)(r2 + 8)
.else
  r0 = *(u16 *)(r2 + 8)
.endif
.endif
.if CASE == 12
  # ptr > end not taken: 8 bytes, not 9.
  r4 = r2
  r4 += 8
  if r4 > r3 goto out
  r0 = *(u8 *)(r2 + 8)
.endif
.if CASE == 13
  # A strict comparison at offset 0 proves nothing (the kernel's rule).
  r4 = r2
  if r4 >= r3 goto out
  r0 = *(u8 *)(r2 + 0)
.endif
.if CASE == 16
  # ptr + 0x10000 <= end: past MAX_PACKET_OFF, no range.
  r4 = r2
  r4 += 65536
  if r4 > r3 goto out
  r0 = *(u8 *)(r2 + 0)
.endif
.if CASE == 5 || CASE == 15
  # data_meta + 8 < data: 9 bytes of metadata.
  r5 = *(u32 *)(r1 + 8)
  r4 = r5
  r4 += 8
  if r4 >= r2 goto out
.if CASE == 5
  r0 = *(u8 *)(r5 + 8)
.else
  r0 = *(u16 *)(r5 + 8)
.endif
.endif
  r0 &= 3
out:
  exit
  .size prog, .-prog
  .section license,"aw",@progbits
  .asciz "GPL"

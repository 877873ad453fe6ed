# A subprogram hands r0 back to its caller as it is, as the kernel's
# verifier does (prepare_func_exit): only the program's own exit reads r0.
# clang emits subprograms that exit without writing r0: a static __noinline
# function whose constant result it propagated into its callers
# (test_xdp_noinline.c's swap_mac_and_send returns XDP_TX and has no write
# to r0: its callers set r0 = 3 after the call). And a void function may
# exit with a pointer left in r0 (the same program's connection_table_lookup
# ends with a map lookup whose result it stores through an argument).
# Case 1 is safe (both verifiers accept it, host and kernel agree on every
# packet): `leaf` never writes r0, `leaf2` writes it on one of its two exits
# only, no caller reads what they leave, and `find` returns a packet pointer
# that its caller checks and reads. Cases 2 and 3 read an uninitialised r0
# (at the program's exit; after a join in the callee, handed up through a
# second frame) and case 4 returns a stack pointer: both refuse them. Case 5
# returns the context: the kernel accepts it, ebpf-gpu refuses it (the
# lifter rewrites context loads only where it knows the base is the context,
# which it does not for a call's result).
# RUN: %llvm-mc-bpf --defsym=CASE=1 %s -o %t.1.o
# RUN: %llvm-mc-bpf --defsym=CASE=2 %s -o %t.2.o
# RUN: %llvm-mc-bpf --defsym=CASE=3 %s -o %t.3.o
# RUN: %llvm-mc-bpf --defsym=CASE=4 %s -o %t.4.o
# RUN: %llvm-mc-bpf --defsym=CASE=5 %s -o %t.5.o
# RUN: ebpf-gpu-cc %t.1.o --emit=verifier-log | FileCheck %s --check-prefix=SAFE
# SAFE: verified:
# RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=MAIN
# MAIN: pc 6: r0 is read before it is written (initialized(r0))
# RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=JOIN
# JOIN: pc 6: r0 is read before it is written (initialized(r0))
# RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=STACK
# STACK: pc 10: r0 is a stack pointer at a subprogram's exit: it may not be returned to the caller (no_pointer_return(r0))
# RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=CTX
# CTX: pc 10: r0 is a ctx at a subprogram's exit: it may not be returned to the caller (no_pointer_return(r0))
# RUN: ebpf-gpu-trafgen -o %t.pcap --count 64 --seed 17
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.1.o %}
# RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.1.o --pcap %t.pcap | FileCheck %s --check-prefix=COMPARE %}
# COMPARE: prog: both: 64 packets, host and kernel agree
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
# RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.5.o %}

  .section xdp,"ax",@progbits
  .globl prog
  .type prog,@function
prog:
  r9 = r1
  r6 = *(u32 *)(r1 + 0)
  r7 = *(u32 *)(r1 + 4)
  r1 = r6
  r2 = r7
.if CASE == 1
  call leaf
  r1 = r6
  call find
  r1 = r0
  r1 += 1
  r8 = 0
  if r1 > r7 goto tail
  # XDP_DROP (1) or XDP_PASS (2) by the low bit of the packet's byte 13 (IPv4 or IPv6).
  r8 = *(u8 *)(r0 + 0)
  r8 &= 1
  r8 += 1
tail:
  r1 = r6
  r2 = r7
  call mid
  # mid returns XDP_TX (3), left to packets shorter than 14 bytes.
  if r8 == 0 goto verdict
  r0 = r8
verdict:
  exit
.endif
.if CASE == 2
  call leaf
  exit
.endif
.if CASE == 3
  call mid
  r0 &= 3
  exit
.endif
.if CASE == 5
  r1 = r9
.endif
.if CASE == 4 || CASE == 5
  call mid
  r0 = 2
  exit
.endif
  .size prog, .-prog

  .text
  .type mid,@function
mid:
.if CASE == 1
  # The packet from byte 2 on: leaf2 swaps bytes 2 and 3.
  r1 += 2
  call leaf2
  r0 = 3
.endif
.if CASE == 3
  # r0 is leaf3's, uninitialised on one of its paths.
  call leaf3
.endif
.if CASE == 4
  r0 = r10
  r0 += -8
.endif
.if CASE == 5
  r0 = r1
.endif
  exit
  .size mid, .-mid

  # A pointer to the packet's byte 13, not checked against its end.
  .type find,@function
find:
  r0 = r1
  r0 += 13
  exit
  .size find, .-find

  # Swaps the first two bytes of [r1, r2) if there are two; no result.
  .type leaf,@function
leaf:
  r3 = r1
  r3 += 2
  if r3 > r2 goto done
  r4 = *(u8 *)(r1 + 0)
  r5 = *(u8 *)(r1 + 1)
  *(u8 *)(r1 + 0) = w5
  *(u8 *)(r1 + 1) = w4
done:
  exit
  .size leaf, .-leaf

  # The same, with a result on its early exit only.
  .type leaf2,@function
leaf2:
  r3 = r1
  r3 += 2
  if r3 <= r2 goto swap
  r0 = 1
  exit
swap:
  r4 = *(u8 *)(r1 + 0)
  r5 = *(u8 *)(r1 + 1)
  *(u8 *)(r1 + 0) = w5
  *(u8 *)(r1 + 1) = w4
  exit
  .size leaf2, .-leaf2

  # A result on one path only, the two paths joining at the exit.
  .type leaf3,@function
leaf3:
  r3 = r1
  r3 += 2
  if r3 > r2 goto out
  r0 = 1
out:
  exit
  .size leaf3, .-leaf3

  .section license,"aw",@progbits
  .asciz "GPL"

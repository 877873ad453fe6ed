# One load instruction reads the context on every path that reaches it or on
# none: a subprogram called once with the context and once with a stack
# pointer loads through r1 at the same instruction. The kernel refuses it
# (it rewrites each context load in place: "same insn cannot be used with
# different pointers"), and ebpf-gpu's lifter lowers a load by what its base
# is, so accepting it would miscompile one of the two calls. Both refuse.
# RUN: %llvm-mc-bpf %s -o %t.o
# RUN: not ebpf-gpu-cc %t.o 2>&1 | FileCheck %s
# CHECK: pc 13: same insn cannot be used with different pointers: r1 is a stack pointer here and a ctx on another path (same_base(r1))
# RUN: %if kernel-bpf %{ ebpf-gpu-trafgen -o %t.pcap --count 4 --seed 1 %}
# RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
# KERNEL: mixed: neither: same insn cannot be used with different pointers
	.text
	.section	xdp,"ax",@progbits
	.globl	mixed
	.type	mixed,@function
mixed:
	call callee
	r7 = r0
	r1 = 0
	*(u64 *)(r10 - 8) = r1
	*(u64 *)(r10 - 16) = r1
	*(u64 *)(r10 - 24) = r1
	r1 = r10
	r1 += -24
	call callee
	r0 += r7
	r0 &= 1
	r0 += 1
	exit
.Lmixed_end:
	.size	mixed, .Lmixed_end-mixed
	.text
	.type	callee,@function
callee:
	r0 = *(u32 *)(r1 + 16)
	exit
.Lcallee_end:
	.size	callee, .Lcallee_end-callee
	.section	license,"aw",@progbits
	.asciz	"GPL"

// Stack liveness in pruning, as the kernel's (REG_LIVE_READ): a stored
// state prunes a new one whatever the two hold in stack slots that every
// path from there writes whole before reading. Cilium's
// tail_nodeport_nat_ingress_ipv6 keeps a map value pointer of one of two
// conntrack maps, or a number, in a slot it then reuses: without this,
// 1,000,000 instructions were not enough; with it, 307,237.
// RUN: %clang-bpf -mcpu=v3 -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --section dead_slot --emit=verifier-log | FileCheck %s --check-prefix=DEAD
// DEAD: verified: 10 instructions processed, 2 states stored, 1 paths pruned
// (Without liveness: 12 instructions, 0 paths pruned.)
// A slot read after the join is live: the second path is explored (and
// refused where it fills a number as a pointer), in either order.
// RUN: not ebpf-gpu-cc %t.o --section live_slot_ptr_first 2>&1 | FileCheck %s --check-prefix=LIVE
// RUN: not ebpf-gpu-cc %t.o --section live_slot_ptr_second 2>&1 | FileCheck %s --check-prefix=LIVE
// LIVE: read through r1, which is a scalar, not a pointer to memory
// A map key's padding (never written: read as zeros, as the kernel allows
// root) is read: the slot is live, and a path holding a pointer there is
// refused (tests/lit/verifier/partial-overwrite.c, key_uninit_first).
// RUN: %if kernel-bpf %{ ebpf-gpu-trafgen -o %t.pcap --count 4 --seed 1 %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: dead_slot: both: 4 packets, host and kernel agree
// KERNEL: live_slot_ptr_first: neither: R1 invalid mem access 'scalar'
// KERNEL: live_slot_ptr_second: neither: R1 invalid mem access 'scalar'
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

// r10-8 holds the context on one path and a number on the other; after
// the join it is written whole before it is read.
SEC("xdp") __attribute__((naked)) int dead_slot(void) {
  asm volatile("r6 = r1\n"
               "call 7\n" // bpf_get_prandom_u32
               "if r0 == 0 goto 1f\n"
               "*(u64 *)(r10 - 8) = r6\n"
               "goto 2f\n"
               "1:\n"
               "*(u64 *)(r10 - 8) = 5\n"
               "2:\n"
               "*(u64 *)(r10 - 8) = 2\n"
               "r0 = *(u64 *)(r10 - 8)\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int live_slot_ptr_first(void) {
  asm volatile("r6 = r1\n"
               "call 7\n"
               "if r0 == 0 goto 1f\n"
               "*(u64 *)(r10 - 8) = r6\n"
               "goto 2f\n"
               "1:\n"
               "*(u64 *)(r10 - 8) = 5\n"
               "2:\n"
               "r1 = *(u64 *)(r10 - 8)\n"
               "r0 = *(u32 *)(r1 + 0)\n"
               "r0 = 2\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int live_slot_ptr_second(void) {
  asm volatile("r6 = r1\n"
               "call 7\n"
               "if r0 == 0 goto 1f\n"
               "*(u64 *)(r10 - 8) = 5\n"
               "goto 2f\n"
               "1:\n"
               "*(u64 *)(r10 - 8) = r6\n"
               "2:\n"
               "r1 = *(u64 *)(r10 - 8)\n"
               "r0 = *(u32 *)(r1 + 0)\n"
               "r0 = 2\n"
               "exit\n" ::: "memory");
}

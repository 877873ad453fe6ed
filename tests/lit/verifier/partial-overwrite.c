// A write over part of a spilled pointer is accepted, as a privileged
// kernel accepts it (Cilium's bpf_xdp.o reuses a slot that held a map value
// pointer for a 4-byte value, metrics.h:48). What the write leaves of the
// pointer (the kernel's STACK_MISC) is residue: it may be written again,
// and the bytes written may be read back, but reading a residue byte, as
// data or as part of a pointer, is a pointer leak (refused for everyone, as
// the other leaks: tests/lit/verifier/pointer-leaks.c). A stored state with
// data where a new one has residue does not prune it, nor one with
// uninitialised bytes (a map key's padding) where a new one holds a pointer.
// RUN: %clang-bpf -mcpu=v3 -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --section cilium_pattern -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --section rewrite_both_halves -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --section var_off_then_rewrite -o %t.gpu.o
// RUN: not ebpf-gpu-cc %t.o --section fill_as_pointer 2>&1 | FileCheck %s --check-prefix=FILL
// FILL: pc 2: pointer leak: a 8-byte read reads r10-4, a byte that a write over part of a spilled pointer left behind (no_pointer_leak(stack[-4]))
// RUN: not ebpf-gpu-cc %t.o --section read_residue 2>&1 | FileCheck %s --check-prefix=RESIDUE
// RESIDUE: pc 2: pointer leak: a 4-byte read reads r10-4, a byte that a write over part of a spilled pointer left behind
// RUN: not ebpf-gpu-cc %t.o --section var_off_residue 2>&1 | FileCheck %s --check-prefix=VAROFF
// VAROFF: pc 8: pointer leak: a 1-byte read reads r10-16, a byte that a write over part of a spilled pointer left behind
// RUN: not ebpf-gpu-cc %t.o --section join_data_first 2>&1 | FileCheck %s --check-prefix=JOIN
// RUN: not ebpf-gpu-cc %t.o --section join_residue_first 2>&1 | FileCheck %s --check-prefix=JOIN
// JOIN: pointer leak: a 4-byte read reads r10-4, a byte that a write over part of a spilled pointer left behind
// RUN: not ebpf-gpu-cc %t.o --section key_uninit_first 2>&1 | FileCheck %s --check-prefix=KEY
// KEY: pointer leak: bpf_map_lookup_elem argument 2 (r2) reads the ctx spilled at r10-8 as data
// The kernel (root) agrees where ebpf-gpu accepts, and the back ends agree;
// it accepts the leaks ebpf-gpu refuses, and refuses the fill as a pointer.
// RUN: %if kernel-bpf %{ ebpf-gpu-trafgen -o %t.pcap --count 4 --seed 1 %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: cilium_pattern: both: 4 packets, host and kernel agree
// KERNEL: rewrite_both_halves: both: 4 packets, host and kernel agree
// KERNEL: fill_as_pointer: neither: R1 invalid mem access 'scalar'
// KERNEL: read_residue: kernel: {{.*}}pointer leak: a 4-byte read reads r10-4
// KERNEL: var_off_residue: kernel: {{.*}}pointer leak: a 1-byte read reads r10-16
// KERNEL: var_off_then_rewrite: both: 4 packets, host and kernel agree
// KERNEL: join_data_first: kernel: {{.*}}pointer leak: a 4-byte read reads r10-4
// KERNEL: join_residue_first: kernel: {{.*}}pointer leak: a 4-byte read reads r10-4
// KERNEL: key_uninit_first: kernel: {{.*}}pointer leak: bpf_map_lookup_elem argument 2
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} a SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4);
  __type(key, __u64);
  __type(value, __u64);
} h SEC(".maps");

char _license[] SEC("license") = "GPL";

// The slot of a map value pointer reused for a 4-byte value, read back.
SEC("xdp") __attribute__((naked)) int cilium_pattern(void) {
  asm volatile("*(u32 *)(r10 - 4) = 0\n"
               "r2 = r10\n"
               "r2 += -4\n"
               "r1 = %[a] ll\n"
               "call 1\n" // bpf_map_lookup_elem
               "if r0 == 0 goto 1f\n"
               "*(u64 *)(r10 - 16) = r0\n"
               "*(u32 *)(r10 - 16) = 7\n"
               "r0 = *(u32 *)(r10 - 16)\n"
               "r0 += -5\n"
               "exit\n"
               "1:\n"
               "r0 = 1\n"
               "exit\n" :: [a] "i"(&a) : "memory");
}

// Both halves written again: the slot is data.
SEC("xdp") __attribute__((naked)) int rewrite_both_halves(void) {
  asm volatile("*(u64 *)(r10 - 8) = r1\n"
               "*(u32 *)(r10 - 8) = 1\n"
               "*(u32 *)(r10 - 4) = 0\n"
               "r0 = *(u64 *)(r10 - 8)\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int fill_as_pointer(void) {
  asm volatile("*(u64 *)(r10 - 8) = r1\n"
               "*(u32 *)(r10 - 8) = 0\n"
               "r1 = *(u64 *)(r10 - 8)\n"
               "r0 = *(u32 *)(r1 + 0)\n"
               "r0 = 2\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int read_residue(void) {
  asm volatile("*(u64 *)(r10 - 8) = r1\n"
               "*(u32 *)(r10 - 8) = 0\n"
               "r0 = *(u32 *)(r10 - 4)\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

// A byte written at r10-16 or r10-8: any byte of the pointer may be left.
SEC("xdp") __attribute__((naked)) int var_off_residue(void) {
  asm volatile("*(u64 *)(r10 - 16) = r1\n"
               "call 7\n" // bpf_get_prandom_u32
               "r0 &= 8\n"
               "r1 = r10\n"
               "r1 += -16\n"
               "r1 += r0\n"
               "r2 = 0\n"
               "*(u8 *)(r1 + 0) = r2\n"
               "r0 = *(u8 *)(r10 - 16)\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int var_off_then_rewrite(void) {
  asm volatile("*(u64 *)(r10 - 16) = r1\n"
               "call 7\n" // bpf_get_prandom_u32
               "r0 &= 8\n"
               "r1 = r10\n"
               "r1 += -16\n"
               "r1 += r0\n"
               "r2 = 0\n"
               "*(u8 *)(r1 + 0) = r2\n"
               "*(u64 *)(r10 - 16) = 2\n"
               "r0 = *(u8 *)(r10 - 16)\n"
               "exit\n" ::: "memory");
}

// Data on one path, residue on the other, read after they join: the path
// explored second must not be pruned by the first (both orders).
SEC("xdp") __attribute__((naked)) int join_data_first(void) {
  asm volatile("r6 = r1\n"
               "call 7\n"
               "*(u64 *)(r10 - 8) = r6\n"
               "if r0 == 0 goto 1f\n"
               "*(u64 *)(r10 - 8) = 0\n"
               "goto 2f\n"
               "1:\n"
               "*(u32 *)(r10 - 8) = 0\n"
               "2:\n"
               "r0 = *(u32 *)(r10 - 4)\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int join_residue_first(void) {
  asm volatile("r6 = r1\n"
               "call 7\n"
               "*(u64 *)(r10 - 8) = r6\n"
               "if r0 == 0 goto 1f\n"
               "*(u32 *)(r10 - 8) = 0\n"
               "goto 2f\n"
               "1:\n"
               "*(u64 *)(r10 - 8) = 0\n"
               "2:\n"
               "r0 = *(u32 *)(r10 - 4)\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

// A map key never written on one path (padding: read as zeros), holding a
// pointer on the other: the second must not be pruned by the first.
SEC("xdp") __attribute__((naked)) int key_uninit_first(void) {
  asm volatile("r6 = r1\n"
               "call 7\n"
               "if r0 == 0 goto 1f\n"
               "goto 2f\n"
               "1:\n"
               "*(u64 *)(r10 - 8) = r6\n"
               "2:\n"
               "r2 = r10\n"
               "r2 += -8\n"
               "r1 = %[h] ll\n"
               "call 1\n"
               "r0 = 2\n"
               "exit\n" :: [h] "i"(&h) : "memory");
}

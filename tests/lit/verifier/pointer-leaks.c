// A pointer spilled to the stack may be filled back whole, but no read may
// see its bytes as data: not a helper that reads stack memory (the bytes
// would go into the packet, a map key or value) and not a partial or
// variable-offset load. ebpf-gpu refuses pointer leaks for everyone (as a
// store of a pointer into the packet or a map); the kernel refuses the
// helper reads only to unprivileged loaders. Found by tests/differential/rich-programs.py
// (seed 32: 4 of 25,000 programs): bpf_xdp_store_bytes copied the low bytes
// of a spilled packet pointer into the packet, and the host back end and
// the kernel wrote their own addresses. What a write over part of a spilled
// pointer leaves of it may not be read either (seed 31: 1 program); the
// write itself is accepted (tests/lit/verifier/partial-overwrite.c).
// RUN: %clang-bpf -mcpu=v3 -c %s -o %t.o
// RUN: not ebpf-gpu-cc %t.o --section store_bytes 2>&1 | FileCheck %s --check-prefix=STORE
// STORE: pc 9: pointer leak: bpf_xdp_store_bytes argument 3 (r3) reads the packet pointer spilled at r10-16 as data (no_pointer_leak(stack[-16]))
// RUN: not ebpf-gpu-cc %t.o --section map_value 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: pointer leak: bpf_map_update_elem argument 3 (r3) reads the ctx spilled at r10-16 as data (no_pointer_leak(stack[-16]))
// RUN: not ebpf-gpu-cc %t.o --section map_key 2>&1 | FileCheck %s --check-prefix=KEY
// KEY: pointer leak: bpf_map_lookup_elem argument 2 (r2) reads the stack pointer spilled at r10-8 as data (no_pointer_leak(stack[-8]))
// RUN: not ebpf-gpu-cc %t.o --section partial_fill 2>&1 | FileCheck %s --check-prefix=PARTIAL
// PARTIAL: pc 1: pointer leak: a 4-byte read reads the ctx spilled at r10-8 as data (no_pointer_leak(stack[-8]))
// RUN: not ebpf-gpu-cc %t.o --section partial_overwrite 2>&1 | FileCheck %s --check-prefix=OVERWRITE
// OVERWRITE: pc 2: pointer leak: a 8-byte read reads r10-8, a byte that a write over part of a spilled pointer left behind (no_pointer_leak(stack[-8]))
// RUN: not ebpf-gpu-cc %t.o --section helper_overwrite 2>&1 | FileCheck %s --check-prefix=HELPER
// HELPER: pc 6: pointer leak: a 8-byte read reads r10-8, a byte that a write over part of a spilled pointer left behind
// RUN: not ebpf-gpu-cc %t.o --section atomic_fetch 2>&1 | FileCheck %s --check-prefix=ATOMIC
// ATOMIC: pc 2: pointer leak: an atomic operation reads the ctx spilled at r10-8 as data (no_pointer_leak(stack[-8]))
// RUN: not ebpf-gpu-cc %t.o --section stale_spill 2>&1 | FileCheck %s --check-prefix=STALE
// STALE: pc 7: pointer leak: a 8-byte read reads r10-8, a byte that a write over part of a spilled pointer left behind
// RUN: not ebpf-gpu-cc %t.o --section stale_register 2>&1 | FileCheck %s --check-prefix=STALEREG
// STALEREG: pc 5: r7 is read before it is written (initialized(r7))
// RUN: ebpf-gpu-cc %t.o --section whole_fill -o %t.gpu.o
// The kernel as root accepts the helper reads and refuses the partial fill;
// where both accept, the back ends agree.
// RUN: %if kernel-bpf %{ ebpf-gpu-trafgen -o %t.pcap --count 4 --seed 1 %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: store_bytes: kernel: {{.*}}pointer leak: bpf_xdp_store_bytes
// KERNEL: map_value: kernel: {{.*}}pointer leak: bpf_map_update_elem
// KERNEL: map_key: kernel: {{.*}}pointer leak: bpf_map_lookup_elem
// KERNEL: partial_fill: neither: invalid size of register fill
// KERNEL: partial_overwrite: kernel: {{.*}}pointer leak: a 8-byte read reads r10-8
// KERNEL: helper_overwrite: kernel: {{.*}}pointer leak: a 8-byte read reads r10-8
// KERNEL: atomic_fetch: neither: R0 bitwise operator &= on pointer prohibited
// KERNEL: stale_spill: kernel: {{.*}}pointer leak: a 8-byte read reads r10-8
// KERNEL: stale_register: kernel: {{.*}}r7 is read before it is written
// KERNEL: whole_fill: both: 4 packets, host and kernel agree
// KERNEL: store_keeps_pointers: both: 4 packets, host and kernel agree
// bpf_xdp_store_bytes writes into the packet but does not move it: the
// packet pointers the program holds stay valid (the kernel's verifier does
// not count it among the helpers that change packet data), and a read
// through one sees the bytes stored.
// RUN: ebpf-gpu-cc %t.o --section store_keeps_pointers -o %t.keep.gpu.o
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} h SEC(".maps");

char _license[] SEC("license") = "GPL";

SEC("xdp") __attribute__((naked)) int store_bytes(void) {
  asm volatile("r6 = r1\n"
               "r7 = *(u32 *)(r6 + 0)\n"
               "r8 = *(u32 *)(r6 + 4)\n"
               "*(u64 *)(r10 - 16) = r7\n"
               "r1 = r6\n"
               "r2 = 0\n"
               "r3 = r10\n"
               "r3 += -16\n"
               "r4 = 4\n"
               "call 190\n" // bpf_xdp_store_bytes
               "r0 = 2\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int map_value(void) {
  asm volatile("*(u32 *)(r10 - 4) = 1\n"
               "*(u64 *)(r10 - 16) = r1\n"
               "r2 = r10\n"
               "r2 += -4\n"
               "r3 = r10\n"
               "r3 += -16\n"
               "r4 = 0\n"
               "r1 = %[h] ll\n"
               "call 2\n" // bpf_map_update_elem
               "r0 = 2\n"
               "exit\n" :: [h] "i"(&h) : "memory");
}

SEC("xdp") __attribute__((naked)) int map_key(void) {
  asm volatile("r2 = r10\n"
               "*(u64 *)(r10 - 8) = r2\n"
               "r2 += -8\n"
               "r1 = %[h] ll\n"
               "call 1\n" // bpf_map_lookup_elem
               "r0 = 2\n"
               "exit\n" :: [h] "i"(&h) : "memory");
}

SEC("xdp") __attribute__((naked)) int partial_fill(void) {
  asm volatile("*(u64 *)(r10 - 8) = r1\n"
               "r0 = *(u32 *)(r10 - 8)\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

// rich-programs.py seed 31 (1 of 25,000 programs: map contents differed):
// half of a spilled pointer overwritten, then the whole slot read back
// as a scalar and stored into a map.
SEC("xdp") __attribute__((naked)) int partial_overwrite(void) {
  asm volatile("*(u64 *)(r10 - 8) = r1\n"
               "*(u32 *)(r10 - 4) = 1\n"
               "r0 = *(u64 *)(r10 - 8)\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

// A helper's output buffer over a spilled pointer: it may write fewer
// bytes, or none when it fails (an offset past the packet here).
SEC("xdp") __attribute__((naked)) int helper_overwrite(void) {
  asm volatile("*(u64 *)(r10 - 8) = r1\n"
               "r2 = 60000\n"
               "r3 = r10\n"
               "r3 += -8\n"
               "r4 = 8\n"
               "call 189\n" // bpf_xdp_load_bytes
               "r0 = *(u64 *)(r10 - 8)\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

// A fetching atomic on a spilled pointer returns the pointer as a number.
SEC("xdp") __attribute__((naked)) int atomic_fetch(void) {
  asm volatile("*(u64 *)(r10 - 8) = r1\n"
               "r2 = 0\n"
               "r2 = atomic_fetch_add((u64 *)(r10 - 8), r2)\n"
               "r0 = r2\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

// A packet pointer made stale by bpf_xdp_adjust_head is an address, not a
// number: neither its spill nor its register may be read as data
// (rich-programs.py seeds 34 and 37: verdicts from a stale spill's bytes,
// different on every run).
SEC("xdp") __attribute__((naked)) int stale_spill(void) {
  asm volatile("r6 = r1\n"
               "r7 = *(u32 *)(r6 + 0)\n"
               "*(u64 *)(r10 - 8) = r7\n"
               "r1 = r6\n"
               "r2 = 4\n"
               "call 44\n" // bpf_xdp_adjust_head
               "*(u32 *)(r10 - 4) = 4\n"
               "r0 = *(u64 *)(r10 - 8)\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int stale_register(void) {
  asm volatile("r6 = r1\n"
               "r7 = *(u32 *)(r6 + 0)\n"
               "r1 = r6\n"
               "r2 = 4\n"
               "call 44\n" // bpf_xdp_adjust_head
               "r0 = r7\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int whole_fill(void) {
  asm volatile("*(u64 *)(r10 - 8) = r1\n"
               "r1 = 0\n"
               "r1 = *(u64 *)(r10 - 8)\n"
               "r2 = *(u32 *)(r1 + 0)\n"
               "r3 = *(u32 *)(r1 + 4)\n"
               "r0 = 2\n"
               "exit\n" ::: "memory");
}

SEC("xdp") __attribute__((naked)) int store_keeps_pointers(void) {
  asm volatile("r6 = r1\n"
               "r7 = *(u32 *)(r6 + 0)\n"
               "r8 = *(u32 *)(r6 + 4)\n"
               "r9 = r7\n"
               "r9 += 14\n"
               "if r9 > r8 goto +11\n"
               "*(u64 *)(r10 - 8) = 4660\n"
               "r1 = r6\n"
               "r2 = 0\n"
               "r3 = r10\n"
               "r3 += -8\n"
               "r4 = 2\n"
               "call 190\n" // bpf_xdp_store_bytes
               "r0 = *(u8 *)(r7 + 0)\n"
               "r0 &= 1\n"
               "r0 += 1\n"
               "exit\n"
               "r0 = 2\n"
               "exit\n" ::: "memory");
}

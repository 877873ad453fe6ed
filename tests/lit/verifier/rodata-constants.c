// SPDX-License-Identifier: GPL-2.0
// Loads from .rodata at a constant offset are known constants, as in the
// kernel: libbpf freezes .rodata (BPF_F_RDONLY_PROG) after writing its
// bytes, and check_mem_access reads such a map's bytes as known scalars.
// So the `const volatile` idiom of libbpf programs proves a loop's bound
// (sum_bytes), an array index (count_slot) and, through a sign-extending
// load, a negative offset (signed_index). Both verifiers accept them; with
// a .rodata index out of the array's bounds (SLOT=9) both refuse, at the
// same load. The host back end runs them as the kernel does.
// RUN: %clang-bpf -mcpu=v4 -c %s -o %t.o
// RUN: %clang-bpf -mcpu=v4 -DSLOT=9 -c %s -o %t.9.o
// RUN: ebpf-gpu-cc %t.o --section sum_bytes -o %t.sum.gpu.o
// RUN: ebpf-gpu-cc %t.o --section count_slot -o %t.slot.gpu.o
// RUN: ebpf-gpu-cc %t.o --section signed_index -o %t.signed.gpu.o
// RUN: not ebpf-gpu-cc %t.9.o --section count_slot 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// OUTSIDE: rodata-constants.c:[[@LINE+40]]: pc {{[0-9]+}}: map value read of 8 bytes at offset 72 is outside the 64-byte value of map '.bss'
// The bound is the object's: 6 bytes summed, so a packet's parity decides.
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 200 --seed 5
// RUN: ebpf-gpu-loader run %t.o --section count_slot --pcap %t.pcap --backend host \
// RUN:   --dump-maps %t.maps | FileCheck %s --check-prefix=SLOT
// RUN: FileCheck %s --check-prefix=SLOT-MAPS < %t.maps
// SLOT: XDP_PASS{{ +}}200
// hits[3] counted 200 (0xc8) packets, the others none.
// SLOT-MAPS: .bss[0] = {{0{48}c8(0{78})$}}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.9.o --reason "invalid access to map value" %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: sum_bytes: both: 200 packets, host and kernel agree
// KERNEL: count_slot: both: 200 packets, host and kernel agree
// KERNEL: signed_index: both: 200 packets, host and kernel agree

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#ifndef SLOT
#define SLOT 3
#endif

const volatile __u32 nbytes = 6;
const volatile __u8 slot = SLOT;
const volatile __s8 back = -2;
__u64 hits[8];

SEC("xdp") int sum_bytes(struct xdp_md *ctx) {
  __u8 *p = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  __u32 sum = 0;
  for (__u32 i = 0; i < nbytes; i++) {
    if ((void *)(p + i + 1) > (void *)end)
      return XDP_ABORTED;
    sum += p[i];
  }
  return sum & 1 ? XDP_DROP : XDP_PASS;
}

SEC("xdp") int count_slot(struct xdp_md *ctx) {
  __sync_fetch_and_add(&hits[slot], 1);
  return XDP_PASS;
}

SEC("xdp") int signed_index(struct xdp_md *ctx) {
  __sync_fetch_and_add(&hits[5 + back], 1);
  return XDP_TX;
}

char _license[] SEC("license") = "GPL";

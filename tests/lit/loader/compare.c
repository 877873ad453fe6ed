// `ebpf-gpu-loader compare` checks every program of an object in one
// process: both verifiers, and where both accept, the host back end
// against BPF_PROG_TEST_RUN (verdicts, output bytes, maps). One line a
// program; exit 1 when a program only ebpf-gpu accepts, the back ends
// differ, or a back end fails.
// REQUIRES: kernel-bpf
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 8 --seed 3
// RUN: not ebpf-gpu-loader compare %t.o --pcap %t.pcap > %t.out
// RUN: FileCheck %s < %t.out
// Agreement alone exits 0; --section picks programs (function or section).
// RUN: ebpf-gpu-loader compare %t.o --pcap %t.pcap --section count \
// RUN:   --section neither | FileCheck %s --check-prefix=SOME
// RUN: not ebpf-gpu-loader compare %t.o --pcap %t.pcap --section nope 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPE
// RUN: not ebpf-gpu-loader compare %t.o 2>&1 | FileCheck %s --check-prefix=USAGE
// RUN: not ebpf-gpu-loader compare %t.o --pcap %t.missing 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOPCAP
//
// CHECK: count: both: 8 packets, host and kernel agree
// CHECK-NEXT: kernel_only: kernel: {{.*}}pointer leak: r0 is a packet pointer at exit
// CHECK-NEXT: neither: neither: R2 offset is outside of the packet
// Growing the tail past the 256 bytes of tailroom ebpf-gpu gives a packet
// fails on ebpf-gpu (DESIGN.md) and not in the kernel's test run, a
// difference compare must report (generated programs stay within it).
// CHECK-NEXT: grow_tail: differ: packet 0: the kernel made it {{[0-9]+}} bytes long, past its buffer on the host (host: XDP_DROP {{[0-9]+}})
// `run` on the kernel back end says why it cannot take such a packet.
// RUN: not ebpf-gpu-loader run %t.o --section grow_tail --pcap %t.pcap --backend kernel 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GROWN
// GROWN: error: kernel back end: packet 0 grew past its buffer (the kernel made it {{[0-9]+}} bytes long; the other back ends give 256 bytes of tailroom past the longest packet)
// SOME: count: both: 8 packets, host and kernel agree
// SOME-NEXT: neither: neither:
// NOPE: error: {{.*}}compare.c.tmp.o: no program or section named 'nope'
// USAGE: error: no packets given (--pcap)
// NOPCAP: error: {{.*}}compare.c.tmp.missing
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

SEC("xdp") int count(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  __u32 key = 0;
  if (data + 14 <= end)
    key = ((__u8 *)data)[13] & 3;
  __u64 *v = bpf_map_lookup_elem(&counts, &key);
  if (v)
    __sync_fetch_and_add(v, 1);
  return key == 1 ? XDP_DROP : XDP_PASS;
}

// Root may return a pointer in the kernel; ebpf-gpu refuses it for everyone
// (docs/VERIFIER.md).
SEC("xdp") __attribute__((naked)) int kernel_only(void) {
  asm volatile("r0 = *(u32 *)(r1 + 0)\n"
               "exit\n" ::: "memory");
}

// A packet read without a bounds check: refused by both.
SEC("xdp") __attribute__((naked)) int neither(void) {
  asm volatile("r2 = *(u32 *)(r1 + 0)\n"
               "r0 = *(u8 *)(r2 + 0)\n"
               "r0 = 2\n"
               "exit\n" ::: "memory");
}

SEC("xdp") int grow_tail(struct xdp_md *ctx) {
  return bpf_xdp_adjust_tail(ctx, 400) == 0 ? XDP_PASS : XDP_DROP;
}

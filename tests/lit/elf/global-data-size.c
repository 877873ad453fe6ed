// A global data section's size is checked before it sizes anything: a .bss
// header may claim any size without a byte behind it. Found by
// fuzz_verifier: a .bss of 0x2d000000000008 bytes was resized into memory
// (AddressSanitizer: allocation-size-too-big; an abort without it). Up to
// 64 MiB is taken (ebpf-gpu's limit; the kernel takes more), more is
// refused with one message.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=maps | FileCheck %s --check-prefix=MAPS
// MAPS: .bss: array key 4B value 4194304B max_entries 1
// RUN: %python %S/Inputs/set-section-size.py %t.o %t.big.o .bss 0x2d000000000008
// RUN: not ebpf-gpu-cc %t.big.o --emit=maps 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: error: {{.*}}section .bss: 12666373951979528 bytes of global data; at most 67108864 (ebpf-gpu's limit)
// RUN: %python %S/Inputs/set-section-size.py %t.o %t.max.o .bss 67108864
// RUN: ebpf-gpu-cc %t.max.o --emit=maps | FileCheck %s --check-prefix=MAX
// MAX: .bss: array key 4B value 67108864B max_entries 1
// RUN: %python %S/Inputs/set-section-size.py %t.o %t.over.o .bss 67108865
// RUN: not ebpf-gpu-cc %t.over.o --emit=maps 2>&1 | FileCheck %s --check-prefix=OVER
// OVER: error: {{.*}}section .bss: 67108865 bytes of global data; at most 67108864
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char big[4 << 20];

SEC("xdp") int prog(struct xdp_md *ctx) {
  big[ctx->rx_queue_index & 0xfff] = 1;
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

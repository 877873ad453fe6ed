// bpf_trace_printk (bpf_printk) on the host back end: each call appends
// one formatted line to the program's trace log, which `run` writes to
// --trace FILE (or standard error), and returns the line's length, as the
// kernel's. Conversions that would read memory the verifier never checked
// (%s, %p) return -EINVAL and print nothing (the kernel probes such
// pointers; a GPU cannot). Arguments the format does not use may be
// unwritten registers, as bpf_printk with fewer arguments leaves them.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 200 --seed 3
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --trace %t.trace --dump-maps %t.maps
// RUN: FileCheck %s --input-file %t.trace
// CHECK: pkt 2752 len 393 proto 0x8
// CHECK-NEXT: [    1] -2 w
// CHECK-NEXT: 0042 FF 1099511627776
// CHECK-NEXT: pkt 421 len 60 proto 0x608
// CHECK-NEXT: [    1] -2 f
// CHECK-NOT: bad
// RUN: wc -l < %t.trace | FileCheck %s --check-prefix=LINES
// LINES: 600
// RUN: FileCheck %s --check-prefix=MAPS --input-file %t.maps
// MAPS: results[0] = 24
// MAPS-NEXT: results[1] = 18446744073709551594
// MAPS-NEXT: results[2] = 18446744073709551594
// Without --trace the lines go to standard error.
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap 2>&1 >/dev/null | FileCheck %s --check-prefix=STDERR
// STDERR: pkt 421 len 60 proto 0x8
// The kernel returns the same length for the same line.
// RUN: %if kernel-bpf %{ ebpf-gpu-loader run %t.o --pcap %t.pcap --backend kernel --dump-maps %t.kernel.maps %}
// RUN: %if kernel-bpf %{ grep "results\[0\]" %t.kernel.maps | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: results[0] = 24
// On a GPU, the same lines (in another order).
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.o --pcap %t.pcap --backend gpu --trace %t.gpu.trace %}
// RUN: %if cuda-gpu %{ sort %t.trace > %t.sorted %}
// RUN: %if cuda-gpu %{ sort %t.gpu.trace | diff %t.sorted - %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __s64);
  __uint(max_entries, 3);
} results SEC(".maps");

static __always_inline void record(__u32 k, __s64 v) {
  __s64 *r = bpf_map_lookup_elem(&results, &k);
  if (r)
    *r = v;
}

SEC("xdp") int traced(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data, *data_end = (void *)(long)ctx->data_end;
  __u32 n = (__u32)(data_end - data) * 7 + 1; // from the packet: the same on every back end
  __u16 proto = 0;
  if (data + 14 <= data_end)
    proto = *(__u16 *)(data + 12);
  record(0, bpf_printk("pkt %u len %ld proto 0x%x", n, (long)(data_end - data), proto));
  bpf_printk("[%5d] %d %c", (int)(n % 7), -(int)(n % 3) - 1, 'a' + (n % 26));
  bpf_printk("%04x %X %llu", 0x42, 255, 1ull << 40);
  // Refused: %s and %p would read memory nobody checked.
  record(1, bpf_printk("bad %s", "x"));
  record(2, bpf_printk("bad %p", data));
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

// The arguments of bpf_strtol and bpf_strtoul, checked as the kernel checks
// them: the result an 8-byte aligned u64 the helper writes (stack, map
// value or record; not .rodata, not the packet), the string readable for
// the size, which is a bounded constant above 0, and no packet memory
// (the kernel's helpers have no packet access). The kernel here refuses
// the same programs and accepts the last.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: not ebpf-gpu-cc %t.o --section misaligned 2>&1 | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: bpf_strtoul argument 4 (r4) must be 8-byte aligned at a constant offset, is stack pointer frame0-20 (aligned(r4, 8))
// RUN: not ebpf-gpu-cc %t.o --section readonly 2>&1 | FileCheck %s --check-prefix=READONLY
// READONLY: bpf_strtoul argument 4 (r4): write to read-only map '.rodata' (writable(r4))
// RUN: not ebpf-gpu-cc %t.o --section packet_buf 2>&1 | FileCheck %s --check-prefix=PACKET-BUF
// PACKET-BUF: bpf_strtol argument 1 (r1): helper access to the packet is not allowed (bpf_strtol takes no packet memory, as the kernel's) (type(r1) != packet)
// RUN: not ebpf-gpu-cc %t.o --section packet_res 2>&1 | FileCheck %s --check-prefix=PACKET-RES
// PACKET-RES: bpf_strtol argument 4 (r4) must point to 8 bytes on the stack, in a map value or in a record, is a packet pointer
// RUN: not ebpf-gpu-cc %t.o --section zero_len 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: bpf_strtol argument 2 (r2) must be a size above 0 with a known bound, is 0 (bounded(r2))
// RUN: not ebpf-gpu-cc %t.o --section past_buf 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: bpf_strtol argument 1 (r1): stack read of 5 bytes at r10-4 is outside the 512-byte frame
// RUN: ebpf-gpu-cc %t.o --section in_map -o %t.gpu.o
// RUN: %if kernel-bpf %{ ebpf-gpu-trafgen -o %t.pcap --count 4 --seed 1 %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: misaligned: neither: misaligned stack access
// KERNEL: readonly: neither: write into map forbidden
// KERNEL: packet_buf: neither: helper access to the packet is not allowed
// KERNEL: packet_res: neither: helper access to the packet is not allowed
// KERNEL: zero_len: neither: R2 invalid zero-sized read
// KERNEL: past_buf: neither: invalid read from stack
// KERNEL: in_map: both: 4 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 1); __type(key, __u32); __type(value, __u64[2]);} vals SEC(".maps");
const __u64 ro = 5;
SEC("xdp") int misaligned(struct xdp_md *c) { char b[4] = "12"; __u64 r[2] = {}; return bpf_strtoul(b, 4, 0, (unsigned long *)((char *)r + 4)) > 0 ? XDP_PASS : XDP_DROP; }
SEC("xdp") int readonly(struct xdp_md *c) { char b[4] = "12"; return bpf_strtoul(b, 4, 0, (unsigned long *)&ro) > 0 ? XDP_PASS : XDP_DROP; }
SEC("xdp") int packet_buf(struct xdp_md *c) { void *d = (void *)(long)c->data, *e = (void *)(long)c->data_end; if (d + 8 > e) return XDP_PASS; long r; return bpf_strtol(d, 8, 0, &r) > 0 ? XDP_PASS : XDP_DROP; }
SEC("xdp") int packet_res(struct xdp_md *c) { void *d = (void *)(long)c->data, *e = (void *)(long)c->data_end; if (d + 8 > e) return XDP_PASS; char b[4] = "12"; return bpf_strtol(b, 4, 0, d) > 0 ? XDP_PASS : XDP_DROP; }
SEC("xdp") int zero_len(struct xdp_md *c) { char b[4] = "12"; long r; return bpf_strtol(b, c->rx_queue_index & 0, 0, &r) > 0 ? XDP_PASS : XDP_DROP; }
SEC("xdp") int past_buf(struct xdp_md *c) { char b[4] = "12"; long r; return bpf_strtol(b, 5, 0, &r) > 0 ? XDP_PASS : XDP_DROP; }
SEC("xdp") int in_map(struct xdp_md *c) { __u32 k = 0; __u64 *v = bpf_map_lookup_elem(&vals, &k); if (!v) return XDP_PASS; char b[4] = "12"; return bpf_strtol(b, 4, 0, (long *)(v + 1)) == 2 && v[1] == 12 ? XDP_TX : XDP_DROP; }
char _license[] SEC("license") = "GPL";

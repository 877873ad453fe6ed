// bpf_xdp_adjust_head keeps the first 40 bytes of the headroom free for
// the struct xdp_frame the kernel writes there on XDP_REDIRECT (its size
// on x86-64 Linux 6.18): with XDP's 256 bytes of headroom the packet's
// start moves back at most 216 bytes, or 216 less the metadata's length;
// further is -EINVAL, as in the kernel (bpf_xdp_adjust_meta: the same
// floor, in adjust-meta-size.c). Results are stored plus 100 (a dump
// leaves out zeroes): 100 is success, 78 -EINVAL.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 20 --seed 11
// RUN: ebpf-gpu-loader run %t.o --section head_floor --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_PASS 20
// CHECK-NOT: XDP_DROP
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: res[0] = 78
// MAPS-NEXT: res[1] = 100
// MAPS-NEXT: res[2] = 78
// MAPS-NEXT: res[3] = 100
// MAPS-NEXT: res[4] = 78
// MAPS-NEXT: res[5] = 100
// The GPU shares the helper (DeviceHelpers.c): the module still builds.
// RUN: ebpf-gpu-cc %t.o --section head_floor --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o --section head_floor -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// (Against the kernel where it offers XDP programs bpf_xdp_adjust_meta:
// lit's kernel-adjust-meta feature.)
// RUN: %if kernel-adjust-meta %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:head_floor | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: head_floor: 20 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 6);
  __type(key, __u32);
  __type(value, __s64);
} res SEC(".maps");

static __always_inline void put(__u32 k, long r) {
  __s64 v = r + 100;
  bpf_map_update_elem(&res, &k, &v, BPF_ANY);
}

SEC("xdp") int head_floor(struct xdp_md *ctx) {
  long r;
  // One byte into the frame's room, then its edge.
  put(0, bpf_xdp_adjust_head(ctx, -217));
  put(1, r = bpf_xdp_adjust_head(ctx, -216));
  if (r == 0 && bpf_xdp_adjust_head(ctx, 216))
    return XDP_DROP;
  // 8 bytes of metadata move with the packet's start: they count.
  if (bpf_xdp_adjust_meta(ctx, -8))
    return XDP_DROP;
  put(2, bpf_xdp_adjust_head(ctx, -209));
  put(3, r = bpf_xdp_adjust_head(ctx, -208));
  if (r == 0 && bpf_xdp_adjust_head(ctx, 208))
    return XDP_DROP;
  if (bpf_xdp_adjust_meta(ctx, 8))
    return XDP_DROP;
  // The whole headroom, as before the floor.
  put(4, bpf_xdp_adjust_head(ctx, -256));
  // Every step back up to the floor, one at a time.
  long total = 0;
  for (int i = 0; i < 300; i++) {
    if (bpf_xdp_adjust_head(ctx, -1))
      break;
    total++;
  }
  put(5, total == 216 ? 0 : -1);
  if (bpf_xdp_adjust_head(ctx, (int)total))
    return XDP_DROP;
  return XDP_PASS;
}

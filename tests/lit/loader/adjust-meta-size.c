// bpf_xdp_adjust_meta as Linux 6.18 has it (the platform follows that
// kernel's rules, docs/MAPS.md): metadata up to 216 bytes (XDP's 256 bytes
// of headroom less the 40 kept for the kernel's struct xdp_frame; older
// kernels stopped at 32), a length that is no multiple of 4 -EACCES, a
// start before that floor or past the packet's -EINVAL. Results are
// stored plus 100 (a dump leaves out zeroes): 100 is success, 87 -EACCES,
// 78 -EINVAL. The metadata a program writes is read back through
// data_meta, and copied into the packet so that the output shows it.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 20 --seed 12
// RUN: ebpf-gpu-loader run %t.o --section meta_size --pcap %t.pcap --backend host --out %t.out.pcap --dump-maps %t.maps | FileCheck %s
// CHECK: XDP_PASS 20
// CHECK-NOT: XDP_DROP
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: res[0] = 100
// MAPS-NEXT: res[1] = 100
// MAPS-NEXT: res[2] = 78
// MAPS-NEXT: res[3] = 87
// MAPS-NEXT: res[4] = 87
// MAPS-NEXT: res[5] = 78
// MAPS-NEXT: res[6] = 78
// MAPS-NEXT: res[7] = 100
// MAPS-NEXT: res[8] = 87
// The GPU shares the helper (DeviceHelpers.c): the module still builds.
// RUN: ebpf-gpu-cc %t.o --section meta_size --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-cc %t.o --section meta_size -o %t.gpu.o
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap --dump-maps %t.gpu.maps | FileCheck %s %}
// RUN: %if cuda-gpu %{ diff %t.maps %t.gpu.maps %}
// (Against the kernel where it offers XDP programs bpf_xdp_adjust_meta:
// lit's kernel-adjust-meta feature.)
// RUN: %if kernel-adjust-meta %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:meta_size | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: meta_size: 20 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 9);
  __type(key, __u32);
  __type(value, __s64);
} res SEC(".maps");

static __always_inline void put(__u32 k, long r) {
  __s64 v = r + 100;
  bpf_map_update_elem(&res, &k, &v, BPF_ANY);
}

SEC("xdp") int meta_size(struct xdp_md *ctx) {
  long r;
  // Past the old 32-byte limit: 36 bytes, written and read back.
  put(0, r = bpf_xdp_adjust_meta(ctx, -36));
  if (r)
    return XDP_DROP;
  __u8 *meta = (void *)(long)ctx->data_meta;
  __u8 *data = (void *)(long)ctx->data;
  if (meta + 36 > data)
    return XDP_DROP;
  __builtin_memset(meta, 0x5a, 36);
  meta[35] = 0xa5;
  if (meta[0] != 0x5a || meta[35] != 0xa5)
    return XDP_DROP;
  // The longest: 216 bytes, up to the frame's room.
  put(1, r = bpf_xdp_adjust_meta(ctx, -180));
  if (r == 0 && bpf_xdp_adjust_meta(ctx, 180))
    return XDP_DROP;
  // One word more reaches into it.
  put(2, bpf_xdp_adjust_meta(ctx, -184));
  // Lengths of 38 and 37 bytes: not multiples of 4.
  put(3, bpf_xdp_adjust_meta(ctx, -2));
  put(4, bpf_xdp_adjust_meta(ctx, -1));
  // Out of range, aligned or not, before its alignment is looked at.
  put(5, bpf_xdp_adjust_meta(ctx, -183));
  put(6, bpf_xdp_adjust_meta(ctx, 40));
  // Back to 32 bytes, then to a misaligned 31 going up.
  put(7, bpf_xdp_adjust_meta(ctx, 4));
  put(8, bpf_xdp_adjust_meta(ctx, 1));
  // The metadata's last word into the packet's first bytes (the source
  // MAC), then none left: the kernel's test run would give back what is
  // left with the packet.
  meta = (void *)(long)ctx->data_meta;
  data = (void *)(long)ctx->data;
  __u8 *end = (void *)(long)ctx->data_end;
  if (meta + 32 > data || data + 14 > end)
    return XDP_DROP;
  __builtin_memcpy(data + 6, meta + 28, 4);
  if (bpf_xdp_adjust_meta(ctx, 32))
    return XDP_DROP;
  return XDP_PASS;
}

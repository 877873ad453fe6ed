// bpf_xdp_load_bytes and bpf_xdp_store_bytes past the end of the packet
// return -EINVAL (-22) as the kernel's do, not -EFAULT. Found by
// tests/differential/rich-programs.py.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 4 --seed 3
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps
// RUN: FileCheck %s < %t.maps
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:bytes | FileCheck %s --check-prefix=KERNEL %}
// CHECK: out[0] = 18446744073709551594
// CHECK: out[1] = 18446744073709551594
// KERNEL: bytes: 4 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __s64);
} out SEC(".maps");

static void put(__u32 k, __s64 v) { bpf_map_update_elem(&out, &k, &v, BPF_ANY); }

SEC("xdp") int bytes(struct xdp_md *ctx) {
  char buf[8] = {};
  put(0, bpf_xdp_load_bytes(ctx, 5000, buf, 8));
  put(1, bpf_xdp_store_bytes(ctx, 5000, buf, 8));
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

// bpf_csum_diff gives what the kernel gives (Linux 6.13 and later fold the
// sum to 16 bits on every architecture): from and to, to only, from only,
// neither, sizes that are not multiples of 4, and a seed, stored to an
// array map. Found by
// tests/differential/rich-programs.py, where the host back end returned the
// unfolded 32-bit sum and refused sizes that are not multiples of 4.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 4 --seed 3
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend host --dump-maps %t.maps
// RUN: FileCheck %s < %t.maps
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:csum | FileCheck %s --check-prefix=KERNEL %}
// CHECK: out[0] = 11641
// CHECK: out[1] = 61369
// CHECK: out[2] = 33799
// CHECK: out[3] = 4660
// CHECK: out[4] = 65535
// CHECK: out[5] = 7
// CHECK: out[6] = 6982
// KERNEL: csum: 4 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 7);
  __type(key, __u32);
  __type(value, __s64);
} out SEC(".maps");

static void put(__u32 k, __s64 v) { bpf_map_update_elem(&out, &k, &v, BPF_ANY); }

SEC("xdp") int csum(struct xdp_md *ctx) {
  __u32 a[2] = {0x0bf68002, 0x2}, b[2] = {0x15, 0x0bf6e3ae};
  put(0, bpf_csum_diff(a, 8, b, 8, 51641));
  put(1, bpf_csum_diff(0, 0, b, 8, 0xffff0000));
  put(2, bpf_csum_diff(a, 4, 0, 0, 0x1000));
  put(3, bpf_csum_diff(0, 0, 0, 0, 0x1234));
  put(4, bpf_csum_diff(a, 8, a, 8, 0));
  put(5, bpf_csum_diff(a, 4, a, 6, 5));
  put(6, bpf_csum_diff(b, 7, 0, 0, 0));
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

// compare dumps, on both sides, only the maps the program it runs reaches.
// libbpf makes every map of an object for each program it loads (here the
// `.data` that only counts_only writes) and binds the read-only data to
// every program; the kernel back end used to dump all of them, so a
// program that agrees with the kernel (no_maps) was reported as differing.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 8 --seed 3
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s %}
// CHECK: counts_only: both: 8 packets, host and kernel agree
// CHECK: no_maps: both: 8 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

__u64 seen = 1;                // .data
const volatile __u32 limit = 7; // .rodata

SEC("xdp") int counts_only(struct xdp_md *ctx) {
  __u32 k = 0;
  __u64 *v = bpf_map_lookup_elem(&counts, &k);
  if (v)
    __sync_fetch_and_add(v, 1);
  seen += 1;
  return XDP_PASS;
}

SEC("xdp") int no_maps(struct xdp_md *ctx) { return limit > 3 ? XDP_PASS : XDP_DROP; }

char _license[] SEC("license") = "GPL";

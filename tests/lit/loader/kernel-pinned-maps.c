// A map declared with LIBBPF_PIN_BY_NAME (xdp-tools' and xdp-tutorial's
// statistics maps are) starts empty on every kernel back-end run, as on the
// host back end, and nothing is left pinned under /sys/fs/bpf. Before, libbpf
// pinned the map at the first run and the second run reused it: a real-world
// object's counters doubled against the host's.
// REQUIRES: kernel-bpf
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 50 --seed 5
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend kernel --dump-maps %t.1
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --backend kernel --dump-maps %t.2
// RUN: FileCheck %s < %t.1
// RUN: FileCheck %s < %t.2
// RUN: not ls /sys/fs/bpf/ebpfgpu_lit_pinned_count 2>&1 | FileCheck %s --check-prefix=UNPINNED
// RUN: %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d %t.o:count_pinned | FileCheck %s --check-prefix=DIFF
// CHECK: ebpfgpu_lit_pinned_count[0] = 50
// UNPINNED: No such file
// DIFF: count_pinned: 50 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
  __uint(pinning, LIBBPF_PIN_BY_NAME);
} ebpfgpu_lit_pinned_count SEC(".maps");

SEC("xdp") int count_pinned(struct xdp_md *ctx) {
  __u32 k = 0;
  __u64 *n = bpf_map_lookup_elem(&ebpfgpu_lit_pinned_count, &k);
  if (n)
    __sync_fetch_and_add(n, 1);
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

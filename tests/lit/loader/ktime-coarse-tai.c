// bpf_ktime_get_coarse_ns (helper 160) and bpf_ktime_get_tai_ns (208): the
// kernel's CLOCK_MONOTONIC_COARSE and CLOCK_TAI. The host back end reads
// those clocks: the values a program stores lie between the host's readings
// of the same clock just before and just after the run. A coarse value is
// never ahead of bpf_ktime_get_ns read after it, and lags it by less than
// 100 ms (a tick is 4 ms; the rest is room for a loaded machine); TAI does
// not go back (host, GPU and kernel agree). On the GPU both are its global
// timer, the coarse one at its last tick (abi/include/ebpf-gpu/Abi/
// HelperDefs.h), so only those properties hold there.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 20 --seed 4
// RUN: ebpf-gpu-cc %t.o --section coarse_vs_ktime -o %t.coarse.gpu.o
// RUN: ebpf-gpu-cc %t.o --section tai_monotonic -o %t.tai.gpu.o
// RUN: ebpf-gpu-cc %t.o --section store_clocks --emit=ptx --target=sm_90 -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// PTX: %globaltimer
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-loader run %t.o --section coarse_vs_ktime --pcap %t.pcap | FileCheck %s
// RUN: ebpf-gpu-loader run %t.o --section tai_monotonic --pcap %t.pcap | FileCheck %s
// CHECK: XDP_PASS 20
// CHECK-NOT: XDP_DROP
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.coarse.gpu.o --pcap %t.pcap | FileCheck %s %}
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.tai.gpu.o --pcap %t.pcap | FileCheck %s %}
// RUN: %python %S/Inputs/clock-window.py %t.maps 'clocks[0]=coarse' 'clocks[1]=tai' \
// RUN:   'clocks[2]=mono' -- ebpf-gpu-loader run %t.o --section store_clocks --pcap %t.pcap \
// RUN:   --backend host --dump-maps %t.maps | FileCheck %s --check-prefix=WINDOW
// WINDOW: clocks[0]: within coarse's window
// WINDOW-NEXT: clocks[1]: within tai's window
// WINDOW-NEXT: clocks[2]: within mono's window
// The kernel's clocks have the same properties, packet for packet.
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --section coarse_vs_ktime --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL-COARSE %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --section tai_monotonic --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL-TAI %}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --section tai_ahead --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL-AHEAD %}
// KERNEL-COARSE: coarse_vs_ktime: both: 20 packets, host and kernel agree
// KERNEL-TAI: tai_monotonic: both: 20 packets, host and kernel agree
// KERNEL-AHEAD: tai_ahead: both: 20 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define MAX_LAG_NS 100000000ull

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 3);
  __type(key, __u32);
  __type(value, __u64);
} clocks SEC(".maps");

SEC("xdp") int coarse_vs_ktime(struct xdp_md *ctx) {
  __u64 coarse = bpf_ktime_get_coarse_ns();
  __u64 ns = bpf_ktime_get_ns();
  return coarse <= ns && ns - coarse < MAX_LAG_NS ? XDP_PASS : XDP_DROP;
}

SEC("xdp") int tai_monotonic(struct xdp_md *ctx) {
  __u64 first = bpf_ktime_get_tai_ns();
  __u64 second = bpf_ktime_get_tai_ns();
  return first && second >= first ? XDP_PASS : XDP_DROP;
}

// TAI counts from 1970 (past 2020-01-01 by now), the monotonic clock from
// boot: host and kernel, not the GPU.
SEC("xdp") int tai_ahead(struct xdp_md *ctx) {
  __u64 tai = bpf_ktime_get_tai_ns();
  __u64 ns = bpf_ktime_get_ns();
  return tai > 1577836800ull * 1000000000ull && tai > ns ? XDP_PASS : XDP_DROP;
}

SEC("xdp") int store_clocks(struct xdp_md *ctx) {
  __u32 k0 = 0, k1 = 1, k2 = 2;
  __u64 coarse = bpf_ktime_get_coarse_ns(), tai = bpf_ktime_get_tai_ns(),
        ns = bpf_ktime_get_ns();
  bpf_map_update_elem(&clocks, &k0, &coarse, BPF_ANY);
  bpf_map_update_elem(&clocks, &k1, &tai, BPF_ANY);
  bpf_map_update_elem(&clocks, &k2, &ns, BPF_ANY);
  return XDP_PASS;
}

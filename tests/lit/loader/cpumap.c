// bpf_redirect_map into a cpumap (BPF_MAP_TYPE_CPUMAP, values struct
// bpf_cpumap_val): an entry is a CPU whose queue size is not 0 (the kernel
// keeps none for 0), and the answer is XDP_REDIRECT with that CPU as the
// target (`run` lists it: "redirect to cpu N"); a missing entry gives the
// flags' action, and any flag beyond it XDP_ABORTED, as the kernel's. The
// runtime hands such packets to the exception port, as XDP_PASS
// (tests/lit/runtime/cpumap.test; docs/MAPS.md, "cpumap").
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 400 --seed 7
// CPUs 0 and 2 with queues (192 frames), CPU 1 none (Inputs/cpumap.maps).
// RUN: ebpf-gpu-loader run %t.o --section by_proto --pcap %t.pcap --map-file %S/Inputs/cpumap.maps \
// RUN:   | FileCheck %s --check-prefix=PROTO
// PROTO: XDP_DROP [[#%d,IPV6:]]
// PROTO: XDP_REDIRECT [[#%d,N:]]
// PROTO: redirect to cpu 0: [[#%d,IPV4:]]
// PROTO-NEXT: redirect to cpu 2: [[#N-IPV4]]
// RUN: ebpf-gpu-loader run %t.o --section by_proto --pcap %t.pcap | FileCheck %s --check-prefix=EMPTY
// EMPTY: XDP_DROP 400
// RUN: ebpf-gpu-loader run %t.o --section cpu0 --pcap %t.pcap --map-set cpus:00000000:c000000000000000 \
// RUN:   | FileCheck %s --check-prefix=CPU0
// CPU0: XDP_REDIRECT 400
// CPU0: redirect to cpu 0: 400
// RUN: ebpf-gpu-loader run %t.o --section cpu9 --pcap %t.pcap --map-set cpus:00000000:c000000000000000 \
// RUN:   | FileCheck %s --check-prefix=CPU9
// CPU9: XDP_PASS 400
// RUN: ebpf-gpu-loader run %t.o --section bad_flags --pcap %t.pcap --map-set cpus:00000000:c000000000000000 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: XDP_ABORTED 400
//
// The kernel: the same verdicts, bytes and maps on an empty cpumap, and
// with a queue on CPU 0 (Inputs/cpumap-kernel.maps: the kernel starts a
// thread for it; every machine has a CPU 0).
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: by_proto: both: 400 packets, host and kernel agree
// KERNEL-NEXT: cpu0: both: 400 packets, host and kernel agree
// KERNEL-NEXT: cpu9: both: 400 packets, host and kernel agree
// KERNEL-NEXT: bad_flags: both: 400 packets, host and kernel agree
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d %t.o:by_proto+%S/Inputs/cpumap-kernel.maps %t.o:cpu0+%S/Inputs/cpumap-kernel.maps \
// RUN:   %t.o:bad_flags+%S/Inputs/cpumap-kernel.maps | FileCheck %s --check-prefix=DIFF %}
// DIFF: by_proto: 400 packets, host and kernel agree
// DIFF: cpu0: 400 packets, host and kernel agree
// DIFF: bad_flags: 400 packets, host and kernel agree
#include <linux/bpf.h>
#include <linux/if_ether.h>

#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_CPUMAP);
  __type(key, __u32);
  __type(value, struct bpf_cpumap_val);
  __uint(max_entries, 4);
} cpus SEC(".maps");

// IPv4 to CPU 0, IPv6 to CPU 1, the rest to CPU 2; XDP_DROP where the CPU
// has no queue.
SEC("xdp") int by_proto(struct xdp_md *ctx) {
  void *data_end = (void *)(long)ctx->data_end;
  void *data = (void *)(long)ctx->data;
  struct ethhdr *eth = data;
  if (data + sizeof(*eth) > data_end)
    return XDP_DROP;
  __u32 cpu = eth->h_proto == bpf_htons(ETH_P_IP) ? 0 : eth->h_proto == bpf_htons(ETH_P_IPV6) ? 1 : 2;
  return bpf_redirect_map(&cpus, cpu, XDP_DROP);
}

SEC("xdp") int cpu0(struct xdp_md *ctx) { return bpf_redirect_map(&cpus, 0, XDP_PASS); }

// Past max_entries: no entry.
SEC("xdp") int cpu9(struct xdp_md *ctx) { return bpf_redirect_map(&cpus, 9, XDP_PASS); }

// Broadcast is a devmap's flag only.
SEC("xdp") int bad_flags(struct xdp_md *ctx) {
  return bpf_redirect_map(&cpus, 0, BPF_F_BROADCAST | XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";

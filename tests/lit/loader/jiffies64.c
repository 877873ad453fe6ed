// bpf_jiffies64 (helper 118, which the kernel offers every program type and
// Cilium's conntrack calls): the kernel's jiffies_64 at CONFIG_HZ 250, from
// INITIAL_JIFFIES (2^32 - 300 * HZ), derived from bpf_ktime_get_ns's clock
// on each back end (abi/include/ebpf-gpu/Abi/HelperDefs.h). On the host
// back end (and the GPU's) a jiffies value read before a ktime one and
// one read after it bound INITIAL_JIFFIES + ns / 4,000,000.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 20 --seed 4
// RUN: ebpf-gpu-cc %t.o --section jiffies_vs_ktime -o %t.gpu.o
// RUN: ebpf-gpu-loader run %t.o --section jiffies_vs_ktime --pcap %t.pcap | FileCheck %s
// RUN: ebpf-gpu-loader run %t.o --section jiffies_monotonic --pcap %t.pcap | FileCheck %s
// CHECK: XDP_PASS 20
// CHECK-NOT: XDP_DROP
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap | FileCheck %s %}
// The kernel's jiffies_64 (this kernel's HZ is 250) is past INITIAL_JIFFIES
// and does not go back: host and kernel agree packet for packet.
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --section jiffies_monotonic --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: jiffies_monotonic: both: 20 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define HZ 250
#define INITIAL_JIFFIES (0x100000000ull - 300ull * HZ)

char _license[] SEC("license") = "GPL";

SEC("xdp") int jiffies_vs_ktime(struct xdp_md *ctx) {
  __u64 before = bpf_jiffies64();
  __u64 ns = bpf_ktime_get_ns();
  __u64 after = bpf_jiffies64();
  __u64 want = INITIAL_JIFFIES + ns / (1000000000ull / HZ);
  return before <= want && want <= after ? XDP_PASS : XDP_DROP;
}

SEC("xdp") int jiffies_monotonic(struct xdp_md *ctx) {
  __u64 first = bpf_jiffies64();
  __u64 second = bpf_jiffies64();
  return first > INITIAL_JIFFIES && second >= first ? XDP_PASS : XDP_DROP;
}

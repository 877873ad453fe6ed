// Programs of other types in an XDP object (the kernel's selftests keep tc
// and tracing programs beside their XDP ones): their sections name the type
// (libbpf's section names), and ebpf-gpu neither verifies nor runs them as
// XDP, on any back end; the object's XDP programs are unaffected. `compare`
// says `not-xdp` for them (before, it loaded a tp_btf program as XDP and
// libbpf crashed). Devmap and cpumap programs (`xdp/devmap`, `xdp/cpumap`)
// run in the kernel's test runs only as plain XDP programs: compared so,
// and one that reads `egress_ifindex` is `attach-bound` (the kernel refuses
// that read outside a devmap program), not `ours`.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 50 --seed 1
// RUN: not ebpf-gpu-cc %t.o --section tc_main -o %t.gpu.o 2>&1 | FileCheck %s --check-prefix=TC
// TC: error: {{.*}}: program tc_main: section 'tc' is for tc (sched_cls) programs, not XDP (ebpf-gpu runs XDP programs)
// RUN: not ebpf-gpu-loader run %t.o --section trace --pcap %t.pcap 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE: error: {{.*}}: program trace: section 'tp_btf/xdp_exception' is for tracing (tp_btf) programs, not XDP
// RUN: not ebpf-gpu-cc %t.o -o %t.gpu.o 2>&1 | FileCheck %s --check-prefix=CHOOSE
// CHOOSE: 5 programs; choose one with --section (xdp_main, dm, dm_egress, tc_main (not linked: {{.*}}), trace (not linked: {{.*}}))
// RUN: ebpf-gpu-cc %t.o --section xdp_main -o %t.gpu.o
// RUN: ebpf-gpu-loader run %t.o --section dm_egress --pcap %t.pcap | FileCheck %s --check-prefix=DEVMAP
// DEVMAP: XDP_DROP {{ *}}50
// RUN: %if kernel-bpf %{ not ebpf-gpu-loader run %t.o --section tc_main --backend kernel --pcap %t.pcap 2>&1 | FileCheck %s --check-prefix=KTC %}
// KTC: error: {{.*}}: kernel back end: program 'tc_main' (section 'tc') is a sched_cls program, not XDP
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=COMPARE %}
// COMPARE: xdp_main: both: 50 packets, host and kernel agree
// COMPARE-NEXT: dm: both: 50 packets, host and kernel agree (the kernel's as a plain XDP program: it test-runs no devmap or cpumap program)
// COMPARE-NEXT: dm_egress: attach-bound: invalid bpf_context access off=20 size=4 (the kernel's as a plain XDP program: it test-runs no devmap or cpumap program)
// COMPARE-NEXT: tc_main: not-xdp: section 'tc' is for tc (sched_cls) programs
// COMPARE-NEXT: trace: not-xdp: section 'tp_btf/xdp_exception' is for tracing (tp_btf) programs
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp") int xdp_main(struct xdp_md *ctx) { return XDP_PASS; }

SEC("tc") int tc_main(struct __sk_buff *skb) { return skb->len > 100 ? 2 : 0; }

SEC("tp_btf/xdp_exception") int trace(void *ctx) { return 0; }

SEC("xdp/devmap") int dm(struct xdp_md *ctx) { return XDP_PASS; }

SEC("xdp/devmap") int dm_egress(struct xdp_md *ctx) {
  return ctx->egress_ifindex ? XDP_PASS : XDP_DROP;
}

char _license[] SEC("license") = "GPL";

// A program of an object that cannot be linked (here: it calls a kfunc
// ebpf-gpu does not support, refused naming it) refuses that program only,
// as the kernel loads each program alone: the object's other programs
// verify, compile and run.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --section plain -o %t.plain.gpu.o
// RUN: not ebpf-gpu-cc %t.o --section uses_kfunc -o %t.kfunc.gpu.o 2>&1 | FileCheck %s --check-prefix=CC
// CC: ebpf-gpu-cc: error: {{.*}}.o: program uses_kfunc: section xdp: insn {{[0-9]+}}: calls kfunc 'bpf_cast_to_kern_ctx', which ebpf-gpu does not support
// RUN: not ebpf-gpu-cc %t.o -o %t.any.gpu.o 2>&1 | FileCheck %s --check-prefix=SEVERAL
// SEVERAL: 2 programs; choose one with --section (plain, uses_kfunc (not linked: program uses_kfunc:
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 4 --seed 1
// RUN: ebpf-gpu-loader run %t.o --section plain --backend host --pcap %t.pcap | FileCheck %s --check-prefix=HOST
// HOST: XDP_PASS 4 {{[0-9]+}}
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.o --pcap %t.pcap | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: plain: both: 4 packets, host and kernel agree
// KERNEL: uses_kfunc: kernel: {{.*}}calls kfunc 'bpf_cast_to_kern_ctx'
// A kfunc this kernel lacks too (a module's, the module not loaded: the
// selftests' xdp_flowtable): libbpf refuses before the verifier, which
// compare reports as the kernel's refusal, naming it.
// RUN: %clang-bpf -DMISSING -c %s -o %t.missing.o
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.missing.o --section uses_kfunc --pcap %t.pcap | FileCheck %s --check-prefix=MISSING %}
// MISSING: uses_kfunc: neither: the kernel has no kfunc 'bpf_no_such_kfunc' (not in its BTF nor a loaded module's)
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#ifdef MISSING
extern void *bpf_no_such_kfunc(void *) __ksym;
#define bpf_cast_to_kern_ctx bpf_no_such_kfunc
#else
extern void *bpf_cast_to_kern_ctx(void *) __ksym;
#endif

SEC("xdp") int uses_kfunc(struct xdp_md *ctx) {
  return bpf_cast_to_kern_ctx(ctx) ? XDP_PASS : XDP_DROP;
}

SEC("xdp") int plain(struct xdp_md *ctx) { return XDP_PASS; }

char _license[] SEC("license") = "GPL";

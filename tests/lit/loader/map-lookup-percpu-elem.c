// bpf_map_lookup_percpu_elem (helper 195): CPU `cpu`'s copy of a per-CPU
// array's or hash's value, or NULL for a missing key or a CPU past the
// last (the kernel's nr_cpu_ids; the runtime's CPUs: the host back end of
// `run` has one, CPU 0). A copy written
// through the pointer is the one bpf_map_lookup_elem sees on that CPU.
// The verifier takes only per-CPU maps (tests/lit/verifier/map-lookup-percpu-elem.c).
// Host and kernel (whose test runs are on CPU 0, and which has more CPUs:
// CPU 1 is left out of the comparison) agree on verdicts and maps.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 25 --seed 6
// RUN: ebpf-gpu-cc %t.o --section percpu_elem -o %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --section percpu_elem --emit=ptx --target=sm_90 -o %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.ptx -o %t.cubin %}
// RUN: ebpf-gpu-loader run %t.o --section percpu_elem --pcap %t.pcap --backend host --dump-maps %t.maps | FileCheck %s
// RUN: ebpf-gpu-loader run %t.o --section past_last_cpu --pcap %t.pcap --backend host | FileCheck %s
// CHECK: XDP_PASS 25
// CHECK-NOT: XDP_DROP
// RUN: FileCheck %s --check-prefix=MAPS < %t.maps
// MAPS: counts[0] = 25
// MAPS: counts[1] = 50
// MAPS: flows{07000000} = 25
// The GPU: every packet finds its own CPU's copy and none past the last.
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.gpu.o --pcap %t.pcap | FileCheck %s %}
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader \
// RUN:   --pcap %t.pcap --work %t.d %t.o:percpu_elem | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: percpu_elem: 25 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char _license[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u64);
} counts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
  __uint(max_entries, 16);
  __type(key, __u32);
  __type(value, __u64);
} flows SEC(".maps");

SEC("xdp") int percpu_elem(struct xdp_md *ctx) {
  __u32 k0 = 0, k1 = 1, k2 = 2, flow = 7, other = 8, cpu = bpf_get_smp_processor_id();
  __u64 *a = bpf_map_lookup_percpu_elem(&counts, &k0, cpu);
  if (!a)
    return XDP_DROP;
  *a += 1;
  // The same copy as bpf_map_lookup_elem's on this CPU.
  __u64 *b = bpf_map_lookup_elem(&counts, &k1);
  if (!b)
    return XDP_ABORTED;
  *b += 2;
  __u64 *c = bpf_map_lookup_percpu_elem(&counts, &k1, cpu);
  if (c != b)
    return XDP_DROP;
  // No key 2; a CPU far past the last.
  if (bpf_map_lookup_percpu_elem(&counts, &k2, cpu) ||
      bpf_map_lookup_percpu_elem(&counts, &k0, 100000))
    return XDP_DROP;
  __u64 one = 1;
  __u64 *f = bpf_map_lookup_percpu_elem(&flows, &flow, cpu);
  if (!f)
    bpf_map_update_elem(&flows, &flow, &one, BPF_ANY);
  else
    *f += 1;
  return bpf_map_lookup_percpu_elem(&flows, &other, cpu) ? XDP_DROP : XDP_PASS;
}

// The host back end's `run` has one CPU: CPU 1 is past the last.
SEC("xdp") int past_last_cpu(struct xdp_md *ctx) {
  __u32 k0 = 0;
  return bpf_map_lookup_percpu_elem(&counts, &k0, 1) ? XDP_DROP : XDP_PASS;
}

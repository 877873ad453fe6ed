// Per-CPU adds summed per block on the GPU (ProgramLifter::retargetPerCpuAdds,
// MapHelpers.inc's array_block_lookup_elem, BlockAdds.inc): where each plain
// load and store of a per-CPU array's values is one half of an add written
// back (`s->packets += 1`, 64- and 32-bit fields), the adds become
// block-combined adds on one slice the block picks from its index, and the
// program, with no other per-CPU map, has no CPU groups to claim (the loader
// caps its grid at the CPUs). Each variant below breaks one condition and
// keeps the groups and the plain read-modify-writes: the value read for
// anything else, stored whole, doubled (its read has two uses), handed to
// bpf_map_lookup_percpu_elem's caller, or a fetching atomic elsewhere.
// Every variant counts alike on the host back end (100 packets, 3 bytes of
// `small` each).
// RUN: %clang-bpf -c %s -o %t.adds.o
// RUN: ebpf-gpu-cc %t.adds.o --emit=ptx --target=sm_90 -o %t.adds.ptx
// RUN: FileCheck %s --check-prefix=BLOCK < %t.adds.ptx
// BLOCK-NOT: ebpfgpu_cpu_groups
// BLOCK: .entry ebpfgpu_xdp_batch(
// BLOCK-DAG: %ctaid.x
// BLOCK-DAG: atom.shared.cas.b64
// BLOCK-DAG: atom.shared.add.u64
// BLOCK-DAG: atom.add.u32
// BLOCK-NOT: ld.volatile.global
// BLOCK: .entry ebpfgpu_xdp_persistent(
// With ALU32 (-mcpu=v3: `w3 += 3`, and `w1 = 0` after an add leaves a
// truncation of the sum nothing reads) the same:
// RUN: %clang-bpf -mcpu=v3 -c %s -o %t.v3.o
// RUN: ebpf-gpu-cc %t.v3.o --emit=ptx --target=sm_90 -o %t.v3.ptx
// RUN: FileCheck %s --check-prefix=BLOCK < %t.v3.ptx
// RUN: %clang-bpf -DREADS -c %s -o %t.reads.o
// RUN: ebpf-gpu-cc %t.reads.o --emit=ptx --target=sm_90 -o %t.reads.ptx
// RUN: FileCheck %s --check-prefix=GROUPS < %t.reads.ptx
// RUN: %clang-bpf -DSTORES -c %s -o %t.stores.o
// RUN: ebpf-gpu-cc %t.stores.o --emit=ptx --target=sm_90 -o %t.stores.ptx
// RUN: FileCheck %s --check-prefix=GROUPS < %t.stores.ptx
// RUN: %clang-bpf -DDOUBLES -c %s -o %t.doubles.o
// RUN: ebpf-gpu-cc %t.doubles.o --emit=ptx --target=sm_90 -o %t.doubles.ptx
// RUN: FileCheck %s --check-prefix=GROUPS < %t.doubles.ptx
// RUN: %clang-bpf -DPERCPU_ELEM -c %s -o %t.elem.o
// RUN: ebpf-gpu-cc %t.elem.o --emit=ptx --target=sm_90 -o %t.elem.ptx
// RUN: FileCheck %s --check-prefix=GROUPS < %t.elem.ptx
// RUN: %clang-bpf -mcpu=v3 -DFETCHES -c %s -o %t.fetches.o
// RUN: ebpf-gpu-cc %t.fetches.o --emit=ptx --target=sm_90 -o %t.fetches.ptx
// RUN: FileCheck %s --check-prefix=GROUPS < %t.fetches.ptx
// GROUPS: ebpfgpu_cpu_groups
// GROUPS: .entry ebpfgpu_xdp_batch(
// GROUPS: ld.volatile.global
// GROUPS: .entry ebpfgpu_xdp_persistent(
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 100 --seed 3
// RUN: ebpf-gpu-loader run %t.adds.o --pcap %t.pcap --backend host --dump-maps %t.adds.maps
// RUN: %python %S/Inputs/percpu-counters.py %t.adds.maps 100
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.adds.ptx -o %t.adds.cubin %}
// RUN: %if cuda-gpu %{ ebpf-gpu-loader run %t.adds.o --pcap %t.pcap --dump-maps %t.gpu.maps %}
// RUN: %if cuda-gpu %{ %python %S/Inputs/percpu-counters.py %t.gpu.maps 100 %}
// RUN: ebpf-gpu-loader run %t.doubles.o --pcap %t.pcap --backend host --dump-maps %t.doubles.maps
// RUN: %python %S/Inputs/percpu-counters.py %t.doubles.maps 100
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct counters {
  __u64 packets, bytes;
  __u32 small, pad;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, struct counters);
  __uint(max_entries, 2);
} stats SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} other SEC(".maps");

SEC("xdp")
int count(struct xdp_md *ctx) {
  __u32 k = ctx->data_end - ctx->data > 100;
  struct counters *s = bpf_map_lookup_elem(&stats, &k);
  if (!s)
    return XDP_ABORTED;
  s->packets += 1;
  s->bytes += ctx->data_end - ctx->data;
  s->small += 3;
#if defined(READS)
  if (s->bytes > 1000000)
    return XDP_DROP;
#elif defined(STORES)
  if (ctx->data_end - ctx->data > 10000)
    s->pad = 1;
#elif defined(DOUBLES)
  // Read once, added twice: 2 * pad is still 0, but the read has two uses.
  s->pad += s->pad;
#elif defined(PERCPU_ELEM)
  if (!bpf_map_lookup_percpu_elem(&stats, &k, 0))
    return XDP_DROP;
#elif defined(FETCHES)
  __u32 z = 0;
  __u64 *o = bpf_map_lookup_elem(&other, &z);
  if (o && __sync_fetch_and_add(o, 1) > 1000000)
    return XDP_DROP;
#endif
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

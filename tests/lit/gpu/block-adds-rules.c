// Which adds become block-combined on the GPU (BlockAdds.inc,
// ProgramLifter::retargetBlockAdds): only adds without a result to an
// array whose values nothing else in the program reads, writes, updates
// or hands to a helper, in a program with no atomic that returns a value.
// Each variant below breaks one condition and keeps warp-combined adds;
// every variant counts alike on the host back end.
// RUN: %clang-bpf -c %s -o %t.adds.o
// RUN: ebpf-gpu-cc %t.adds.o --emit=ptx --target=sm_90 -o %t.adds.ptx
// RUN: FileCheck %s --check-prefix=BLOCK < %t.adds.ptx
// BLOCK: .entry ebpfgpu_xdp_batch(
// BLOCK: atom.shared.cas.b64
// RUN: %clang-bpf -mcpu=v3 -DREADS -c %s -o %t.reads.o
// RUN: ebpf-gpu-cc %t.reads.o --emit=ptx --target=sm_90 -o %t.reads.ptx
// RUN: FileCheck %s --check-prefix=WARP < %t.reads.ptx
// RUN: %clang-bpf -mcpu=v3 -DSTORES -c %s -o %t.stores.o
// RUN: ebpf-gpu-cc %t.stores.o --emit=ptx --target=sm_90 -o %t.stores.ptx
// RUN: FileCheck %s --check-prefix=WARP < %t.stores.ptx
// RUN: %clang-bpf -mcpu=v3 -DUPDATES -c %s -o %t.updates.o
// RUN: ebpf-gpu-cc %t.updates.o --emit=ptx --target=sm_90 -o %t.updates.ptx
// RUN: FileCheck %s --check-prefix=WARP < %t.updates.ptx
// RUN: %clang-bpf -mcpu=v3 -DFETCHES -c %s -o %t.fetches.o
// RUN: ebpf-gpu-cc %t.fetches.o --emit=ptx --target=sm_90 -o %t.fetches.ptx
// RUN: FileCheck %s --check-prefix=WARP < %t.fetches.ptx
// WARP: .entry ebpfgpu_xdp_batch(
// WARP-NOT: atom.shared
// WARP: .entry ebpfgpu_xdp_persistent(
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 100 --seed 3
// RUN: ebpf-gpu-loader run %t.adds.o --pcap %t.pcap --backend host --dump-maps %t.maps
// RUN: FileCheck %s --check-prefix=COUNTS < %t.maps
// COUNTS: counts[0] = 100
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 2);
} counts SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 1);
} other SEC(".maps");

SEC("xdp")
int count(struct xdp_md *ctx) {
  __u32 k = 0;
  __u64 *n = bpf_map_lookup_elem(&counts, &k);
  if (!n)
    return XDP_ABORTED;
  __sync_fetch_and_add(n, 1);
#if defined(READS)
  if (*n > 1000000)
    return XDP_DROP;
#elif defined(STORES)
  if (ctx->data_end - ctx->data > 10000)
    *n = 0;
#elif defined(UPDATES)
  __u64 zero = 0;
  if (ctx->data_end - ctx->data > 10000)
    bpf_map_update_elem(&counts, &k, &zero, BPF_ANY);
#elif defined(FETCHES)
  __u64 *o = bpf_map_lookup_elem(&other, &k);
  if (o && __sync_fetch_and_add(o, 1) > 1000000)
    return XDP_DROP;
#endif
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

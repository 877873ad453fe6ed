// ebpf-gpu-cc --system-atomics (issue 22): a program whose maps live once,
// in one GPU's memory, and are changed from several GPUs over peer access
// needs its atomics coherent across GPUs. LLVM 19's NVPTX emits every
// atomicrmw and cmpxchg as `atom` (.gpu scope: one GPU's threads only),
// whatever its syncscope, so the back end writes them as `atom.sys` there:
// the program's own BPF atomics (each kind below, 32 and 64 bits) and the
// map library's (xdp_conntrack's hash inserts: compare-and-swap, counters,
// the spin lock's fence). The default build keeps `.gpu`, and the
// per-block adds in shared memory stay as they are in both.
// RUN: %clang-bpf -mcpu=v3 -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=ptx --target=sm_90 -o %t.gpu.ptx
// RUN: FileCheck %s --check-prefix=GPU < %t.gpu.ptx
// RUN: ebpf-gpu-cc %t.o --system-atomics --emit=ptx --target=sm_90 -o %t.sys.ptx
// RUN: FileCheck %s --check-prefix=SYS < %t.sys.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90 %t.sys.ptx -o %t.cubin %}
// GPU-LABEL: .entry ebpfgpu_xdp_batch(
// GPU-NOT: atom.sys
// GPU-DAG: {{atom(\.global)?\.add\.u64}}
// GPU-DAG: {{atom(\.global)?\.or\.b32}}
// GPU-DAG: {{atom(\.global)?\.and\.b64}}
// GPU-DAG: {{atom(\.global)?\.xor\.b32}}
// GPU-DAG: {{atom(\.global)?\.exch\.b64}}
// GPU-DAG: {{atom(\.global)?\.cas\.b32}}
// GPU-NOT: atom.sys
// SYS-LABEL: .entry ebpfgpu_xdp_batch(
// SYS-NOT: {{atom(\.global)?\.(add|or|and|xor|exch|cas)}}
// SYS-DAG: {{atom\.sys(\.global)?\.add\.u64}}
// SYS-DAG: {{atom\.sys(\.global)?\.or\.b32}}
// SYS-DAG: {{atom\.sys(\.global)?\.and\.b64}}
// SYS-DAG: {{atom\.sys(\.global)?\.xor\.b32}}
// SYS-DAG: {{atom\.sys(\.global)?\.exch\.b64}}
// SYS-DAG: {{atom\.sys(\.global)?\.cas\.b32}}
// SYS-NOT: {{atom(\.global)?\.(add|or|and|xor|exch|cas)}}
//
// The map library: xdp_conntrack's hash (insert, delete, spin lock).
// RUN: ebpf-gpu-cc %samples/xdp_conntrack.o --emit=ptx -o %t.ct-gpu.ptx
// RUN: FileCheck %s --check-prefix=CT-GPU < %t.ct-gpu.ptx
// RUN: ebpf-gpu-cc %samples/xdp_conntrack.o --system-atomics --emit=ptx -o %t.ct-sys.ptx
// RUN: FileCheck %s --check-prefix=CT-SYS < %t.ct-sys.ptx
// CT-GPU-DAG: atom.cas.b32
// CT-GPU-DAG: fence.acq_rel.gpu;
// CT-SYS-NOT: {{atom(\.global)?\.(add|cas)}}
// CT-SYS-NOT: fence.acq_rel.gpu
// CT-SYS-DAG: atom.sys.cas.b32
// CT-SYS-DAG: atom.sys.add.u32
// CT-SYS-DAG: fence.acq_rel.sys;
//
// The .gpu.o says so (format 5), and only then.
// RUN: ebpf-gpu-cc %t.o --system-atomics -o %t.sys.gpu.o
// RUN: llvm-readelf -p .ebpfgpu.meta %t.sys.gpu.o | FileCheck %s --check-prefix=META
// RUN: ebpf-gpu-cc %t.o -o %t.plain.gpu.o
// RUN: llvm-readelf -p .ebpfgpu.meta %t.plain.gpu.o | FileCheck %s --check-prefix=PLAIN
// META: format {{[0-9]+}}
// META: atomics system
// PLAIN: format {{[0-9]+}}
// PLAIN-NOT: atomics system
// PLAIN: seal

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct words {
  __u64 added;
  __u32 ored;
  __u32 xored;
  __u64 anded;
  __u64 swapped;
  __u32 cas;
  __u32 pad;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct words);
} words SEC(".maps");

SEC("xdp")
int system_atomics(struct xdp_md *ctx) {
  __u32 key = 0;
  struct words *w = bpf_map_lookup_elem(&words, &key);
  if (!w)
    return XDP_ABORTED;
  __u32 len = ctx->data_end - ctx->data;
  __u64 before = __sync_fetch_and_add(&w->added, len);
  __sync_fetch_and_or(&w->ored, 1u << (len & 31));
  __sync_fetch_and_xor(&w->xored, len);
  __sync_fetch_and_and(&w->anded, ~(1ull << (len & 63)));
  __sync_lock_test_and_set(&w->swapped, before);
  __sync_val_compare_and_swap(&w->cas, 0, len);
  return before & 1 ? XDP_DROP : XDP_PASS;
}

char _license[] SEC("license") = "GPL";

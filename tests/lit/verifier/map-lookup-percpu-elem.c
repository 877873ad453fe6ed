// SPDX-License-Identifier: GPL-2.0
// bpf_map_lookup_percpu_elem takes only per-CPU maps (percpu array, percpu
// hash, LRU percpu hash), as the kernel's check_map_func_compatibility,
// and its result may be null even for an array key in range (the CPU may
// be past the last), where bpf_map_lookup_elem's cannot: each misuse is
// refused by ours and by the kernel's.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=SHARED
// SHARED: map-lookup-percpu-elem.c:{{[0-9]+}}: pc {{[0-9]+}}: bpf_map_lookup_percpu_elem cannot use map 'shared' (array) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: r0 may be null
// RUN: ebpf-gpu-cc %t.3.o -o %t.3.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.3.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} shared SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} percpu SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_LRU_PERCPU_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} lru SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 k = 1;
#if CASE == 1 // not a per-CPU map
  __u64 *v = bpf_map_lookup_percpu_elem(&shared, &k, 0);
  return v ? XDP_PASS : XDP_DROP;
#elif CASE == 2 // a key in range, no null check
  __u64 *v = bpf_map_lookup_percpu_elem(&percpu, &k, 0);
  return *v & 3;
#elif CASE == 3 // accepted: per-CPU array and LRU hash, null checked
  __u64 *v = bpf_map_lookup_percpu_elem(&percpu, &k, 0);
  __u64 *w = bpf_map_lookup_percpu_elem(&lru, &k, 1);
  return (v ? *v : 0) + (w ? *w : 0) & 3;
#endif
}
char LICENSE[] SEC("license") = "GPL";

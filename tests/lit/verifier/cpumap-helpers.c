// SPDX-License-Identifier: Apache-2.0
// A cpumap serves bpf_redirect_map alone, as the kernel's
// check_map_func_compatibility keeps it ("Restrict bpf side of cpumap"):
// bpf_map_lookup_elem, _update_elem and _delete_elem on it are refused by
// both verifiers (cases 1-3), while a devmap may be looked up and a cpumap
// redirected into (cases 4 and 5, accepted by both). Before, ebpf-gpu let a
// program look up a cpumap as it does a devmap (issue 17).
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=LOOKUP
// LOOKUP: cpumap-helpers.c:[[@LINE+38]]: pc {{[0-9]+}}: bpf_map_lookup_elem cannot use map 'cpus' (cpumap) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=UPDATE
// UPDATE: pc {{[0-9]+}}: bpf_map_update_elem cannot use map 'cpus' (cpumap)
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=DELETE
// DELETE: pc {{[0-9]+}}: bpf_map_delete_elem cannot use map 'cpus' (cpumap)
// RUN: ebpf-gpu-cc %t.4.o --emit=verifier-log | FileCheck %s --check-prefix=OK
// RUN: ebpf-gpu-cc %t.5.o --emit=verifier-log | FileCheck %s --check-prefix=OK
// OK: verified:
// The kernel's reasons, and its acceptance of cases 4 and 5.
// RUN: %if kernel-bpf %{ not bpftool prog load %t.1.o /sys/fs/bpf/ebpf_gpu_lit_cpumap_1 type xdp 2>&1 | FileCheck %s --check-prefix=K1 %}
// K1: cannot pass map_type 16 into func bpf_map_lookup_elem#1
// RUN: %if kernel-bpf %{ not bpftool prog load %t.2.o /sys/fs/bpf/ebpf_gpu_lit_cpumap_2 type xdp 2>&1 | FileCheck %s --check-prefix=K2 %}
// K2: cannot pass map_type 16 into func bpf_map_update_elem#2
// RUN: %if kernel-bpf %{ not bpftool prog load %t.3.o /sys/fs/bpf/ebpf_gpu_lit_cpumap_3 type xdp 2>&1 | FileCheck %s --check-prefix=K3 %}
// K3: cannot pass map_type 16 into func bpf_map_delete_elem#3
// RUN: %if kernel-bpf %{ bpftool prog load %t.4.o /sys/fs/bpf/ebpf_gpu_lit_cpumap_4 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_cpumap_4 %}
// RUN: %if kernel-bpf %{ bpftool prog load %t.5.o /sys/fs/bpf/ebpf_gpu_lit_cpumap_5 type xdp && rm /sys/fs/bpf/ebpf_gpu_lit_cpumap_5 %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_CPUMAP);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, struct bpf_cpumap_val);
} cpus SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_DEVMAP);
  __uint(max_entries, 4);
  __type(key, __u32);
  __type(value, struct bpf_devmap_val);
} ports SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 key = 0;
#if CASE == 1
  struct bpf_cpumap_val *v = bpf_map_lookup_elem(&cpus, &key);
  return v && v->qsize ? XDP_DROP : XDP_PASS;
#elif CASE == 2
  struct bpf_cpumap_val v = {.qsize = 64};
  return bpf_map_update_elem(&cpus, &key, &v, BPF_ANY) ? XDP_DROP : XDP_PASS;
#elif CASE == 3
  return bpf_map_delete_elem(&cpus, &key) ? XDP_DROP : XDP_PASS;
#elif CASE == 4
  struct bpf_devmap_val *v = bpf_map_lookup_elem(&ports, &key);
  return v && v->ifindex ? XDP_DROP : XDP_PASS;
#else
  return bpf_redirect_map(&cpus, key, XDP_PASS);
#endif
}

char _license[] SEC("license") = "GPL";

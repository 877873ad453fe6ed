// Special maps serve only their own helpers, and those helpers only them;
// devmap values are read-only to programs. Each misuse is refused by our
// verifier and by the kernel's.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=UPDATE
// UPDATE: maps-helpers.c:[[@LINE+33]]: pc {{[0-9]+}}: bpf_map_update_elem cannot use map 'ports' (devmap) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: maps-helpers.c:[[@LINE+36]]: pc {{[0-9]+}}: write to read-only map 'ports' (writable(r0))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=REDIRECT
// REDIRECT: maps-helpers.c:[[@LINE+37]]: pc {{[0-9]+}}: bpf_redirect_map cannot use map 'table' (hash) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=TAIL
// TAIL: maps-helpers.c:[[@LINE+37]]: pc {{[0-9]+}}: bpf_tail_call cannot use map 'table' (hash) (map_func_compatible(r2))
// RUN: ebpf-gpu-cc %t.5.o -o %t.5.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_DEVMAP);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 4);
} ports SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u32);
  __uint(max_entries, 4);
} table SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 key = 0, value = 1;
#if CASE == 1
  bpf_map_update_elem(&ports, &key, &value, 0);
  return XDP_PASS;
#elif CASE == 2
  __u32 *port = bpf_map_lookup_elem(&ports, &key);
  if (port)
    *port = 7;
  return XDP_PASS;
#elif CASE == 3
  return bpf_redirect_map(&table, 0, XDP_PASS);
#elif CASE == 4
  bpf_tail_call(ctx, &table, 0);
  return XDP_PASS;
#else
  // Allowed: look a devmap up, redirect through it.
  __u32 *port = bpf_map_lookup_elem(&ports, &key);
  if (port && *port == 0)
    return XDP_DROP;
  return bpf_redirect_map(&ports, 1, XDP_PASS);
#endif
}

char LICENSE[] SEC("license") = "GPL";

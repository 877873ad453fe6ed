// A map created with BPF_F_RDONLY_PROG may be read by the program but not
// changed: besides a store through a value pointer (write to read-only map),
// the helpers that add, replace or remove an element (bpf_map_update_elem,
// _delete_elem, _push_elem, _pop_elem) are refused on it, by our verifier and
// by the kernel's (record_func_map: "write into map forbidden"). Lookups,
// reads through the value and a queue's peek are accepted by both.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=UPDATE
// UPDATE: rdonly-prog.c:[[@LINE+36]]: pc {{[0-9]+}}: bpf_map_update_elem cannot change read-only map 'table' (writable(r1))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=DELETE
// DELETE: rdonly-prog.c:[[@LINE+36]]: pc {{[0-9]+}}: bpf_map_delete_elem cannot change read-only map 'table' (writable(r1))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=PUSH
// PUSH: rdonly-prog.c:[[@LINE+36]]: pc {{[0-9]+}}: bpf_map_push_elem cannot change read-only map 'fifo' (writable(r1))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=POP
// POP: rdonly-prog.c:[[@LINE+36]]: pc {{[0-9]+}}: bpf_map_pop_elem cannot change read-only map 'fifo' (writable(r1))
// RUN: ebpf-gpu-cc %t.5.o -o %t.5.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o --reason "write into map forbidden" %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o --reason "write into map forbidden" %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o --reason "write into map forbidden" %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o --reason "write into map forbidden" %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.5.o %}

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(map_flags, BPF_F_RDONLY_PROG);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} table SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_QUEUE);
  __uint(map_flags, BPF_F_RDONLY_PROG);
  __type(value, __u64);
  __uint(max_entries, 4);
} fifo SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 key = 0;
  __u64 value = 5;
#if CASE == 1
  bpf_map_update_elem(&table, &key, &value, BPF_ANY);
#elif CASE == 2
  bpf_map_delete_elem(&table, &key);
#elif CASE == 3
  bpf_map_push_elem(&fifo, &value, 0);
#elif CASE == 4
  bpf_map_pop_elem(&fifo, &value);
#else
  __u64 *v = bpf_map_lookup_elem(&table, &key);
  if (v && *v == 1)
    return XDP_DROP;
  if (bpf_map_peek_elem(&fifo, &value) == 0 && value == 2)
    return XDP_DROP;
#endif
  return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";

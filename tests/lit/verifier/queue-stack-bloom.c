// SPDX-License-Identifier: GPL-2.0
// bpf_map_push_elem, bpf_map_pop_elem and bpf_map_peek_elem take only the
// maps the kernel pairs them with (check_map_func_compatibility: push and
// peek queues, stacks and bloom filters, pop queues and stacks), and those
// maps take no other helper (no lookup, update or delete); push reads a
// value of the map's size, pop and peek write one, which need not be
// written before but may not be the packet (no pkt_access, as the
// kernel's). Each misuse is refused by ours and by the kernel's; the last
// case, pops and peeks into buffers never written before, is accepted by
// both.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -DCASE=7 -c %s -o %t.7.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=POP-BLOOM
// POP-BLOOM: queue-stack-bloom.c:{{[0-9]+}}: pc {{[0-9]+}}: bpf_map_pop_elem cannot use map 'bf' (bloom_filter) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=LOOKUP
// LOOKUP: bpf_map_lookup_elem cannot use map 'q' (queue) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=UPDATE
// UPDATE: bpf_map_update_elem cannot use map 'st' (stack) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=ARRAY
// ARRAY: bpf_map_push_elem cannot use map 'arr' (array) (map_func_compatible(r1))
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: bpf_map_push_elem argument 2 (r2): map value read of 16 bytes at offset 0 is outside the 8-byte value of map 'arr'
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=PACKET
// PACKET: bpf_map_pop_elem argument 2 (r2): helper access to the packet is not allowed (bpf_map_pop_elem takes no packet memory, as the kernel's)
// RUN: ebpf-gpu-cc %t.7.o -o %t.7.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.7.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_QUEUE);
  __uint(max_entries, 4);
  __type(value, __u64);
} q SEC(".maps");

struct pair {
  __u64 a, b;
};
struct {
  __uint(type, BPF_MAP_TYPE_QUEUE);
  __uint(max_entries, 4);
  __type(value, struct pair);
} q16 SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_STACK);
  __uint(max_entries, 4);
  __type(value, __u64);
} st SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_BLOOM_FILTER);
  __uint(max_entries, 4);
  __type(value, __u64);
} bf SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} arr SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u64 v = 1;
  __u32 k = 0;
#if CASE == 1 // pop on a bloom filter
  return bpf_map_pop_elem(&bf, &v) & 3;
#elif CASE == 2 // lookup on a queue
  return bpf_map_lookup_elem(&q, &k) ? XDP_PASS : XDP_DROP;
#elif CASE == 3 // update on a stack
  return bpf_map_update_elem(&st, &k, &v, 0) & 3;
#elif CASE == 4 // push into an array
  return bpf_map_push_elem(&arr, &v, 0) & 3;
#elif CASE == 5 // an 8-byte map value pushed as a 16-byte one
  __u64 *p = bpf_map_lookup_elem(&arr, &k);
  if (!p)
    return XDP_PASS;
  return bpf_map_push_elem(&q16, p, 0) & 3;
#elif CASE == 6 // popped into the packet
  void *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 8 > end)
    return XDP_PASS;
  return bpf_map_pop_elem(&q, data) & 3;
#elif CASE == 7 // accepted: pops and peeks fill buffers never written
  __u64 a, b, c;
  bpf_map_pop_elem(&q, &a);
  bpf_map_peek_elem(&st, &b);
  bpf_map_peek_elem(&bf, &c);
  return (a + b + c) & 3;
#endif
}
char LICENSE[] SEC("license") = "GPL";

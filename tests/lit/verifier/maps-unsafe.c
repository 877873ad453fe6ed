// Unsafe uses of maps, each refused by our verifier and by the kernel's.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: maps-unsafe.c:[[@LINE+26]]: pc {{[0-9]+}}: r0 may be null: map value read without a null check (not_null(r0))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=OOB
// OOB: maps-unsafe.c:[[@LINE+29]]: pc {{[0-9]+}}: map value read of 8 bytes at offset 8 is outside the 8-byte value of map 'counters'
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=LEAK
// LEAK: maps-unsafe.c:[[@LINE+31]]: pc {{[0-9]+}}: pointer leak: r{{[0-9]}} (packet pointer) stored into a map value (no_pointer_leak(r{{[0-9]}}))
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// The kernel refuses case 3 only for unprivileged loaders (root may leak
// pointers into maps); ebpf-gpu refuses it for everyone.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

// A hash map: lookups can fail whatever the key. (For arrays the kernel,
// and this verifier, know a constant in-range key cannot fail.)
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} counters SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 key = 0;
  __u64 *v = bpf_map_lookup_elem(&counters, &key);
#if CASE == 1
  return *v ? XDP_DROP : XDP_PASS;
#elif CASE == 2
  if (!v)
    return XDP_PASS;
  volatile __u64 *p = v;
  return p[1] ? XDP_DROP : XDP_PASS;
#else
  if (!v)
    return XDP_PASS;
  *v = (__u64)(long)ctx->data;
  return XDP_PASS;
#endif
}

char LICENSE[] SEC("license") = "GPL";

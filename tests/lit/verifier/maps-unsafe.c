// Unsafe uses of maps, each refused by our verifier and by the kernel's.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=NULL
// NULL: maps-unsafe.c:[[@LINE+30]]: pc {{[0-9]+}}: r0 may be null: map value read without a null check (not_null(r0))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=OOB
// OOB: maps-unsafe.c:[[@LINE+33]]: pc {{[0-9]+}}: map value read of 8 bytes at offset 8 is outside the 8-byte value of map 'counters'
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=LEAK
// LEAK: maps-unsafe.c:[[@LINE+35]]: pc {{[0-9]+}}: pointer leak: r{{[0-9]}} (packet pointer) stored into a map value (no_pointer_leak(r{{[0-9]}}))
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=KEY
// KEY: maps-unsafe.c:[[@LINE+60]]: pc {{[0-9]+}}: r0 may be null: map value read without a null check (not_null(r0))
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
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

#if CASE < 4
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

#else
// An array lookup skips the null check only for a constant key below
// max_entries: here one path stores the constant 6, the other one bytes
// from the packet, and the paths join before the lookup. The key's stack
// bytes must stop that join from being pruned.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 8);
} arr SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  unsigned char *data = (void *)(long)ctx->data, *end = (void *)(long)ctx->data_end;
  if (data + 1 > end)
    return XDP_PASS;
  __u32 key;
  if (data[0] <= 100) {
    key = 6;
  } else if (bpf_xdp_load_bytes(ctx, 0, &key, sizeof(key))) {
    return XDP_PASS;
  }
  __u64 *v = bpf_map_lookup_elem(&arr, &key);
  return *v & 3;
}
#endif

char LICENSE[] SEC("license") = "GPL";

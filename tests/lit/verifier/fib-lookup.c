// SPDX-License-Identifier: GPL-2.0
// bpf_fib_lookup's arguments: params must be initialised stack or map value
// memory of plen bytes that the program may write (the helper rewrites it,
// so the verifier forgets what it knew of those bytes), plen a size above 0
// with a known bound, and a GPL-compatible license (the helper is GPL-only),
// as the kernel's verifier requires; each misuse is
// refused by ours and by the kernel's. A plen below sizeof(struct
// bpf_fib_lookup) verifies and returns -EINVAL at run time, as in the kernel
// (tests/lit/loader/fib-lookup.test).
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: %clang-bpf -DCASE=5 -c %s -o %t.5.o
// RUN: %clang-bpf -DCASE=6 -c %s -o %t.6.o
// RUN: %clang-bpf -DCASE=7 -c %s -o %t.7.o
// RUN: %clang-bpf -DCASE=8 -c %s -o %t.8.o
// RUN: %clang-bpf -DCASE=9 -c %s -o %t.9.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=SMALL
// SMALL: fib-lookup.c:{{[0-9]+}}: pc {{[0-9]+}}: bpf_fib_lookup argument 2 (r2): stack read of 64 bytes at r10-32 is outside the 512-byte frame
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=UNBOUNDED
// UNBOUNDED: bpf_fib_lookup argument 3 (r3) must be a size above 0 with a known bound, is scalar(u0..4294967295,s0..4294967295) (bounded(r3))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=CTX
// CTX: bpf_fib_lookup argument 2 (r2) must point to memory, is a ctx (type(r2) == mem)
// RUN: not ebpf-gpu-cc %t.4.o 2>&1 | FileCheck %s --check-prefix=RODATA
// RODATA: bpf_fib_lookup argument 2 (r2): write to read-only map '.rodata' (writable(r2))
// RUN: not ebpf-gpu-cc %t.5.o 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: bpf_fib_lookup argument 3 (r3) must be a size above 0 with a known bound, is 0 (bounded(r3))
// RUN: not ebpf-gpu-cc %t.6.o 2>&1 | FileCheck %s --check-prefix=REWRITTEN
// REWRITTEN: offset added to r1 (stack pointer) is unbounded
// RUN: not ebpf-gpu-cc %t.7.o 2>&1 | FileCheck %s --check-prefix=PACKET
// PACKET: bpf_fib_lookup argument 2 (r2) must point to the stack or a map value, is a packet pointer (type(r2) == stack|map_value)
// RUN: not ebpf-gpu-cc %t.9.o 2>&1 | FileCheck %s --check-prefix=LICENSE
// LICENSE: bpf_fib_lookup is GPL-only; the program's license 'Proprietary' is not GPL-compatible (gpl_compatible(license))
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 1
// RUN: not ebpf-gpu-loader run %t.9.o --pcap %t.pcap 2>&1 | FileCheck %s --check-prefix=LICENSE
// RUN: ebpf-gpu-cc %t.8.o -o %t.8.gpu.o
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.4.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.5.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.6.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.7.o %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.9.o %}
// RUN: %if kernel-bpf %{ not %S/Inputs/kernel-refuses.sh %t.8.o | FileCheck %s --check-prefix=KERNEL-ACCEPTS %}
// KERNEL-ACCEPTS: the kernel ACCEPTED

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

const volatile struct bpf_fib_lookup ro_params = {.family = 2};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __type(key, __u32);
  __type(value, struct bpf_fib_lookup);
  __uint(max_entries, 1);
} params_map SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *data_end = (void *)(long)ctx->data_end;
#if CASE == 1 // a stack buffer smaller than plen
  __u8 buf[32] = {};
  return bpf_fib_lookup(ctx, (void *)buf, 64, 0) & 3;
#elif CASE == 2 // plen without a bound
  struct bpf_fib_lookup p = {};
  if (data + 4 > data_end)
    return XDP_DROP;
  return bpf_fib_lookup(ctx, &p, *(__u32 *)data, 0) & 3;
#elif CASE == 3 // the context as params
  return bpf_fib_lookup(ctx, (void *)ctx, 64, 0) & 3;
#elif CASE == 4 // read-only global data as params
  return bpf_fib_lookup(ctx, (void *)&ro_params, 64, 0) & 3;
#elif CASE == 5 // plen 0
  struct bpf_fib_lookup p = {};
  return bpf_fib_lookup(ctx, &p, 0, 0) & 3;
#elif CASE == 6 // the helper rewrites params: ifindex is no longer the 0 written before
  struct bpf_fib_lookup p = {};
  __u8 small[4] = {};
  bpf_fib_lookup(ctx, &p, sizeof(p), 0);
  return small[p.ifindex];
#elif CASE == 7 // params in the packet (the kernel's helper has no packet access)
  long rc = 0;
  if (data + 64 > data_end)
    return XDP_DROP;
  rc += bpf_fib_lookup(ctx, data, 64, BPF_FIB_LOOKUP_DIRECT);
  return rc & 3;
#elif CASE == 8 // accepted: params on the stack and in a map value
  __u32 k = 0;
  struct bpf_fib_lookup *m = bpf_map_lookup_elem(&params_map, &k);
  if (!m)
    return XDP_PASS;
  long rc = bpf_fib_lookup(ctx, m, sizeof(*m), 0);
  struct bpf_fib_lookup p = {};
  rc += bpf_fib_lookup(ctx, &p, sizeof(p), 0);
  return (rc + p.ifindex) & 3;
#elif CASE == 9 // a GPL-only helper in a program that is not GPL
  struct bpf_fib_lookup p = {};
  return bpf_fib_lookup(ctx, &p, sizeof(p), 0) & 3;
#endif
}
#if CASE == 9
char LICENSE[] SEC("license") = "Proprietary";
#else
char LICENSE[] SEC("license") = "GPL";
#endif

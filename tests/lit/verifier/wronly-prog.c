// A map created with BPF_F_WRONLY_PROG may be written by the program but not
// read: a lookup gives a pointer to store through, and a load through it, an
// atomic (which reads first) or a helper reading it is refused, by our
// verifier and by the kernel's (check_map_access_type: "read from map
// forbidden"). Stores, updates and a helper writing into the value are
// accepted by both, and run as on the kernel.
// RUN: %clang-bpf -DCASE=1 -c %s -o %t.1.o
// RUN: %clang-bpf -DCASE=2 -c %s -o %t.2.o
// RUN: %clang-bpf -DCASE=3 -c %s -o %t.3.o
// RUN: %clang-bpf -DCASE=4 -c %s -o %t.4.o
// RUN: not ebpf-gpu-cc %t.1.o 2>&1 | FileCheck %s --check-prefix=LOAD
// LOAD: wronly-prog.c:[[@LINE+41]]: pc {{[0-9]+}}: read from write-only map 'out' (readable(r1))
// RUN: not ebpf-gpu-cc %t.2.o 2>&1 | FileCheck %s --check-prefix=ATOMIC
// ATOMIC: wronly-prog.c:[[@LINE+41]]: pc {{[0-9]+}}: read from write-only map 'out' (readable(r0))
// RUN: not ebpf-gpu-cc %t.3.o 2>&1 | FileCheck %s --check-prefix=HELPER
// HELPER: wronly-prog.c:[[@LINE+42]]: pc {{[0-9]+}}: bpf_map_update_elem argument 2 (r2): read from write-only map 'out' (readable(r2))
// RUN: ebpf-gpu-cc %t.4.o -o %t.4.gpu.o
// RUN: ebpf-gpu-cc --emit=maps %t.4.o | FileCheck %s --check-prefix=MAPS
// MAPS: out: array key 4B value 8B max_entries 4 flags 0x100
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.1.o --reason "read from map forbidden" %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.2.o --reason "read from map forbidden" %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-refuses.sh %t.3.o --reason "read from map forbidden" %}
// RUN: %if kernel-bpf %{ %S/Inputs/kernel-accepts.sh %t.4.o %}
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 8 --seed 5
// RUN: %if kernel-bpf %{ ebpf-gpu-loader compare %t.4.o --pcap %t.pcap | FileCheck %s --check-prefix=SAME %}
// SAME: prog: both: 8 packets, host and kernel agree

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(map_flags, BPF_F_WRONLY_PROG);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 4);
} out SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u64);
  __type(value, __u64);
  __uint(max_entries, 4);
} other SEC(".maps");

SEC("xdp") int prog(struct xdp_md *ctx) {
  __u32 key = 0, one = 1;
  __u64 value = 5;
  __u64 *v = bpf_map_lookup_elem(&out, &key);
  if (!v)
    return XDP_PASS;
#if CASE == 1
  return *v ? XDP_DROP : XDP_PASS;
#elif CASE == 2
  __sync_fetch_and_add(v, 1);
  return XDP_PASS;
#elif CASE == 3
  bpf_map_update_elem(&other, v, &value, BPF_ANY);
  return XDP_PASS;
#else
  // Allowed: a store through the pointer, an update, a helper that writes
  // the value (the packet's first 8 bytes into out[0]).
  *v = 7;
  bpf_map_update_elem(&out, &one, &value, BPF_ANY);
  bpf_xdp_load_bytes(ctx, 0, v, 8);
  return XDP_PASS;
#endif
}

char LICENSE[] SEC("license") = "GPL";

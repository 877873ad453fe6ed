// A map of maps defined without __array(values, ...), as Katran's
// lru_mapping: user space gives libbpf the inner map's shape before load
// (bpf_map__set_inner_map_fd). --inner-map OUTER=MAP names a map of the
// object with that shape, for ebpf-gpu-cc, the host and GPU back ends and
// the kernel back end; the slots start empty (the program falls back to
// its own map) and --map-set fills them with maps of that shape.
// RUN: rm -f %t.gpu.o && %clang-bpf -c %s -o %t.o
// RUN: not ebpf-gpu-cc %t.o -o %t.gpu.o 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not ebpf-gpu-cc %t.o --inner-map per_slot=nope -o %t.gpu.o 2>&1 | FileCheck %s --check-prefix=NOPE
// RUN: not ebpf-gpu-cc %t.o --inner-map fallback=other -o %t.gpu.o 2>&1 | FileCheck %s --check-prefix=NOTOUTER
// RUN: not ebpf-gpu-cc %t.o --inner-map per_slot=per_slot -o %t.gpu.o 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not ebpf-gpu-cc %t.o --inner-map per_slot -o %t.gpu.o 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not test -e %t.gpu.o
// RUN: ebpf-gpu-cc %t.o --inner-map per_slot=fallback -o %t.gpu.o
// RUN: not ebpf-gpu-loader run %t.gpu.o --inner-map per_slot=fallback --pcap /dev/null 2>&1 | FileCheck %s --check-prefix=GPUOBJ
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 40 --seed 6
// RUN: ebpf-gpu-loader run %t.o --inner-map per_slot=fallback --pcap %t.pcap --backend host --dump-maps %t.empty
// RUN: FileCheck %s --check-prefix=EMPTY < %t.empty
// RUN: echo "per_slot:00000000:@other" > %t.slots
// RUN: ebpf-gpu-loader run %t.o --inner-map per_slot=fallback --map-file %t.slots --pcap %t.pcap --backend host --dump-maps %t.filled
// RUN: FileCheck %s --check-prefix=FILLED < %t.filled
// RUN: %if kernel-bpf %{ %python %S/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap \
// RUN:   --work %t.d --loader-arg=--inner-map --loader-arg=per_slot=fallback \
// RUN:   %t.o:count_slot %t.o:count_slot+%t.slots | FileCheck %s --check-prefix=KERNEL %}
// NONE: map 'per_slot': map of maps without an inner map definition (__array(values, ...)); name a map of the object whose shape its maps have with --inner-map per_slot=MAP
// NOPE: --inner-map per_slot=nope: the object has no map named 'nope'
// NOTOUTER: --inner-map fallback=other: map 'fallback' is a hash, not a map of maps
// NESTED: --inner-map per_slot=per_slot: a array_of_maps cannot be an inner map
// SYNTAX: --inner-map 'per_slot': expected OUTER=MAP
// GPUOBJ: --inner-map, --map-size, --map-key-size and --map-value-size apply to eBPF objects
// The empty slot: every packet counted in the program's own map.
// EMPTY: fallback{
// EMPTY-NOT: other{
// EMPTY-NOT: per_slot[0]
// FILLED: other{
// FILLED: per_slot[0] = @other
// FILLED-NOT: fallback{
// KERNEL: count_slot: 40 packets, host and kernel agree
// KERNEL: count_slot: 40 packets, host and kernel agree
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
  __uint(key_size, sizeof(__u32));
  __uint(value_size, sizeof(__u32));
  __uint(max_entries, 4);
} per_slot SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __type(key, __u32);
  __type(value, __u64);
  __uint(max_entries, 16);
} fallback SEC(".maps"), other SEC(".maps");

SEC("xdp") int count_slot(struct xdp_md *ctx) {
  __u32 slot = 0;
  void *m = bpf_map_lookup_elem(&per_slot, &slot);
  if (!m)
    m = &fallback;
  __u32 k = (ctx->data_end - ctx->data) & 7;
  __u64 one = 1, *v = bpf_map_lookup_elem(m, &k);
  if (v)
    __sync_fetch_and_add(v, 1);
  else
    bpf_map_update_elem(m, &k, &one, BPF_ANY);
  return XDP_PASS;
}

char _license[] SEC("license") = "GPL";

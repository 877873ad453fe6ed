// iproute2's legacy map definitions (`struct bpf_elf_map` in section maps,
// 36 bytes: type, size_key, size_value, max_elem, flags, id, pinning,
// inner_id, inner_idx), as Cilium's older datapath objects have them, read
// as iproute2 loads them (lib/bpf_legacy.c, bpf_maps_attach_all): a map of
// maps holds maps shaped as the map whose `id` is its `inner_id`; a map
// with an `id`, no `inner_id` and an `inner_idx` other than -1 fills slot
// `inner_idx` of each map of maps whose `inner_id` is that id. `pinning`
// (1 PIN_OBJECT_NS, 2 PIN_GLOBAL_NS) is read and reported; nothing is pinned.
// RUN: %clang-bpf -c %s -o %t.o
// RUN: ebpf-gpu-cc %t.o --emit=maps | FileCheck %s
// CHECK: maglev_inner: array key 4B value 8B max_entries 1{{$}}
// CHECK-NEXT: maglev: hash_of_maps key 2B value 4B max_entries 16 pinning global_ns inner array key 4B value 8B max_entries 1{{$}}
// CHECK-NEXT: table_a: array key 4B value 8B max_entries 1 pinning object_ns{{$}}
// CHECK-NEXT: tables: array_of_maps key 4B value 4B max_entries 4 pinning global_ns inner array key 4B value 8B max_entries 1{{$}}
// The program reads table_a through slot 2 of `tables`, where the object
// puts it: every packet passes (a missing slot would drop it).
// RUN: ebpf-gpu-cc %t.o --section through_slot -o %t.gpu.o
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 5 --seed 2
// RUN: ebpf-gpu-loader run %t.o --pcap %t.pcap --dump-maps %t.maps | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=DUMP < %t.maps
// RUN: not ebpf-gpu-cc %t.o --emit=maps --inner-map tables=table_a 2>&1 | FileCheck %s --check-prefix=OWN
// RUN: %clang-bpf -DNO_TEMPLATE -c %s -o %t.none.o
// RUN: not ebpf-gpu-cc %t.none.o --emit=maps 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: %clang-bpf -DBAD_SLOT -c %s -o %t.slot.o
// RUN: not ebpf-gpu-cc %t.slot.o --emit=maps 2>&1 | FileCheck %s --check-prefix=SLOT
// RUN: %clang-bpf -DNO_INNER_ID -c %s -o %t.noid.o
// RUN: not ebpf-gpu-cc %t.noid.o --emit=maps 2>&1 | FileCheck %s --check-prefix=NOID
// RUN: ebpf-gpu-cc %t.noid.o --emit=maps --inner-map maglev=maglev_inner | FileCheck %s --check-prefix=TEMPLATE
// SUMMARY: XDP_PASS 5
// DUMP: table_a[0] = 2
// DUMP: tables[2] = @table_a
// OWN: --inner-map tables=table_a: map 'tables' has an inner map definition of its own (inner_id)
// NONE: section maps: map 'maglev': inner_id 5 is the id of no other map of the section
// SLOT: section maps: map 'table_a': inner_idx 9 is past the 4 slots of 'tables'
// NOID: map 'maglev': map of maps without an inner map definition (inner_id); name a map of the object whose shape its maps have with --inner-map maglev=MAP
// TEMPLATE: maglev: hash_of_maps key 2B value 4B max_entries 16 pinning global_ns inner array key 4B value 8B max_entries 1
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_elf_map {
  __u32 type, size_key, size_value, max_elem, flags, id, pinning, inner_id, inner_idx;
};

// Cilium's maglev pair: a template (inner_idx -1: it fills no slot) and the
// map of maps that names it.
struct bpf_elf_map SEC("maps") maglev_inner = {
    .type = BPF_MAP_TYPE_ARRAY, .size_key = 4, .size_value = 8, .max_elem = 1,
#ifndef NO_TEMPLATE
    .id = 4,
#endif
    .inner_idx = -1};
struct bpf_elf_map SEC("maps") maglev = {
    .type = BPF_MAP_TYPE_HASH_OF_MAPS, .size_key = 2, .size_value = 4, .max_elem = 16,
    .pinning = 2,
#ifdef NO_TEMPLATE
    .inner_id = 5,
#elif !defined(NO_INNER_ID)
    .inner_id = 4,
#endif
};
// A map that fills slot 2 of every map of maps whose inner_id is 7.
struct bpf_elf_map SEC("maps") table_a = {
    .type = BPF_MAP_TYPE_ARRAY, .size_key = 4, .size_value = 8, .max_elem = 1, .id = 7,
    .pinning = 1,
#ifdef BAD_SLOT
    .inner_idx = 9,
#else
    .inner_idx = 2,
#endif
};
struct bpf_elf_map SEC("maps") tables = {
    .type = BPF_MAP_TYPE_ARRAY_OF_MAPS, .size_key = 4, .size_value = 4, .max_elem = 4,
    .pinning = 2, .inner_id = 7};

char _license[] SEC("license") = "GPL";

SEC("xdp") int through_slot(struct xdp_md *ctx) {
  __u32 slot = 2, zero = 0;
  void *inner = bpf_map_lookup_elem(&tables, &slot);
  if (!inner)
    return XDP_DROP;
  __u64 *v = bpf_map_lookup_elem(inner, &zero);
  if (!v)
    return XDP_DROP;
  *v = 2;
  return XDP_PASS;
}

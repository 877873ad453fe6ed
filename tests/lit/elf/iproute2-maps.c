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
// CHECK-NEXT: tables: array_of_maps key 4B value 4B max_entries 4 pinning global_ns inner array key 4B value 8B max_entries 1 slots 2=table_a{{$}}
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
// An inner_id that names a map of maps: the map itself, a cycle, a chain.
// RUN: %clang-bpf -DSELF -c %s -o %t.self.o
// RUN: not ebpf-gpu-cc %t.self.o --emit=maps 2>&1 | FileCheck %s --check-prefix=SELF
// RUN: %clang-bpf -DCYCLE -c %s -o %t.cycle.o
// RUN: not ebpf-gpu-cc %t.cycle.o --emit=maps 2>&1 | FileCheck %s --check-prefix=CYCLE
// RUN: %clang-bpf -DNESTED -c %s -o %t.nested.o
// RUN: not ebpf-gpu-cc %t.nested.o --emit=maps 2>&1 | FileCheck %s --check-prefix=NESTED
// Two maps with id 7: the first is the inner definition, both fill slots
// (iproute2's bpf_find_map_id takes the first); one of another shape is
// refused, as the kernel refuses iproute2's update of the slot.
// RUN: %clang-bpf -DSECOND -c %s -o %t.second.o
// RUN: ebpf-gpu-cc %t.second.o --emit=maps | FileCheck %s --check-prefix=SECOND
// RUN: ebpf-gpu-loader run %t.second.o --pcap %t.pcap --dump-maps %t.second.maps | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --check-prefix=SECOND-DUMP < %t.second.maps
// RUN: %clang-bpf -DMISFIT -c %s -o %t.misfit.o
// RUN: not ebpf-gpu-cc %t.misfit.o --emit=maps 2>&1 | FileCheck %s --check-prefix=MISFIT
// Definitions of one size (the section's over the number of maps), with
// zeros past the 36 bytes of struct bpf_elf_map.
// RUN: %clang-bpf -DODD -c %s -o %t.odd.o
// RUN: not ebpf-gpu-cc %t.odd.o --emit=maps 2>&1 | FileCheck %s --check-prefix=ODD
// RUN: %clang-bpf -DLONGER -c %s -o %t.longer.o
// RUN: ebpf-gpu-cc %t.longer.o --emit=maps | FileCheck %s
// RUN: %clang-bpf -DLONGER -DFUTURE -c %s -o %t.future.o
// RUN: not ebpf-gpu-cc %t.future.o --emit=maps 2>&1 | FileCheck %s --check-prefix=FUTURE
// SUMMARY: XDP_PASS 5
// DUMP: table_a[0] = 2
// DUMP: tables[2] = @table_a
// OWN: --inner-map tables=table_a: map 'tables' has an inner map definition of its own (inner_id)
// NONE: section maps: map 'maglev': inner_id 5 is the id of no other map of the section
// SLOT: section maps: map 'table_a': inner_idx 9 is past the 4 slots of 'tables'
// NOID: map 'maglev': map of maps without an inner map definition (inner_id); name a map of the object whose shape its maps have with --inner-map maglev=MAP
// TEMPLATE: maglev: hash_of_maps key 2B value 4B max_entries 16 pinning global_ns inner array key 4B value 8B max_entries 1
// SELF: section maps: map 'tables': inner_id 9 makes a cycle of maps of maps (tables -> tables); a map of maps cannot hold maps of maps
// CYCLE: section maps: map 'maglev': inner_id 8 makes a cycle of maps of maps (maglev -> tables -> maglev); a map of maps cannot hold maps of maps
// NESTED: section maps: map 'maglev': inner_id 8 names 'tables', a array_of_maps; a map of maps cannot hold maps of maps
// SECOND: table_c: array key 4B value 8B max_entries 1 pinning custom 5{{$}}
// SECOND-DUMP: tables[2] = @table_a
// SECOND-DUMP: tables[3] = @table_c
// ODD: section maps: 148 bytes do not divide into 5 map definitions of one size
// FUTURE: section maps: map 'maglev_inner': byte 36 of its 40-byte definition is not 0; struct bpf_elf_map has 36 bytes
// MISFIT: section maps: map 'table_c': inner_idx 3: its shape (array key 4B value 16B max_entries 1) is not that of the maps of 'tables' (array key 4B value 8B max_entries 1, from 'table_a', its inner_id 7)
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct bpf_elf_map {
  __u32 type, size_key, size_value, max_elem, flags, id, pinning, inner_id, inner_idx;
#ifdef LONGER
  __u32 future;
#endif
};
#ifdef ODD
__u32 SEC("maps") odd_one = 1;
#endif

// Cilium's maglev pair: a template (inner_idx -1: it fills no slot) and the
// map of maps that names it.
struct bpf_elf_map SEC("maps") maglev_inner = {
    .type = BPF_MAP_TYPE_ARRAY, .size_key = 4, .size_value = 8, .max_elem = 1,
#ifndef NO_TEMPLATE
    .id = 4,
#endif
#ifdef FUTURE
    .future = 1,
#endif
    .inner_idx = -1};
struct bpf_elf_map SEC("maps") maglev = {
    .type = BPF_MAP_TYPE_HASH_OF_MAPS, .size_key = 2, .size_value = 4, .max_elem = 16,
    .pinning = 2,
#if defined(CYCLE)
    .id = 6, .inner_id = 8,
#elif defined(NESTED)
    .inner_id = 8,
#elif defined(NO_TEMPLATE)
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
#if defined(SECOND) || defined(MISFIT)
// A second map with id 7, after the first: it fills slot 3 (pinned by name
// 5 of iproute2's database, /etc/iproute2/bpf_pinning).
struct bpf_elf_map SEC("maps") table_c = {
    .type = BPF_MAP_TYPE_ARRAY, .size_key = 4,
#ifdef MISFIT
    .size_value = 16,
#else
    .size_value = 8,
#endif
    .max_elem = 1, .id = 7, .pinning = 5, .inner_idx = 3};
#endif
struct bpf_elf_map SEC("maps") tables = {
    .type = BPF_MAP_TYPE_ARRAY_OF_MAPS, .size_key = 4, .size_value = 4, .max_elem = 4,
    .pinning = 2,
#if defined(SELF)
    .id = 9, .inner_id = 9};
#elif defined(CYCLE)
    .id = 8, .inner_id = 6};
#elif defined(NESTED)
    .id = 8, .inner_id = 7};
#else
    .inner_id = 7};
#endif

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

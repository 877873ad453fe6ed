// SPDX-License-Identifier: Apache-2.0
//
// A map's shape (type, key and value sizes, max_entries, flags: what the
// kernel's bpf_map_create takes), the names of map types and where a
// definition came from, once for every library from the ELF reader to the
// daemon: the object's map specs, the `.gpu.o`'s, the runtime's and the
// daemon's live maps each embed a MapShape rather than copying its fields.
// Header-only, so that the libraries that build without the compiler (abi,
// loader, runtime, the daemon) carry it too. Map type numbers are
// MapAbi.h's (the kernel's).

#ifndef EBPF_GPU_PLATFORM_MAPSHAPE_H
#define EBPF_GPU_PLATFORM_MAPSHAPE_H

#include "ebpf-gpu/Platform/MapAbi.h"

#include <cstdint>
#include <string>

namespace ebpfgpu::platform {

/// A map's definition as the kernel takes it: the type (BPF_MAP_TYPE_*,
/// MapAbi.h's EBPFGPU_MAP_* where the runtime implements it) and flags
/// (BPF_F_*) are the kernel's numbers.
struct MapShape {
  uint32_t Type = 0;
  uint32_t KeySize = 0;
  uint32_t ValueSize = 0;
  uint32_t MaxEntries = 0;
  uint32_t Flags = 0;
  /// map_extra: a bloom filter's hash functions in its low 4 bits (the
  /// kernel's; 0 for every other map ebpf-gpu runs).
  uint32_t Extra = 0;
  /// Where the value's `struct bpf_spin_lock` member is (bytes), -1 for
  /// none: found in the value's BTF type, as the kernel's
  /// btf_find_spin_lock (a member of the value struct itself). Updates from
  /// user space leave that word as the map has it, as the kernel's do.
  int32_t SpinLockOff = -1;
};

/// The kernel's name of map type `Type` (bpftool's: "hash", "array", ...),
/// or "type N" for a number past the kernel's list.
inline std::string mapTypeName(uint32_t Type) {
  static const char *const Names[] = {
      "unspec", "hash", "array", "prog_array", "perf_event_array",
      "percpu_hash", "percpu_array", "stack_trace", "cgroup_array",
      "lru_hash", "lru_percpu_hash", "lpm_trie", "array_of_maps",
      "hash_of_maps", "devmap", "sockmap", "cpumap", "xskmap", "sockhash",
      "cgroup_storage", "reuseport_sockarray", "percpu_cgroup_storage",
      "queue", "stack", "sk_storage", "devmap_hash", "struct_ops", "ringbuf",
      "inode_storage", "task_storage", "bloom_filter", "user_ringbuf",
      "cgrp_storage"};
  if (Type < sizeof(Names) / sizeof(Names[0]))
    return Names[Type];
  if (Type == 0x45470001) // MapAbi.h's EBPFGPU_MAP_PATTERNS: ebpf-gpu's own
    return "patterns";
  if (Type == 0x45470002) // EBPFGPU_MAP_MODEL
    return "model";
  return "type " + std::to_string(Type);
}

/// BPF_F_RDONLY_PROG: the program may not write the map (.rodata).
constexpr uint32_t MapFlagReadOnlyProg = 1u << 7;
/// BPF_F_WRONLY_PROG: the program may write the map's values but not read
/// them (a lookup gives a pointer to store through).
constexpr uint32_t MapFlagWriteOnlyProg = 1u << 8;
/// BPF_F_INNER_MAP: arrays of any size may fill a slot of this template.
constexpr uint32_t MapFlagInnerMap = 1u << 12;

/// Where a map definition came from.
enum class MapOrigin {
  BtfDefined, ///< A variable in the `.maps` section, described by BTF.
  Legacy,     ///< A `struct bpf_map_def` in the `maps` section.
  GlobalData, ///< `.data`, `.rodata`, `.bss` (and their `.name` variants).
};

} // namespace ebpfgpu::platform

#endif // EBPF_GPU_PLATFORM_MAPSHAPE_H

// SPDX-License-Identifier: Apache-2.0
//
// The spec of a map: pure data, one type from the ELF to the loader, as
// cilium/ebpf's MapSpec. The object reader fills what the object declares;
// the compiler adds what the loader binds (the module's globals, the slots
// it fills) and writes the fields of the `.gpu.o` schema (abi/lib/
// GpuObjectMeta.cpp), which the loader reads back into the same type.
// Header-only and without LLVM, so that the libraries that build without the
// compiler (abi, loader, runtime, the daemon) carry it too; nothing here
// owns a device resource.

#ifndef EBPF_GPU_PLATFORM_MAPSPEC_H
#define EBPF_GPU_PLATFORM_MAPSPEC_H

#include "ebpf-gpu/Platform/MapShape.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ebpfgpu::platform {

/// A map as the object defines it: its shape (the kernel's numbers,
/// BPF_MAP_TYPE_*, BPF_F_*) and what the object says besides; once
/// compiled, what the loader binds and fills. A spec read from a `.gpu.o`
/// has the fields its schema carries (the shape, name, origin and the
/// compiled ones); the others stay with the ELF.
struct MapSpec : platform::MapShape {
  std::string Name;
  platform::MapOrigin Origin = platform::MapOrigin::BtfDefined;
  /// The pinning the object asks for; read and reported, nothing is pinned.
  /// Legacy (iproute2's struct bpf_elf_map): 0 none, 1 PIN_OBJECT_NS,
  /// 2 PIN_GLOBAL_NS, more: a name in iproute2's pinning database. BTF-
  /// defined (libbpf): 0 none, 1 LIBBPF_PIN_BY_NAME.
  uint32_t Pinning = 0;
  /// BTF type ids of key and value (0 when unknown), for pretty-printing.
  uint32_t BtfKeyTypeId = 0;
  uint32_t BtfValueTypeId = 0;
  /// Global data: the section's initial bytes (zeros for .bss).
  std::vector<uint8_t> InitialValue;
  /// Global data: the variables (the section's named data symbols) at
  /// their offsets, in offset order, as libbpf fills in the BTF data section's offsets,
  /// which an object leaves at 0 (skeletons lay their structs out so).
  std::vector<std::pair<std::string, uint64_t>> Variables;
  /// Map-in-map types: the inner map's definition (one entry), else empty.
  std::vector<MapSpec> Inner;
  /// Program arrays: the slots the object fills statically, with the name
  /// of the program (function) each holds.
  std::vector<std::pair<uint32_t, std::string>> InitialPrograms;
  /// Maps of maps: the slots the object fills statically
  /// (`.values = { [0] = &inner }`), with the name of the map each holds.
  std::vector<std::pair<uint32_t, std::string>> InitialMaps;

  // Compiled (compiler::buildGpuObject; a `.gpu.o`): empty in an object's spec.
  /// Module globals the loader binds: the map object pointer, and for
  /// global data the data itself (either may be empty).
  std::string ObjectGlobal, DataGlobal;
  /// Program arrays: (slot, program id + 1) the loader writes at load;
  /// maps of maps: (slot, index in InnerMaps + 1).
  std::vector<std::pair<uint32_t, uint32_t>> ProgramSlots;
  /// Maps of maps: the inner map table, the names of the maps (of this
  /// object) that its values may name. Program arrays: the programs of the
  /// compiled set in id order (a slot holds id + 1), so that a slot can be
  /// filled by name at run time.
  std::vector<std::string> InnerMaps;
  /// Whether some program of the set may change the map's keys or
  /// contents through a helper (update, delete, push, pop, event output),
  /// and whether it may write its values in place. True where unknown (an
  /// object's spec; a `.gpu.o` of format 3 or older): a map that neither
  /// can be copied to each of several GPUs, host updates applied to every
  /// copy (docs/MAPS.md, "Several GPUs").
  bool ProgramChangesKeys = true;
  bool ProgramWritesValues = true;
};

} // namespace ebpfgpu::platform

#endif // EBPF_GPU_PLATFORM_MAPSPEC_H

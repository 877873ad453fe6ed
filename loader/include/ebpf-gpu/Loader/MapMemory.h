// SPDX-License-Identifier: Apache-2.0
//
// Map storage on the host (the host back end's maps, and the staging copy
// of GPU maps), which map types have a run-time implementation yet, and
// the text form of map contents that every back end prints the same way
// (so their results can be compared byte for byte).

#ifndef EBPF_GPU_LOADER_MAPMEMORY_H
#define EBPF_GPU_LOADER_MAPMEMORY_H

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::loader {

/// Null when maps of `Type` can run; otherwise why not ("map 'x': ...").
MaybeError checkMapSupported(const std::string &Name, uint32_t Type);

/// Where each part of a map lives in its one block of storage (offsets from
/// the block's start), and the header that describes it at `Base`.
struct MapLayout {
  size_t Bytes = 0;
  ebpfgpu_map Header{};
};
MapLayout mapLayout(uint32_t Type, uint32_t KeySize, uint32_t ValueSize, uint32_t MaxEntries,
                    uint32_t Flags, uint64_t Base);

/// Hash maps: returns the elements deleted or replaced during the last run
/// to the free list. Only while no program runs. `Storage` holds the map's
/// block as `mapLayout` describes it (at any address).
void reclaimHashMap(const MapLayout &L, uint8_t *Storage);

/// The text form (formatArrayMap's) of a map's block: every element of an
/// array, every key of a hash (sorted), "NAME{KEYHEX} = VALUE".
std::string formatMap(const std::string &Name, const MapLayout &L, const uint8_t *Storage);
std::string formatHashEntries(const std::string &Name,
                              std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> KV);

/// A map's header and zero-initialised storage in host memory. Owns them.
class HostMap {
public:
  HostMap(std::string Name, uint32_t Type, uint32_t KeySize, uint32_t ValueSize,
          uint32_t MaxEntries, uint32_t Flags);
  HostMap(const HostMap &) = delete;
  HostMap &operator=(const HostMap &) = delete;

  const std::string &name() const { return Name; }
  ebpfgpu_map *header() { return &Layout.Header; }
  const ebpfgpu_map &info() const { return Layout.Header; }
  /// Between runs: frees what the last run deleted (hash maps).
  void reclaim() {
    if (Layout.Header.type == 1)
      reclaimHashMap(Layout, Storage.data());
  }
  std::string format() const { return formatMap(Name, Layout, Storage.data()); }

private:
  std::string Name;
  std::vector<uint8_t> Storage;
  MapLayout Layout;
};


/// A value as text: 8-byte values as numbers, others as hex bytes.
std::string formatValue(const uint8_t *Value, uint32_t Size);

/// "NAME[INDEX] = VALUE" per non-zero element of an array of values stored
/// at `Stride`; 8-byte values print as numbers, others as hex bytes.
std::string formatArrayMap(const std::string &Name, const uint8_t *Values, uint32_t ValueSize,
                           uint32_t Stride, uint32_t MaxEntries);

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_MAPMEMORY_H

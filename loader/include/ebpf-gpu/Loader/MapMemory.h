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

/// A map's header and zero-initialised values in host memory. Owns them.
class HostMap {
public:
  HostMap(std::string Name, uint32_t Type, uint32_t KeySize, uint32_t ValueSize,
          uint32_t MaxEntries, uint32_t Flags);
  HostMap(const HostMap &) = delete;
  HostMap &operator=(const HostMap &) = delete;

  const std::string &name() const { return Name; }
  ebpfgpu_map *header() { return &Header; }
  const ebpfgpu_map &info() const { return Header; }
  uint8_t *values() { return Values.data(); }
  const std::vector<uint8_t> &valueBytes() const { return Values; }

private:
  std::string Name;
  ebpfgpu_map Header;
  std::vector<uint8_t> Values;
};

/// Bytes a map's values take (entries times the 8-byte-aligned value size).
size_t mapValuesBytes(uint32_t ValueSize, uint32_t MaxEntries);

/// "NAME[INDEX] = VALUE" per non-zero element of an array of values stored
/// at `Stride`; 8-byte values print as numbers, others as hex bytes.
std::string formatArrayMap(const std::string &Name, const uint8_t *Values, uint32_t ValueSize,
                           uint32_t Stride, uint32_t MaxEntries);

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_MAPMEMORY_H

// SPDX-License-Identifier: Apache-2.0
//
// The map shapes a tool's command line gives an eBPF object before load
// (the loader's --inner-map, --map-size, --map-key-size, --map-value-size;
// the host benchmark's map-size=), shared by the loader and bench/tools.

#ifndef EBPF_GPU_TOOLS_MAPSHAPES_H
#define EBPF_GPU_TOOLS_MAPSHAPES_H

#include "ebpf-gpu/Exec/Executors.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ebpfgpu::tools {

/// What user space sets on an eBPF object's maps before load, as libbpf's
/// bpf_map__set_inner_map_fd, set_max_entries, set_key_size and
/// set_value_size (`run`, `compare`, `forward`; a .gpu.o has its shapes from
/// ebpf-gpu-cc).
struct MapShapeArgs {
  std::vector<std::pair<std::string, std::string>> InnerMaps; ///< --inner-map OUTER=MAP
  std::vector<std::pair<std::string, uint32_t>> MapSizes;     ///< --map-size MAP=ENTRIES
  /// --map-key-size, --map-value-size MAP=BYTES
  std::vector<std::pair<std::string, uint32_t>> KeySizes, ValueSizes;
  bool empty() const {
    return InnerMaps.empty() && MapSizes.empty() && KeySizes.empty() && ValueSizes.empty();
  }
  void into(exec::LoadRequest &L) const {
    L.InnerMaps = InnerMaps;
    L.MapSizes = MapSizes;
    L.KeySizes = KeySizes;
    L.ValueSizes = ValueSizes;
  }
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_MAPSHAPES_H

// SPDX-License-Identifier: Apache-2.0
#include "MapBlobs.h"

#include "ebpf-gpu/Abi/Model.h"
#include "ebpf-gpu/Abi/Patterns.h"

#include <cstring>

namespace ebpfgpu::abi {

MaybeError writeBlobMap(const std::string &Name, ebpfgpu_map &M, const std::vector<uint8_t> &Key,
                        const std::vector<uint8_t> &Value) {
  const bool Model = ebpfgpu_map_is_model(M.type);
  const std::string Kind = Model ? "model" : "pattern";
  const std::string Blob = Model ? "model" : "pattern set";
  if (!Key.empty())
    return Error("map '" + Name + "' is a " + Kind + " map: it takes a " + Kind + " file (" +
                 Name + ":@FILE), not keys");
  uint32_t Magic = 0;
  if (Value.size() >= 4)
    std::memcpy(&Magic, Value.data(), 4);
  if (Model && Magic == EBPFGPU_PATTERNS_MAGIC)
    return Error("map '" + Name + "' is a model map: it takes a model file, not a pattern file");
  std::string Why = Model ? checkModel(Value.data(), Value.size())
                          : checkPatterns(Value.data(), Value.size());
  if (!Why.empty())
    return Error("map '" + Name + "': not a compiled " + (Model ? "model" : "pattern set") +
                 ": " + Why);
  if (Value.size() > M.max_entries)
    return Error("map '" + Name + "': the " + Blob + " needs " + std::to_string(Value.size()) +
                 " bytes, the map holds " + std::to_string(M.max_entries) +
                 " (its max_entries; --map-size " + Name + "=BYTES raises it)");
  auto *At = reinterpret_cast<uint8_t *>(M.values);
  std::memcpy(At, Value.data(), Value.size());
  std::memset(At + Value.size(), 0, M.max_entries - Value.size());
  return std::nullopt;
}

} // namespace ebpfgpu::abi

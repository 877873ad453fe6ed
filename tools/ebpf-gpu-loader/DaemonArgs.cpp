// SPDX-License-Identifier: Apache-2.0
//
// The daemon's request arguments and map type names (DaemonArgs.h).

#include "DaemonArgs.h"

#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Platform/MapAbi.h"

namespace ebpfgpu::tools::daemon {

using json::Value;

const char *mapTypeName(uint32_t T) {
  switch (T) {
  case EBPFGPU_MAP_HASH:
    return "hash";
  case EBPFGPU_MAP_ARRAY:
    return "array";
  case EBPFGPU_MAP_PROG_ARRAY:
    return "prog_array";
  case EBPFGPU_MAP_PERCPU_HASH:
    return "percpu_hash";
  case EBPFGPU_MAP_PERCPU_ARRAY:
    return "percpu_array";
  case EBPFGPU_MAP_LRU_HASH:
    return "lru_hash";
  case EBPFGPU_MAP_LRU_PERCPU_HASH:
    return "lru_percpu_hash";
  case EBPFGPU_MAP_LPM_TRIE:
    return "lpm_trie";
  case EBPFGPU_MAP_DEVMAP:
    return "devmap";
  case EBPFGPU_MAP_DEVMAP_HASH:
    return "devmap_hash";
  case EBPFGPU_MAP_PERF_EVENT_ARRAY:
    return "perf_event_array";
  case EBPFGPU_MAP_ARRAY_OF_MAPS:
    return "array_of_maps";
  case EBPFGPU_MAP_HASH_OF_MAPS:
    return "hash_of_maps";
  case EBPFGPU_MAP_RINGBUF:
    return "ringbuf";
  default:
    return "unknown";
  }
}

Expected<std::string> stringArg(const Value &Args, const char *Key, bool Required) {
  const Value *V = Args.get(Key);
  if (!V || V->isNull()) {
    if (Required)
      return Error(std::string("missing argument '") + Key + "'");
    return std::string();
  }
  if (!V->isString())
    return Error(std::string("argument '") + Key + "' must be a string");
  return V->text();
}

Expected<uint64_t> numberArg(const Value &Args, const char *Key, uint64_t Default, uint64_t Min,
                             uint64_t Max) {
  const Value *V = Args.get(Key);
  if (!V || V->isNull())
    return Default;
  std::optional<uint64_t> N = V->u64();
  if (!N || *N < Min || *N > Max)
    return Error(std::string("argument '") + Key + "' must be a whole number from " +
                 std::to_string(Min) + " to " + std::to_string(Max));
  return *N;
}

Expected<std::vector<uint8_t>> bytesArg(const Value &Args, const char *Key, uint32_t Size,
                                        const std::string &MapName) {
  auto S = stringArg(Args, Key);
  if (!S)
    return S.takeError();
  auto B = loader::parseHexBytes(*S);
  if (!B)
    return Error(std::string("argument '") + Key + "' must be hex bytes, not '" + *S + "'");
  if (B->size() != Size)
    return Error("map '" + MapName + "': takes " + std::to_string(Size) + "-byte " + Key +
                 "s, not " + std::to_string(B->size()));
  return std::move(*B);
}

} // namespace ebpfgpu::tools::daemon

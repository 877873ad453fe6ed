// SPDX-License-Identifier: Apache-2.0
//
// Which map shapes the runtime builds: the kernel's checks at map creation
// (key, value and entry sizes, flags, map_extra) for every type that has a
// run-time implementation, and a refusal naming the type for the others.

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Platform/XdpContext.h"

#include <string>

namespace ebpfgpu::abi {

MaybeError checkMapSupported(const std::string &Name, const platform::MapShape &S) {
  auto Refuse = [&](const std::string &Why) {
    return Error("map '" + Name + "': " + Why);
  };
  // The kernel's bpf_map_flags_access_ok, for every type that takes the
  // program's access flags: a map the program may neither read nor write.
  if ((S.Flags & platform::MapFlagReadOnlyProg) && (S.Flags & platform::MapFlagWriteOnlyProg))
    return Refuse("flags BPF_F_RDONLY_PROG and BPF_F_WRONLY_PROG together (the program could "
                  "neither read nor write it)");
  // ebpf-gpu's pattern and model maps: as a ring buffer's, max_entries is
  // their bytes, what the largest automaton or model loaded may take.
  auto Blob = [&](const char *What, const char *Holds, size_t Min) -> MaybeError {
    if (S.KeySize || S.ValueSize)
      return Refuse(std::string(What) + " maps have no keys or values (their max_entries is the " +
                    "bytes their " + Holds + " may take)");
    if (S.MaxEntries < Min || S.MaxEntries > (1u << 31))
      return Refuse(std::string("a ") + What + " map's max_entries is its " + Holds + "'s bytes, " +
                    std::to_string(Min) + " to 2^31, not " + std::to_string(S.MaxEntries));
    if (S.Extra != 0)
      return Refuse("map_extra " + std::to_string(S.Extra) + ": only bloom filters take one");
    return std::nullopt;
  };
  switch (S.Type) {
  case EBPFGPU_MAP_ARRAY:
  case EBPFGPU_MAP_PERCPU_ARRAY:
    if (S.KeySize != 4)
      return Refuse("array keys are 4 bytes, not " + std::to_string(S.KeySize));
    break;
  case EBPFGPU_MAP_PROG_ARRAY:
    if (S.KeySize != 4 || S.ValueSize != 4)
      return Refuse("program array keys and values are 4 bytes");
    break;
  case EBPFGPU_MAP_DEVMAP:
  case EBPFGPU_MAP_DEVMAP_HASH:
    if (S.KeySize != 4 || (S.ValueSize != 4 && S.ValueSize != 8))
      return Refuse("devmap keys are 4 bytes and values 4 or 8 (struct bpf_devmap_val)");
    break;
  case EBPFGPU_MAP_CPUMAP:
    if (S.KeySize != 4 || (S.ValueSize != 4 && S.ValueSize != 8))
      return Refuse("cpumap keys are 4 bytes and values 4 or 8 (struct bpf_cpumap_val)");
    break;
  case EBPFGPU_MAP_XSKMAP:
    // The kernel's xsk_map_alloc: a u32 key (the queue) and a u32 value
    // (there a socket's fd, here a consumer's id: docs/MAPS.md, "xskmap");
    // it refuses every other shape and flag with EINVAL.
    if (S.KeySize != 4 || S.ValueSize != 4)
      return Refuse("xskmap keys and values are 4 bytes, not " + std::to_string(S.KeySize) +
                    " and " + std::to_string(S.ValueSize));
    if (S.Flags & ~(1u << 2 | 1u << 3 | 1u << 4)) // BPF_F_NUMA_NODE, _RDONLY, _WRONLY
      return Refuse("xskmap flags " + std::to_string(S.Flags) +
                    ": only BPF_F_NUMA_NODE, BPF_F_RDONLY and BPF_F_WRONLY are taken");
    break;
  case EBPFGPU_MAP_LPM_TRIE:
    if (S.KeySize <= 4 || S.KeySize > 4 + EBPFGPU_LPM_MAX_DATA)
      return Refuse("LPM trie keys are a 4-byte prefix length and 1 to 256 data bytes, not " +
                    std::to_string(S.KeySize) + " bytes in all");
    break;
  case EBPFGPU_MAP_RINGBUF:
    if (S.MaxEntries < 4096 || (S.MaxEntries & (S.MaxEntries - 1)) ||
        S.MaxEntries > (1u << 30))
      return Refuse("ring buffer sizes (max_entries) are a power of 2 from 4096 to 2^30 bytes, "
                    "not " + std::to_string(S.MaxEntries));
    if (S.KeySize || S.ValueSize)
      return Refuse("ring buffers have no keys or values");
    return std::nullopt;
  case EBPFGPU_MAP_PATTERNS:
    // The smallest set: its header and one automaton's.
    return Blob("pattern", "automata", sizeof(ebpfgpu_patterns) + sizeof(ebpfgpu_automaton));
  case EBPFGPU_MAP_MODEL:
    return Blob("model", "model", sizeof(ebpfgpu_model));
  case EBPFGPU_MAP_PERF_EVENT_ARRAY:
    if (S.KeySize != 4 || S.ValueSize != 4)
      return Refuse("perf event arrays have 4-byte keys and values");
    return std::nullopt; // max_entries 0: as many as CPUs (libbpf's default)
  case EBPFGPU_MAP_ARRAY_OF_MAPS:
  case EBPFGPU_MAP_HASH_OF_MAPS:
    if (S.ValueSize != 4 || (S.Type == EBPFGPU_MAP_ARRAY_OF_MAPS && S.KeySize != 4))
      return Refuse("maps of maps hold 4-byte values (arrays of maps: 4-byte keys too)");
    break;
  case EBPFGPU_MAP_HASH:
  case EBPFGPU_MAP_PERCPU_HASH:
  case EBPFGPU_MAP_LRU_HASH:
  case EBPFGPU_MAP_LRU_PERCPU_HASH:
    break;
  case EBPFGPU_MAP_QUEUE:
  case EBPFGPU_MAP_STACK:
  case EBPFGPU_MAP_BLOOM_FILTER:
    // The kernel's checks at creation (queue_stack_map_alloc_check,
    // bloom_map_alloc).
    if (S.KeySize != 0)
      return Refuse(platform::mapTypeName(S.Type) + " maps have no keys (key size 0, not " +
                    std::to_string(S.KeySize) + ")");
    if (S.MaxEntries == 0 || S.ValueSize == 0)
      return Refuse("value size and max_entries must be above 0");
    if (S.Type == EBPFGPU_MAP_BLOOM_FILTER ? (S.Extra & ~0xfu) != 0 : S.Extra != 0)
      return Refuse("map_extra " + std::to_string(S.Extra) +
                    (S.Type == EBPFGPU_MAP_BLOOM_FILTER
                         ? ": a bloom filter's is its number of hash functions, 0 to 15"
                         : ": only bloom filters take one"));
    if (S.Type != EBPFGPU_MAP_BLOOM_FILTER && S.MaxEntries == UINT32_MAX)
      return Refuse("max_entries must be below 2^32 - 1 (the ring keeps one slot more)");
    return std::nullopt;
  default:
    return Refuse("maps of type " + std::to_string(S.Type) + " (" +
                  platform::mapTypeName(S.Type) +
                  ") have no run-time implementation yet (array, percpu_array, prog_array, hash, "
                  "percpu_hash, lru_hash, lru_percpu_hash, lpm_trie, array_of_maps, hash_of_maps, devmap, "
                  "devmap_hash, cpumap, xskmap, queue, stack, bloom_filter, ringbuf, perf_event_array and "
                  "ebpf-gpu's patterns and model do)");
  }
  if (S.Extra != 0)
    return Refuse("map_extra " + std::to_string(S.Extra) + ": only bloom filters take one");
  if (S.MaxEntries == 0 || S.ValueSize == 0 || S.KeySize == 0)
    return Refuse("key size, value size and max_entries must be above 0");
  return std::nullopt;
}

} // namespace ebpfgpu::abi

// SPDX-License-Identifier: Apache-2.0
//
// Map storage: where each part of a map lives in its one block of memory
// (host or device), which map types have a run-time implementation, the
// host's operations on a block (lookup, update, delete and the reclaim
// between runs, with the same C code the programs' helpers use), and the
// text form of map contents that every back end prints the same way (so
// their results compare byte for byte).

#ifndef EBPF_GPU_LOADER_MAPMEMORY_H
#define EBPF_GPU_LOADER_MAPMEMORY_H

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ebpfgpu::loader {

/// A map's definition as the runtime needs it (kernel type numbers).
struct MapShape {
  uint32_t Type = 0;
  uint32_t KeySize = 0;
  uint32_t ValueSize = 0;
  uint32_t MaxEntries = 0;
  uint32_t Flags = 0;
};

/// Null when maps of this shape can run; otherwise why not ("map 'x': ...").
MaybeError checkMapSupported(const std::string &Name, const MapShape &S);

/// Where each part of a map lives in its one block of storage, and the
/// header that describes it when the block is at `Base`. `Slices` is the
/// number of CPUs of per-CPU maps (ignored for the others).
struct MapLayout {
  size_t Bytes = 0;
  ebpfgpu_map Header{};
};
MapLayout mapLayout(const MapShape &S, uint32_t Slices, uint64_t Base);
/// Bytes one more CPU adds to a per-CPU map (0 for other maps).
size_t perCpuBytes(const MapShape &S);

/// Hashed maps: returns the elements deleted or replaced during the last
/// run to the free list. Only while no program runs. `Storage` holds the
/// map's block as `mapLayout` describes it (at any address).
void reclaimHashMap(const MapLayout &L, uint8_t *Storage);
/// True when the last run left elements to reclaim (reads the control
/// words only: `Control` is the first EBPFGPU_CTL_WORDS words of the block).
bool hasPendingElements(const uint32_t *Control);
/// Updates refused so far because a run had unlinked every spare element
/// (they return to the pool only between runs; a smaller batch avoids it).
uint32_t starvedUpdates(const uint32_t *Control);

/// Checks that a hashed map's block is well formed between runs: every
/// linked element is in the pool, in the bucket its key hashes to, linked
/// once, with a key no other element has; the live count matches; linked,
/// free and pending elements account for every element handed out. Other
/// maps have nothing to check. Errors name the map and the first fault.
MaybeError checkMapIntegrity(const std::string &Name, const MapLayout &L, const uint8_t *Storage);

/// The host's operations on a map block in host memory at the address its
/// header names, with the programs' semantics and return codes (0 or a
/// negative errno); only while no program runs on it. Per-CPU maps: the
/// value of CPU 0 (an update gives a new key zeros on the other CPUs).
int64_t hostMapUpdate(ebpfgpu_map &M, const uint8_t *Key, const uint8_t *Value, uint64_t Flags);
int64_t hostMapDelete(ebpfgpu_map &M, const uint8_t *Key);
const uint8_t *hostMapLookup(ebpfgpu_map &M, const uint8_t *Key);

/// Calls `Visit` with every entry of a map block in host memory at the
/// addresses its header names, while no program runs on it: every index of
/// an array (the key a u32), every key of a hashed map in bucket order.
/// Per-CPU values come summed over the CPUs (sumPerCpuValues). Program
/// arrays are visited like arrays (values: program id + 1, 0 when empty).
void forEachMapEntry(const ebpfgpu_map &M,
                     const std::function<void(const uint8_t *Key, const uint8_t *Value)> &Visit);

/// Sets `Key` to `Value` (BPF_ANY) in a map block on the host, after
/// checking their sizes; errors name the map and the errno.
MaybeError setMapEntry(const std::string &Name, ebpfgpu_map &M, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value);

/// The text form (formatArrayMap's) of a map's block: every non-zero entry
/// of an array, every key of a hashed map (sorted), "NAME{KEYHEX} = VALUE";
/// per-CPU values as the sum over CPUs (per 8-byte word, or 4, or byte).
std::string formatMap(const std::string &Name, const MapLayout &L, const uint8_t *Storage);
/// The sum of `Slices` copies of a `Size`-byte value stored `Stride` bytes
/// apart, per 8-byte word (4-byte, or byte, when the size is not a multiple).
std::vector<uint8_t> sumPerCpuValues(const uint8_t *V, uint32_t Size, uint32_t Stride,
                                     uint32_t Slices);
std::string formatHashEntries(const std::string &Name,
                              std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> KV);

/// A map's header and zero-initialised storage in host memory, one CPU for
/// per-CPU maps. Owns them; not thread-safe.
class HostMap {
public:
  HostMap(std::string Name, const MapShape &S);
  HostMap(const HostMap &) = delete;
  HostMap &operator=(const HostMap &) = delete;

  const std::string &name() const { return Name; }
  ebpfgpu_map *header() { return &Layout.Header; }
  const ebpfgpu_map &info() const { return Layout.Header; }
  /// Between runs: frees what the last run deleted (hashed maps).
  void reclaim() {
    if (ebpfgpu_map_is_hashed(Layout.Header.type))
      reclaimHashMap(Layout, Storage.data());
  }
  std::string format() const { return formatMap(Name, Layout, Storage.data()); }
  MaybeError check() const { return checkMapIntegrity(Name, Layout, Storage.data()); }

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

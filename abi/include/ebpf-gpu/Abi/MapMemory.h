// SPDX-License-Identifier: Apache-2.0
//
// Map storage: where each part of a map lives in its one block of memory
// (host or device), which map types have a run-time implementation, the
// host's operations on a block (lookup, update, delete and the reclaim
// between runs, with the same C code the programs' helpers use), and the
// text form of map contents that every back end prints the same way (so
// their results compare byte for byte).

#ifndef EBPF_GPU_ABI_MAPMEMORY_H
#define EBPF_GPU_ABI_MAPMEMORY_H

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Platform/MapShape.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ebpfgpu::abi {

/// Null when maps of this shape can run; otherwise why not ("map 'x': ...").
MaybeError checkMapSupported(const std::string &Name, const platform::MapShape &S);

/// Where each part of a map lives in its one block of storage, and the
/// header that describes it when the block is at `Base`. `Slices` is the
/// number of CPUs of per-CPU maps (ignored for the others).
struct MapLayout {
  size_t Bytes = 0;
  ebpfgpu_map Header{};
};
MapLayout mapLayout(const platform::MapShape &S, uint32_t Slices, uint64_t Base);
/// Global data (a .bss, .data or .rodata section of `Size` bytes at
/// `Bytes`) seen as an array of one entry whose value is the section, for
/// the map operations; `SpinLockOff`: where a struct bpf_spin_lock
/// variable of the section is (-1: none), which updates leave alone.
ebpfgpu_map globalDataHeader(uint32_t Size, uint64_t Bytes, int32_t SpinLockOff);
/// Bytes one more CPU adds to a per-CPU map (0 for other maps).
size_t perCpuBytes(const platform::MapShape &S);

/// Hashed maps: returns the elements deleted or replaced during the last
/// run to the free list. Only while no program runs. `Storage` holds the
/// map's block as `mapLayout` describes it (at any address).
void reclaimHashMap(const MapLayout &L, uint8_t *Storage);
/// Hashed maps other than LPM tries (other maps: nothing), in host memory
/// at the addresses the header names, while no program runs on them: the
/// same keys, values and LRU ticks laid out as an empty map that took them
/// in key order holds them. Element i holds the i-th smallest key, each
/// bucket's chain is linked as inserts link it, and
/// nothing waits on the free or pending lists. What a map holds does not
/// change, only where: a benchmark relays the state its passes settled in
/// (whose placement the GPU threads' race to insert decides) so that every
/// run times the same memory layout.
void relayHashMap(ebpfgpu_map &M);
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
/// An LPM trie's updates and deletes also bring its prefix list up to date
/// (rebuildLpmList). Maps without keys (queue, stack, bloom filter) as the
/// kernel's system calls take them: an update is a push of the value (the
/// key ignored), a lookup a queue's or stack's peek (null when empty; a
/// bloom filter's is hostBloomContains), a delete -EINVAL (queue, stack)
/// or -EOPNOTSUPP (bloom filter). A pattern or model map takes none of
/// them (-EINVAL, null): its pattern set or model is written whole by
/// setMapEntry.
int64_t hostMapUpdate(ebpfgpu_map &M, const uint8_t *Key, const uint8_t *Value, uint64_t Flags);
int64_t hostMapDelete(ebpfgpu_map &M, const uint8_t *Key);
const uint8_t *hostMapLookup(ebpfgpu_map &M, const uint8_t *Key);
/// A bloom filter's answer for `Value` (value_size bytes): true when it may
/// hold it (bpf_map_peek_elem's 0), false when it does not.
bool hostBloomContains(ebpfgpu_map &M, const uint8_t *Value);
/// A pattern map's scan of `Size` bytes at `Data`, the code ebpf_gpu_match
/// runs (MapPatterns.inc): the first-ending match's rule id, -ENOENT, or
/// -EINVAL when the map holds no pattern set.
int64_t hostPatternScan(const ebpfgpu_map &M, const uint8_t *Data, size_t Size);
/// The same map's scan for every rule, the code ebpf_gpu_match_all runs:
/// bit i of the `Words` words at `Bitmap` set for each rule id i found;
/// the number of distinct ids set, -E2BIG when a rule whose id is past the
/// bitmap matched, -EINVAL when the map holds no pattern set.
int64_t hostPatternScanAll(const ebpfgpu_map &M, const uint8_t *Data, size_t Size,
                           uint64_t *Bitmap, uint32_t Words);
/// A model map's class for the `Count` int32 features at `Features`, the
/// code ebpf_gpu_classify runs (MapModel.inc): 0 to nclasses - 1, or
/// -EINVAL when the map holds no model or the model takes another count.
int64_t hostModelClassify(const ebpfgpu_map &M, const int32_t *Features, size_t Count);
/// A queue's or stack's value `I` counted from the oldest, or with
/// `FromPopEnd` from the end a pop takes (a queue's oldest, a stack's
/// newest), in host memory at the addresses its header names; null past
/// the last value or for other maps.
const uint8_t *queueStackSlot(const ebpfgpu_map &M, uint32_t I, bool FromPopEnd);

/// An LPM trie (other maps: nothing) in host memory at the addresses its
/// header names: its prefix list (MapAbi.h: ebpfgpu_lpm_list) rebuilt from
/// the linked keys, or marked stale when it has more than
/// EBPFGPU_LPM_LIST_MAX; only while no program runs on it.
void rebuildLpmList(ebpfgpu_map &M);

/// Calls `Visit` with every entry of a map block in host memory at the
/// addresses its header names, while no program runs on it: every index of
/// an array (the key a u32), every key of a hashed map in bucket order,
/// every value of a queue or stack oldest first (the key empty; pushed
/// again in this order they make the same map), nothing of a bloom filter.
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
/// every value of a queue or stack (formatQueueEntries), nothing of a
/// bloom filter (bits: the kernel lists no values either);
/// per-CPU values as the sum over CPUs (per 8-byte word, or 4, or byte).
/// Maps of maps name the inner map of each filled slot
/// ("NAME[0] = @INNER", "NAME{KEYHEX} = @INNER"), from `InnerNames`, their
/// inner map table.
std::string formatMap(const std::string &Name, const MapLayout &L, const uint8_t *Storage,
                      const std::vector<std::string> &InnerNames = {});
/// The text form of a map of maps' entries as (key, inner map name):
/// "NAME[INDEX] = @INNER" for arrays, "NAME{KEYHEX} = @INNER" for hashes,
/// sorted by key.
std::string formatOuterEntries(const std::string &Name, bool Array,
                               std::vector<std::pair<std::vector<uint8_t>, std::string>> KV);
/// The value that makes a slot of the map of maps `Outer` hold the map
/// named `Inner`: its index in `InnerNames` (the outer map's inner map
/// table) + 1. Errors name the maps that would fit.
Expected<std::vector<uint8_t>> innerMapValue(const std::string &Outer,
                                             const std::vector<std::string> &InnerNames,
                                             const std::string &Inner);
/// The value that makes a slot of the program array `Array` hold the
/// program named `Program`: its id in `SetPrograms` (the compiled set's
/// programs, in id order) + 1. Errors name the programs it can hold.
Expected<std::vector<uint8_t>> programSlotValue(const std::string &Array,
                                                const std::vector<std::string> &SetPrograms,
                                                const std::string &Program);
/// The sum of `Slices` copies of a `Size`-byte value stored `Stride` bytes
/// apart, per 8-byte word (4-byte, or byte, when the size is not a multiple).
std::vector<uint8_t> sumPerCpuValues(const uint8_t *V, uint32_t Size, uint32_t Stride,
                                     uint32_t Slices);
std::string formatHashEntries(const std::string &Name,
                              std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> KV);
/// The text form of a queue's or stack's values, oldest first:
/// "NAME<0> = VALUE" for the oldest (a queue's next pop, a stack's last).
std::string formatQueueEntries(const std::string &Name,
                               const std::vector<std::vector<uint8_t>> &Values);

/// A record an event map (ringbuf, perf_event_array) holds: the index of
/// the packet that wrote it and its bytes (perf records with perf's
/// padding, as a perf reader receives them).
struct EventRecord {
  uint32_t Packet = 0;
  std::vector<uint8_t> Bytes;
};
/// The records of one run, per event map, and the records each map refused
/// for want of room.
struct EventBatch {
  std::vector<std::pair<std::string, std::vector<EventRecord>>> Maps;
  std::vector<std::pair<std::string, uint64_t>> Dropped;
};
/// Event maps: appends the committed records of the stream in `Block` (the
/// map's block as mapLayout places it; only the control words and the bytes
/// in use need be there) to `Out` in stream order, discarded ones skipped,
/// with `FirstPacket` added to their packet index; adds the records refused
/// to `Dropped`; then empties the stream (its control words). Only while no
/// program runs. A malformed stream is an error naming the map.
MaybeError takeEventRecords(const std::string &Name, const MapLayout &L, uint8_t *Block,
                            uint32_t FirstPacket, std::vector<EventRecord> &Out,
                            uint64_t &Dropped);
/// Event records gathered run after run, as text: one line "MAP HEXBYTES"
/// a record, map by map (by name) and, within a map, run by run, by packet,
/// and within a packet in the order it wrote them. The text is the same on
/// every back end however the runs are cut (one launch or a launch per
/// packet), as long as no record was refused. Keeps at most 64 MiB of text
/// (more is counted). Not thread-safe.
class EventLog {
public:
  /// Adds a run's records (sorting each map's by packet) and refusals.
  void add(EventBatch &Run);
  /// The text gathered so far; the log keeps the refusal counts.
  std::string take();
  /// One line per map that refused records, and for records not kept.
  std::vector<std::string> warnings() const;

private:
  static constexpr size_t MaxBytes = size_t(64) << 20;
  std::map<std::string, std::string> Text;
  std::map<std::string, uint64_t> Dropped;
  size_t Bytes = 0;
  uint64_t NotKept = 0;
};

/// A map's header and zero-initialised storage in host memory, one CPU for
/// per-CPU maps. Owns them; not thread-safe.
class HostMap {
public:
  /// `Slices`: the copies a per-CPU map keeps (one per CPU of the runtime
  /// that runs the program; other maps keep one).
  HostMap(std::string Name, const platform::MapShape &S, uint32_t Slices = 1);
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
  std::string format() const { return formatMap(Name, Layout, Storage.data(), InnerNames); }
  /// Event maps: takeEventRecords on this map's stream.
  MaybeError takeEvents(std::vector<EventRecord> &Out, uint64_t &Dropped) {
    return takeEventRecords(Name, Layout, Storage.data(), 0, Out, Dropped);
  }
  MaybeError check() const { return checkMapIntegrity(Name, Layout, Storage.data()); }
  /// Maps of maps: the inner map table (`Maps`, named `Names`, which must
  /// outlive this map) that the values index.
  void setInnerMaps(std::vector<std::string> Names, const std::vector<HostMap *> &Maps);
  const std::vector<std::string> &innerNames() const { return InnerNames; }

private:
  std::string Name;
  std::vector<uint8_t> Storage;
  MapLayout Layout;
  std::vector<std::string> InnerNames;
  std::vector<uint64_t> InnerTable;
};

/// A value as text: 8-byte values as numbers, others as hex bytes.
std::string formatValue(const uint8_t *Value, uint32_t Size);

/// "NAME[INDEX] = VALUE" per non-zero element of an array of values stored
/// at `Stride`; 8-byte values print as numbers, others as hex bytes.
std::string formatArrayMap(const std::string &Name, const uint8_t *Values, uint32_t ValueSize,
                           uint32_t Stride, uint32_t MaxEntries);

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_MAPMEMORY_H

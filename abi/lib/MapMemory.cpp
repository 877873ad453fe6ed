// SPDX-License-Identifier: Apache-2.0
//
// Map layouts and the host's operations on map blocks (their text forms:
// MapText.cpp).

#include "ebpf-gpu/Abi/MapMemory.h"
#include "MapBlobs.h"
#include "ebpf-gpu/Abi/Model.h"
#include "ebpf-gpu/Abi/Patterns.h"
#include "ebpf-gpu/Platform/XdpContext.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <set>

namespace ebpfgpu::abi {

namespace {

uint32_t align8(uint32_t V) { return (V + 7u) & ~7u; }

uint32_t load32(const uint8_t *P) {
  uint32_t V;
  std::memcpy(&V, P, 4);
  return V;
}
void store32(uint8_t *P, uint32_t V) { std::memcpy(P, &V, 4); }

// The programs' map helpers, compiled for the host's own use.
using std::memcpy;
using std::memset;
#define EBPFGPU_HELPER(Name) loader_##Name
#define EBPFGPU_FENCE() __atomic_thread_fence(__ATOMIC_ACQ_REL)
#define EBPFGPU_SPIN_PAUSE(spins) ((void)(spins))
uint32_t ebpfgpu_load_acquire(uint32_t *P) { return __atomic_load_n(P, __ATOMIC_ACQUIRE); }
void ebpfgpu_store_release(uint32_t *P, uint32_t V) { __atomic_store_n(P, V, __ATOMIC_RELEASE); }
extern "C" {
#include "ebpf-gpu/Abi/MapHelpers.inc"
}

} // namespace

/// Hashed maps' elements: max_entries plus spares for the elements a
/// batch's replacing updates and deletes unlink (they return to the pool
/// only when the batch ends): enough for nearly every thread of a full
/// H100 or H200 grid (132 SMs x 2,048 threads = 270,336) to replace an
/// element in one launch. A starved update fails and is counted
/// (starvedUpdates), never lost silently.
static uint32_t poolSize(const platform::MapShape &S) {
  // Per-CPU maps update values in place; only deletes and evictions unlink.
  uint32_t Spares = ebpfgpu_map_is_percpu(S.Type) ? 4096 : 1u << 18;
  return S.MaxEntries + std::max(S.MaxEntries, Spares);
}

size_t perCpuBytes(const platform::MapShape &S) {
  if (!ebpfgpu_map_is_percpu(S.Type))
    return 0;
  uint32_t Values = ebpfgpu_map_is_hashed(S.Type) ? poolSize(S) : S.MaxEntries;
  return size_t(align8(S.ValueSize)) * Values;
}

MapLayout mapLayout(const platform::MapShape &S, uint32_t Slices, uint64_t Base) {
  MapLayout L;
  ebpfgpu_map &H = L.Header;
  // The fields the shape fixes come from the function the compiled
  // program's helpers use too, so both always agree.
  ebpfgpu_map_shape Shape{S.Type,    S.KeySize, S.ValueSize, S.MaxEntries,
                          S.Flags,   0,         S.SpinLockOff >= 0 ? uint32_t(S.SpinLockOff) + 1 : 0};
  ebpfgpu_map_set_shape(&H, &Shape);
  if (ebpfgpu_map_is_percpu(S.Type))
    H.nslices = std::max<uint32_t>(Slices, 1);
  if (ebpfgpu_map_is_event(S.Type)) {
    // Control words, then the record stream.
    H.event_capacity = S.Type == EBPFGPU_MAP_RINGBUF ? S.MaxEntries : EBPFGPU_PERF_STREAM_BYTES;
    if (S.Type == EBPFGPU_MAP_PERF_EVENT_ARRAY && S.MaxEntries == 0)
      H.max_entries = UINT32_MAX; // a slot per CPU, however many
    H.control = Base;
    H.values = Base + EBPFGPU_EVT_CTL_WORDS * 4;
    L.Bytes = EBPFGPU_EVT_CTL_WORDS * 4 + size_t(H.event_capacity);
    return L;
  }
  if (ebpfgpu_map_is_queue_stack(S.Type)) {
    // Control words, then the ring: max_entries + 1 slots.
    H.control = Base;
    H.values = Base + EBPFGPU_QS_CTL_WORDS * 4;
    L.Bytes = EBPFGPU_QS_CTL_WORDS * 4 + size_t(H.value_stride) * (size_t(S.MaxEntries) + 1);
    return L;
  }
  if (ebpfgpu_map_is_blob(S.Type)) {
    // The automata's or the model's bytes (struct ebpfgpu_patterns,
    // struct ebpfgpu_model), all zero until one is loaded.
    H.values = Base;
    L.Bytes = S.MaxEntries;
    return L;
  }
  if (S.Type == EBPFGPU_MAP_BLOOM_FILTER) {
    // The kernel's bit array: max_entries * hashes * 7 / 5 bits (1 / ln 2
    // bits a value and hash) rounded up to a power of two, at least 64;
    // 2^32 where that is past 2^31.
    H.bloom_hashes = S.Extra & 0xfu ? S.Extra & 0xfu : EBPFGPU_BLOOM_DEFAULT_HASHES;
    uint64_t Bits = uint64_t(S.MaxEntries) * H.bloom_hashes;
    Bits = Bits > UINT32_MAX ? uint64_t(1) << 32 : Bits / 5 * 7;
    uint64_t Size = 64;
    while (Size < Bits && Size < (uint64_t(1) << 32))
      Size <<= 1;
    if (Bits > (uint64_t(1) << 31))
      Size = uint64_t(1) << 32;
    H.bloom_mask = uint32_t(Size - 1);
    H.values = Base;
    L.Bytes = size_t(Size / 8);
    return L;
  }
  if (!ebpfgpu_map_is_hashed(S.Type)) {
    L.Bytes = size_t(H.value_stride) * H.nslices * S.MaxEntries;
    H.values = Base;
    return L;
  }
  uint32_t Buckets = 1;
  while (Buckets < S.MaxEntries && Buckets < (1u << 30))
    Buckets <<= 1;
  H.nbuckets = Buckets;
  H.elem_stride = ebpfgpu_elem_stride(H.key_stride, H.value_stride, H.nslices);
  H.pool_size = poolSize(S);
  size_t Off = 0;
  H.control = Base + Off;
  static_assert(EBPFGPU_CTL_WORDS % 2 == 0, "the buckets and what follows stay 8-byte aligned");
  Off += EBPFGPU_CTL_WORDS * 4;
  H.buckets = Base + Off;
  Off += size_t(Buckets) * 4;
  H.locks = Base + Off;
  Off += size_t(Buckets) * 4;
  if (S.Type == EBPFGPU_MAP_LPM_TRIE) {
    H.prefix_counts = Base + Off;
    Off += size_t(H.prefix_bits + 1) * 4;
    Off = (Off + 7) & ~size_t(7);
    Off += size_t(EBPFGPU_LPM_PRESENT_WORDS(H.prefix_bits)) * 8; // ebpfgpu_lpm_present
    Off += size_t(EBPFGPU_LPM_LIST_MAX) * (8 + ((S.KeySize - 4 + 7) & ~7u)); // ebpfgpu_lpm_list
  }
  Off = (Off + EBPFGPU_ELEM_ALIGN - 1) & ~size_t(EBPFGPU_ELEM_ALIGN - 1);
  H.elems = Base + Off;
  Off += size_t(H.elem_stride) * H.pool_size;
  L.Bytes = Off;
  return L;
}

std::vector<uint8_t> sumPerCpuValues(const uint8_t *V, uint32_t Size, uint32_t Stride,
                                     uint32_t Slices) {
  unsigned Word = Size % 8 == 0 ? 8 : Size % 4 == 0 ? 4 : 1;
  std::vector<uint8_t> Sum(Size, 0);
  for (uint32_t Off = 0; Off < Size; Off += Word) {
    uint64_t Total = 0;
    for (uint32_t S = 0; S < Slices; ++S) {
      uint64_t X = 0;
      std::memcpy(&X, V + size_t(S) * Stride + Off, Word);
      Total += X;
    }
    std::memcpy(Sum.data() + Off, &Total, Word);
  }
  return Sum;
}

bool hasPendingElements(const uint32_t *Control) { return Control[EBPFGPU_CTL_PENDING] != 0; }

uint32_t starvedUpdates(const uint32_t *Control) { return Control[EBPFGPU_CTL_STARVED]; }

void reclaimHashMap(const MapLayout &L, uint8_t *Storage) {
  const ebpfgpu_map &H = L.Header;
  uint64_t Base = H.control; // the block starts with the control words
  uint8_t *Control = Storage + (H.control - Base);
  uint8_t *Elems = Storage + (H.elems - Base);
  // The device's splice (MapHelpers.inc), on the host copy.
  ebpfgpu_map Here = H;
  Here.control = reinterpret_cast<uint64_t>(Control);
  Here.elems = reinterpret_cast<uint64_t>(Elems);
  // What the runs since the last reclaim changed: an element deleted or
  // replaced waits on the pending list; an update or a deletion left the
  // prefix list stale. Nothing else needs the walks below (a one-worker
  // host program reclaims after every packet).
  const bool Retired = load32(Control + 4 * EBPFGPU_CTL_PENDING) != 0;
  ebpfgpu_hash_reclaim(&Here);
  if (H.type == EBPFGPU_MAP_LPM_TRIE && Retired) {
    // The lengths present, exact again: deletes left their bits set.
    const uint8_t *Counts = Storage + (H.prefix_counts - Base);
    uint8_t *Present =
        Storage + (reinterpret_cast<uint64_t>(ebpfgpu_lpm_present(&H)) - Base);
    for (uint32_t W = 0; W < EBPFGPU_LPM_PRESENT_WORDS(H.prefix_bits); ++W) {
      uint64_t Bits = 0;
      for (uint32_t B = 0; B < 64 && W * 64 + B <= H.prefix_bits; ++B)
        if (load32(Counts + 4 * (W * 64 + B)))
          Bits |= uint64_t(1) << B;
      std::memcpy(Present + 8 * W, &Bits, 8);
    }
  }
  if (H.type == EBPFGPU_MAP_LPM_TRIE && load32(Control + 4 * EBPFGPU_CTL_LPM_LIST) == 0) {
    // The prefix list, current again (programs' updates made it stale).
    ebpfgpu_map Here = H;
    auto At = [&](uint64_t A) { return reinterpret_cast<uint64_t>(Storage + (A - Base)); };
    Here.control = At(H.control), Here.buckets = At(H.buckets), Here.locks = At(H.locks);
    Here.elems = At(H.elems), Here.prefix_counts = At(H.prefix_counts);
    rebuildLpmList(Here);
  }
}

void relayHashMap(ebpfgpu_map &M) {
  if (!ebpfgpu_map_is_hashed(M.type) || M.type == EBPFGPU_MAP_LPM_TRIE)
    return;
  uint32_t *Buckets = reinterpret_cast<uint32_t *>(M.buckets);
  std::vector<uint32_t> Linked;
  for (uint32_t B = 0; B < M.nbuckets; ++B)
    for (uint32_t At = Buckets[B]; At; At = *ebpfgpu_elem_word(ebpfgpu_elem(&M, At - 1), 0))
      Linked.push_back(At - 1);
  auto Key = [&](uint32_t I) { return ebpfgpu_elem(&M, I) + EBPFGPU_ELEM_HEADER; };
  std::sort(Linked.begin(), Linked.end(), [&](uint32_t A, uint32_t B) {
    return std::memcmp(Key(A), Key(B), M.key_size) < 0;
  });
  const size_t Stride = M.elem_stride;
  std::vector<uint8_t> Elems(Linked.size() * Stride);
  for (size_t I = 0; I < Linked.size(); ++I)
    std::memcpy(Elems.data() + I * Stride, ebpfgpu_elem(&M, Linked[I]), Stride);
  std::memset(ebpfgpu_elem(&M, 0), 0, size_t(M.pool_size) * Stride);
  std::memset(Buckets, 0, size_t(M.nbuckets) * 4);
  std::memset(reinterpret_cast<uint32_t *>(M.locks), 0, size_t(M.nbuckets) * 4);
  const uint32_t N = uint32_t(Linked.size());
  for (uint32_t I = 0; I < N; ++I) {
    uint8_t *E = ebpfgpu_elem(&M, I);
    std::memcpy(E, Elems.data() + I * Stride, Stride);
    uint32_t *Head = ebpfgpu_bucket(&M, *ebpfgpu_elem_word(E, 1)); // its hash
    *ebpfgpu_elem_word(E, 0) = *Head; // pushed at the head, as an insert links it
    *ebpfgpu_elem_word(E, 3) = 0;     // on no pending or free list
    *Head = I + 1;
  }
  uint32_t *Control = reinterpret_cast<uint32_t *>(M.control);
  Control[EBPFGPU_CTL_FRESH] = N;
  Control[EBPFGPU_CTL_LIVE] = N;
  Control[EBPFGPU_CTL_FREE] = 0;
  Control[EBPFGPU_CTL_PENDING] = 0;
  Control[EBPFGPU_CTL_PENDING_TAIL] = 0;
}

MaybeError checkMapIntegrity(const std::string &Name, const MapLayout &L, const uint8_t *Storage) {
  const ebpfgpu_map &H = L.Header;
  if (!ebpfgpu_map_is_hashed(H.type))
    return std::nullopt;
  auto Fault = [&](const std::string &Why) { return Error("map '" + Name + "': " + Why); };
  uint64_t Base = H.control;
  const uint8_t *Control = Storage + (H.control - Base);
  const uint8_t *Buckets = Storage + (H.buckets - Base);
  const uint8_t *Elems = Storage + (H.elems - Base);
  uint32_t Handed = std::min(load32(Control + 4 * EBPFGPU_CTL_FRESH), H.pool_size);
  std::vector<uint8_t> Seen(H.pool_size, 0); // 1 linked, 2 free or pending
  std::set<std::vector<uint8_t>> Keys;
  std::vector<uint32_t> LpmKeys(H.type == EBPFGPU_MAP_LPM_TRIE ? H.prefix_bits + 1 : 0);
  uint32_t Linked = 0;
  for (uint32_t B = 0; B < H.nbuckets; ++B) {
    for (uint32_t At = load32(Buckets + 4 * B); At != 0;) {
      if (At > Handed)
        return Fault("bucket " + std::to_string(B) + " links element " + std::to_string(At - 1) +
                     ", never handed out");
      if (Seen[At - 1])
        return Fault("element " + std::to_string(At - 1) + " is linked twice");
      Seen[At - 1] = 1;
      ++Linked;
      const uint8_t *E = Elems + size_t(At - 1) * H.elem_stride;
      const uint8_t *K = E + EBPFGPU_ELEM_HEADER;
      uint32_t Hash = ebpfgpu_hash_key(K, H.key_size);
      if (load32(E + 4) != Hash || (Hash & (H.nbuckets - 1)) != B)
        return Fault("element " + std::to_string(At - 1) + " is in bucket " + std::to_string(B) +
                     " but its key hashes elsewhere");
      if (!Keys.insert(std::vector<uint8_t>(K, K + H.key_size)).second)
        return Fault("a key is linked twice");
      if (H.type == EBPFGPU_MAP_LPM_TRIE) {
        uint32_t Len = load32(K);
        if (Len > H.prefix_bits)
          return Fault("a key has prefix length " + std::to_string(Len));
        ++LpmKeys[Len];
        uint64_t Word;
        std::memcpy(&Word,
                    Storage + (reinterpret_cast<uint64_t>(ebpfgpu_lpm_present(&H)) - Base) +
                        8 * (Len / 64),
                    8);
        if (!(Word >> (Len % 64) & 1))
          return Fault("a key of prefix length " + std::to_string(Len) +
                       " is linked, but the length is not marked present");
      }
      At = load32(E);
    }
  }
  if (Linked != load32(Control + 4 * EBPFGPU_CTL_LIVE))
    return Fault(std::to_string(Linked) + " elements linked, the live count says " +
                 std::to_string(load32(Control + 4 * EBPFGPU_CTL_LIVE)));
  if (Linked > H.max_entries)
    return Fault(std::to_string(Linked) + " keys, more than max_entries");
  for (uint32_t Len = 0; Len < LpmKeys.size(); ++Len)
    if (uint32_t N = load32(Storage + (H.prefix_counts - Base) + 4 * Len); N != LpmKeys[Len])
      return Fault(std::to_string(LpmKeys[Len]) + " keys of prefix length " +
                   std::to_string(Len) + " linked, its count says " + std::to_string(N));
  // A current prefix list holds every linked key, longest first.
  if (uint32_t Word = load32(Control + 4 * EBPFGPU_CTL_LPM_LIST);
      Word && H.type == EBPFGPU_MAP_LPM_TRIE) {
    if (Word - 1 != Linked || Linked > EBPFGPU_LPM_LIST_MAX)
      return Fault("the prefix list holds " + std::to_string(Word - 1) + " keys, " +
                   std::to_string(Linked) + " are linked");
    const uint32_t Stride = ebpfgpu_lpm_entry_stride(&H);
    const uint8_t *List = Storage + (reinterpret_cast<uint64_t>(ebpfgpu_lpm_list(&H)) - Base);
    for (uint32_t I = 0; I < Linked; ++I) {
      const uint8_t *Entry = List + size_t(I) * Stride;
      uint32_t Elem = load32(Entry + 4);
      const uint8_t *K = Elems + size_t(Elem) * H.elem_stride + EBPFGPU_ELEM_HEADER;
      if (Elem >= H.pool_size || Seen[Elem] != 1 || load32(K) != load32(Entry) ||
          std::memcmp(K + 4, Entry + 8, H.key_size - 4) != 0 ||
          (I && load32(Entry) > load32(Entry - Stride)))
        return Fault("prefix list entry " + std::to_string(I) +
                     " is not a linked key in longest-first order");
    }
  }
  uint32_t Listed = 0, PendingLast = 0;
  for (unsigned List : {EBPFGPU_CTL_FREE, EBPFGPU_CTL_PENDING}) {
    uint32_t Last = 0;
    for (uint32_t At = load32(Control + 4 * List); At != 0; ++Listed) {
      if (At > Handed || Seen[At - 1])
        return Fault("free or pending list holds element " + std::to_string(At - 1) +
                     (At > Handed ? ", never handed out" : ", also in use"));
      Seen[At - 1] = 2;
      Last = At;
      At = load32(Elems + size_t(At - 1) * H.elem_stride + 12); // both through word 3
    }
    if (List == EBPFGPU_CTL_PENDING)
      PendingLast = Last;
  }
  if (Linked + Listed != Handed)
    return Fault(std::to_string(Handed - Linked - Listed) + " elements lost (" +
                 std::to_string(Handed) + " handed out, " + std::to_string(Linked) + " linked, " +
                 std::to_string(Listed) + " free or pending)");
  // The reclaim splices the pending list at its tail.
  if (uint32_t Tail = load32(Control + 4 * EBPFGPU_CTL_PENDING_TAIL); Tail != PendingLast)
    return Fault(PendingLast ? "the pending list ends at element " +
                                   std::to_string(PendingLast - 1) + ", its tail word says " +
                                   (Tail ? std::to_string(Tail - 1) : "none")
                             : "the pending list is empty, its tail word says " +
                                   std::to_string(int64_t(Tail) - 1));
  return std::nullopt;
}

void rebuildLpmList(ebpfgpu_map &M) {
  if (M.type != EBPFGPU_MAP_LPM_TRIE)
    return;
  auto *Control = reinterpret_cast<uint8_t *>(M.control);
  uint8_t *Word = Control + 4 * EBPFGPU_CTL_LPM_LIST;
  store32(Word, 0);
  // A well-formed map: the live count bounds the walk (and a big trie
  // costs one load, not a walk of its buckets).
  uint32_t Live = load32(Control + 4 * EBPFGPU_CTL_LIVE);
  if (Live > EBPFGPU_LPM_LIST_MAX)
    return;
  struct Entry {
    uint32_t Len, Elem;
    const uint8_t *Data;
  };
  std::vector<Entry> Keys;
  const auto *Buckets = reinterpret_cast<const uint8_t *>(M.buckets);
  const auto *Elems = reinterpret_cast<const uint8_t *>(M.elems);
  for (uint32_t B = 0; B < M.nbuckets; ++B)
    for (uint32_t At = load32(Buckets + 4 * B); At != 0;) {
      if (Keys.size() == EBPFGPU_LPM_LIST_MAX || At > M.pool_size)
        return; // more keys than counted: no list
      const uint8_t *E = Elems + size_t(At - 1) * M.elem_stride;
      Keys.push_back({load32(E + EBPFGPU_ELEM_HEADER), At - 1, E + EBPFGPU_ELEM_HEADER + 4});
      At = load32(E);
    }
  std::stable_sort(Keys.begin(), Keys.end(),
                   [](const Entry &X, const Entry &Y) { return X.Len > Y.Len; });
  const uint32_t Stride = ebpfgpu_lpm_entry_stride(&M), Data = M.key_size - 4;
  uint8_t *List = ebpfgpu_lpm_list(&M);
  std::memset(List, 0, size_t(EBPFGPU_LPM_LIST_MAX) * Stride);
  for (size_t I = 0; I < Keys.size(); ++I) {
    uint8_t *Out = List + I * Stride;
    store32(Out, Keys[I].Len);
    store32(Out + 4, Keys[I].Elem);
    std::memcpy(Out + 8, Keys[I].Data, Data); // stored keys are masked already
  }
  store32(Word, uint32_t(Keys.size()) + 1);
}

ebpfgpu_map globalDataHeader(uint32_t Size, uint64_t Bytes, int32_t SpinLockOff) {
  ebpfgpu_map H{};
  H.type = EBPFGPU_MAP_ARRAY;
  H.key_size = 4;
  H.value_size = Size;
  H.max_entries = 1;
  H.value_stride = (Size + 7u) & ~7u;
  H.values = Bytes;
  H.nslices = 1;
  H.spin_lock = SpinLockOff >= 0 ? uint32_t(SpinLockOff) + 1 : 0;
  return H;
}

int64_t hostMapUpdate(ebpfgpu_map &M, const uint8_t *Key, const uint8_t *Value, uint64_t Flags) {
  ebpfgpu_xdp_ctx Ctx{};
  if (ebpfgpu_map_is_blob(M.type)) // a whole pattern set or model, through setMapEntry only
    return -EBPFGPU_EINVAL;
  if (ebpfgpu_map_is_keyless(M.type)) // the kernel's update of these: a push
    return loader_map_push_elem(&Ctx, &M, Value, Flags);
  // A value's bpf_spin_lock is not the caller's to write (the kernel's
  // copy_map_value skips it): an array's stays as it is, a hash's new
  // element starts unlocked (the update itself, MapHelpers.inc). A nonzero
  // word written here would leave the lock held, and the program's next
  // bpf_spin_lock would wait forever.
  int64_t Rc = loader_map_update_elem(&Ctx, &M, Key, Value, Flags);
  if (Rc == 0)
    rebuildLpmList(M);
  return Rc;
}

int64_t hostMapDelete(ebpfgpu_map &M, const uint8_t *Key) {
  ebpfgpu_xdp_ctx Ctx{};
  if (ebpfgpu_map_is_blob(M.type))
    return -EBPFGPU_EINVAL;
  // The kernel's: queues and stacks -EINVAL, bloom filters -EOPNOTSUPP.
  if (ebpfgpu_map_is_keyless(M.type))
    return M.type == EBPFGPU_MAP_BLOOM_FILTER ? -EBPFGPU_EOPNOTSUPP : -EBPFGPU_EINVAL;
  int64_t Rc = loader_map_delete_elem(&Ctx, &M, Key);
  if (Rc == 0)
    rebuildLpmList(M);
  return Rc;
}

const uint8_t *hostMapLookup(ebpfgpu_map &M, const uint8_t *Key) {
  ebpfgpu_xdp_ctx Ctx{};
  if (ebpfgpu_map_is_queue_stack(M.type)) // a peek: the value a pop would take
    return queueStackSlot(M, 0, true);
  if (M.type == EBPFGPU_MAP_BLOOM_FILTER || ebpfgpu_map_is_blob(M.type))
    return nullptr; // asked by value (hostBloomContains), a scan or a model (hostModelClassify)
  return static_cast<const uint8_t *>(loader_map_lookup_elem(&Ctx, &M, Key));
}

bool hostBloomContains(ebpfgpu_map &M, const uint8_t *Value) {
  ebpfgpu_xdp_ctx Ctx{};
  std::vector<uint8_t> V(Value, Value + M.value_size);
  return loader_map_peek_elem(&Ctx, &M, V.data()) == 0;
}

int64_t hostPatternScan(const ebpfgpu_map &M, const uint8_t *Data, size_t Size) {
  return ebpfgpu_patterns_scan(&M, Data, Data + Size);
}

int64_t hostPatternScanAll(const ebpfgpu_map &M, const uint8_t *Data, size_t Size,
                           uint64_t *Bitmap, uint32_t Words) {
  return ebpfgpu_patterns_scan_all(&M, Data, Data + Size, Bitmap, Words);
}

int64_t hostModelClassify(const ebpfgpu_map &M, const int32_t *Features, size_t Count) {
  return ebpfgpu_model_classify(&M, Features, Count);
}

const uint8_t *queueStackSlot(const ebpfgpu_map &M, uint32_t I, bool FromPopEnd) {
  if (!ebpfgpu_map_is_queue_stack(M.type))
    return nullptr;
  const auto *Control = reinterpret_cast<const uint32_t *>(M.control);
  const uint32_t Size = M.max_entries + 1, Head = Control[EBPFGPU_QS_HEAD],
                 Tail = Control[EBPFGPU_QS_TAIL];
  if (Head >= Size || Tail >= Size)
    return nullptr; // damaged control words
  const uint32_t Count = Head >= Tail ? Head - Tail : Head + Size - Tail;
  if (I >= Count)
    return nullptr;
  // Slot of the I-th oldest value; a stack pops from the newest end.
  uint32_t Oldest = FromPopEnd && M.type == EBPFGPU_MAP_STACK ? Count - 1 - I : I;
  uint32_t Slot = uint32_t((uint64_t(Tail) + Oldest) % Size);
  return reinterpret_cast<const uint8_t *>(M.values) + size_t(Slot) * M.value_stride;
}

void forEachMapEntry(const ebpfgpu_map &M,
                     const std::function<void(const uint8_t *Key, const uint8_t *Value)> &Visit) {
  auto Value = [&](const uint8_t *V) {
    return sumPerCpuValues(V, M.value_size, M.value_stride, M.nslices);
  };
  if (M.type == EBPFGPU_MAP_BLOOM_FILTER || ebpfgpu_map_is_blob(M.type))
    return; // bits, an automaton or a model, no values to list
  if (ebpfgpu_map_is_queue_stack(M.type)) {
    // Oldest first: pushing them again in this order makes the same map.
    for (uint32_t I = 0; const uint8_t *V = queueStackSlot(M, I, false); ++I)
      Visit(V, V); // no key: its 0 bytes at the value
    return;
  }
  if (!ebpfgpu_map_is_hashed(M.type)) {
    const auto *Values = reinterpret_cast<const uint8_t *>(M.values);
    for (uint32_t I = 0; I < M.max_entries; ++I) {
      uint8_t Key[4];
      store32(Key, I);
      std::vector<uint8_t> V = Value(Values + size_t(I) * M.nslices * M.value_stride);
      Visit(Key, V.data());
    }
    return;
  }
  const auto *Buckets = reinterpret_cast<const uint8_t *>(M.buckets);
  const auto *Elems = reinterpret_cast<const uint8_t *>(M.elems);
  uint32_t Seen = 0;
  for (uint32_t B = 0; B < M.nbuckets; ++B) {
    // A well-formed map has at most max_entries keys; the bound keeps a
    // damaged one from looping.
    for (uint32_t At = load32(Buckets + 4 * B); At != 0 && Seen <= M.max_entries; ++Seen) {
      const uint8_t *E = Elems + size_t(At - 1) * M.elem_stride;
      const uint8_t *K = E + EBPFGPU_ELEM_HEADER;
      std::vector<uint8_t> V = Value(K + M.key_stride);
      Visit(K, V.data());
      At = load32(E);
    }
  }
}

MaybeError setMapEntry(const std::string &Name, ebpfgpu_map &M, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) {
  if (ebpfgpu_map_is_event(M.type))
    return Error("map '" + Name + "' holds event records, not entries");
  if (ebpfgpu_map_is_patterns(M.type) && Key.empty() && Value.size() >= 4 &&
      load32(Value.data()) == EBPFGPU_MODEL_MAGIC)
    return Error("map '" + Name + "' is a pattern map: it takes a pattern file, not a model");
  if (ebpfgpu_map_is_model(M.type) || ebpfgpu_map_is_patterns(M.type))
    return writeBlobMap(Name, M, Key, Value);
  // A compiled pattern file (MAP:@FILE) given to a map of another type.
  if (Key.empty() && Value.size() >= sizeof(ebpfgpu_patterns) &&
      load32(Value.data()) == EBPFGPU_PATTERNS_MAGIC)
    return Error("map '" + Name + "' (" + platform::mapTypeName(M.type) +
                 ") is not a pattern map: only a pattern map takes a pattern file (MAP:@FILE)");
  if (Key.empty() && Value.size() >= sizeof(ebpfgpu_model) &&
      load32(Value.data()) == EBPFGPU_MODEL_MAGIC)
    return Error("map '" + Name + "' (" + platform::mapTypeName(M.type) +
                 ") is not a model map: only a model map takes a model file (MAP:@FILE)");
  if (Key.size() != M.key_size || Value.size() != M.value_size)
    return Error("map '" + Name + "': takes " + std::to_string(M.key_size) + "-byte keys and " +
                 std::to_string(M.value_size) + "-byte values, not " + std::to_string(Key.size()) +
                 " and " + std::to_string(Value.size()));
  int64_t Rc = hostMapUpdate(M, Key.data(), Value.data(), 0);
  if (Rc == 0)
    return std::nullopt;
  const char *Why = Rc == -EBPFGPU_E2BIG || Rc == -EBPFGPU_ENOSPC ? "the map is full"
                    : Rc == -EBPFGPU_EINVAL                      ? "invalid key (EINVAL)"
                                                                 : "error";
  return Error("map '" + Name + "': update: " + Why + " (" + std::to_string(Rc) + ")");
}

std::string formatQueueEntries(const std::string &Name,
                               const std::vector<std::vector<uint8_t>> &Values) {
  std::string Out;
  for (size_t I = 0; I < Values.size(); ++I)
    Out += Name + "<" + std::to_string(I) + "> = " +
           formatValue(Values[I].data(), uint32_t(Values[I].size())) + "\n";
  return Out;
}

std::string formatHashEntries(const std::string &Name,
                              std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> KV) {
  std::sort(KV.begin(), KV.end());
  std::string Out;
  char Buf[32];
  for (auto &[K, V] : KV) {
    Out += Name + "{";
    for (uint8_t B : K) {
      std::snprintf(Buf, sizeof(Buf), "%02x", B);
      Out += Buf;
    }
    Out += "} = " + formatValue(V.data(), uint32_t(V.size())) + "\n";
  }
  return Out;
}

namespace {

/// The 4-byte slot value naming entry `Name` of `Names` (its index + 1),
/// or an error that says what `Owner` can hold: `What` (a map, a program),
/// then `None` where `Names` is empty, else `Some` and the names.
Expected<std::vector<uint8_t>> namedSlotValue(const std::string &Owner,
                                              const std::vector<std::string> &Names,
                                              const std::string &Name, const char *What,
                                              const char *None, const char *Some) {
  auto It = std::find(Names.begin(), Names.end(), Name);
  if (It == Names.end()) {
    std::string Have;
    for (const std::string &N : Names)
      Have += (Have.empty() ? "" : ", ") + N;
    return Error(Owner + ": '" + Name + "' is not " + What + " it can hold (" +
                 (Have.empty() ? std::string(None) : Some + Have) + ")");
  }
  uint32_t Id = uint32_t(It - Names.begin()) + 1;
  std::vector<uint8_t> V(4);
  std::memcpy(V.data(), &Id, 4);
  return V;
}

} // namespace

Expected<std::vector<uint8_t>> programSlotValue(const std::string &Array,
                                                const std::vector<std::string> &SetPrograms,
                                                const std::string &Program) {
  return namedSlotValue("program array '" + Array + "'", SetPrograms, Program, "a program",
                        "this build records none: compile the object again",
                        "the object's programs: ");
}

Expected<std::vector<uint8_t>> innerMapValue(const std::string &Outer,
                                             const std::vector<std::string> &InnerNames,
                                             const std::string &Inner) {
  return namedSlotValue("map '" + Outer + "'", InnerNames, Inner, "a map",
                        "the object has none that fits its inner map definition",
                        "those that fit its inner map definition: ");
}

std::string formatOuterEntries(const std::string &Name, bool Array,
                               std::vector<std::pair<std::vector<uint8_t>, std::string>> KV) {
  std::sort(KV.begin(), KV.end());
  std::string Out;
  char Buf[32];
  for (auto &[K, Inner] : KV) {
    if (Array && K.size() == 4) {
      Out += Name + "[" + std::to_string(load32(K.data())) + "] = @" + Inner + "\n";
      continue;
    }
    Out += Name + "{";
    for (uint8_t B : K) {
      std::snprintf(Buf, sizeof(Buf), "%02x", B);
      Out += Buf;
    }
    Out += "} = @" + Inner + "\n";
  }
  return Out;
}

std::string formatMap(const std::string &Name, const MapLayout &L, const uint8_t *Storage,
                      const std::vector<std::string> &InnerNames) {
  const ebpfgpu_map &H = L.Header;
  if (H.type == EBPFGPU_MAP_PROG_ARRAY)
    return ""; // program references, not data (the kernel reports its own ids)
  if (H.type == EBPFGPU_MAP_BLOOM_FILTER)
    return ""; // bits, no values (nor does the kernel list any)
  if (ebpfgpu_map_is_patterns(H.type)) {
    // What the automaton holds, not its tables.
    ebpfgpu_patterns P{};
    std::memcpy(&P, Storage, std::min<size_t>(sizeof(P), H.max_entries));
    size_t Size = size_t(std::min<uint64_t>(P.bytes, H.max_entries));
    return Name + ": " +
           (P.magic && checkPatterns(Storage, Size).empty()
                ? "pattern set of " + describePatterns(Storage)
                : std::string("no pattern set")) +
           "\n";
  }
  if (ebpfgpu_map_is_model(H.type)) {
    ebpfgpu_model P{};
    std::memcpy(&P, Storage, std::min<size_t>(sizeof(P), H.max_entries));
    size_t Size = size_t(std::min<uint64_t>(P.bytes, H.max_entries));
    return Name + ": " +
           (P.magic && checkModel(Storage, Size).empty() ? describeModel(Storage)
                                                         : std::string("no model")) +
           "\n";
  }
  if (ebpfgpu_map_is_queue_stack(H.type)) {
    ebpfgpu_map Here = H;
    Here.control = reinterpret_cast<uint64_t>(Storage);
    Here.values = reinterpret_cast<uint64_t>(Storage + (H.values - H.control));
    std::vector<std::vector<uint8_t>> Values;
    for (uint32_t I = 0; const uint8_t *V = queueStackSlot(Here, I, false); ++I)
      Values.emplace_back(V, V + H.value_size);
    return formatQueueEntries(Name, Values);
  }
  if (ebpfgpu_map_is_event(H.type))
    return ""; // records, taken between runs (takeEventRecords)
  if (ebpfgpu_map_is_outer(H.type)) {
    // Inner map references by name (ids are the runtime's, as the kernel's
    // are its own).
    auto InnerName = [&](const uint8_t *V) {
      uint32_t Id = load32(V);
      return Id == 0 ? std::string()
             : Id <= InnerNames.size() ? InnerNames[Id - 1]
                                       : "(bad id " + std::to_string(Id) + ")";
    };
    std::vector<std::pair<std::vector<uint8_t>, std::string>> KV;
    if (H.type == EBPFGPU_MAP_ARRAY_OF_MAPS) {
      for (uint32_t I = 0; I < H.max_entries; ++I)
        if (std::string N = InnerName(Storage + size_t(I) * H.value_stride); !N.empty()) {
          std::vector<uint8_t> K(4);
          store32(K.data(), I);
          KV.push_back({K, N});
        }
      return formatOuterEntries(Name, true, std::move(KV));
    }
    uint64_t Base = H.control;
    const uint8_t *Buckets = Storage + (H.buckets - Base);
    const uint8_t *Elems = Storage + (H.elems - Base);
    for (uint32_t B = 0; B < H.nbuckets; ++B)
      for (uint32_t At = load32(Buckets + 4 * B); At != 0 && KV.size() <= H.max_entries;) {
        const uint8_t *E = Elems + size_t(At - 1) * H.elem_stride;
        const uint8_t *K = E + EBPFGPU_ELEM_HEADER;
        KV.push_back({std::vector<uint8_t>(K, K + H.key_size), InnerName(K + H.key_stride)});
        At = load32(E);
      }
    return formatOuterEntries(Name, false, std::move(KV));
  }
  auto Value = [&](const uint8_t *V) {
    return sumPerCpuValues(V, H.value_size, H.value_stride, H.nslices);
  };
  if (!ebpfgpu_map_is_hashed(H.type)) {
    if (H.nslices == 1)
      return formatArrayMap(Name, Storage, H.value_size, H.value_stride, H.max_entries);
    std::vector<uint8_t> Sums;
    for (uint32_t I = 0; I < H.max_entries; ++I) {
      std::vector<uint8_t> S = Value(Storage + size_t(I) * H.nslices * H.value_stride);
      Sums.insert(Sums.end(), S.begin(), S.end());
    }
    return formatArrayMap(Name, Sums.data(), H.value_size, H.value_size, H.max_entries);
  }
  uint64_t Base = H.control;
  const uint8_t *Buckets = Storage + (H.buckets - Base);
  const uint8_t *Elems = Storage + (H.elems - Base);
  std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> KV;
  for (uint32_t B = 0; B < H.nbuckets; ++B) {
    for (uint32_t At = load32(Buckets + 4 * B); At != 0 && KV.size() <= H.max_entries;) {
      const uint8_t *E = Elems + size_t(At - 1) * H.elem_stride;
      const uint8_t *K = E + EBPFGPU_ELEM_HEADER;
      KV.push_back({std::vector<uint8_t>(K, K + H.key_size), Value(K + H.key_stride)});
      At = load32(E);
    }
  }
  return formatHashEntries(Name, std::move(KV));
}

MaybeError takeEventRecords(const std::string &Name, const MapLayout &L, uint8_t *Block,
                            uint32_t FirstPacket, std::vector<EventRecord> &Out,
                            uint64_t &Dropped) {
  const ebpfgpu_map &H = L.Header;
  uint8_t *Control = Block, *Stream = Block + (H.values - H.control);
  uint32_t Head = load32(Control + 4 * EBPFGPU_EVT_HEAD);
  if (Head > H.event_capacity)
    return Error("map '" + Name + "': the record stream's head (" + std::to_string(Head) +
                 ") is past its " + std::to_string(H.event_capacity) + " bytes");
  bool Ring = H.type == EBPFGPU_MAP_RINGBUF;
  for (uint32_t At = 0; At < Head;) {
    if (Head - At < EBPFGPU_EVT_HDR)
      return Error("map '" + Name + "': a record header is cut off at byte " + std::to_string(At));
    uint32_t Word = load32(Stream + At), Len = Word & ~(EBPFGPU_EVT_BUSY | EBPFGPU_EVT_DISCARD);
    uint64_t Bytes = Ring ? (uint64_t(Len) + EBPFGPU_EVT_HDR + 7) & ~uint64_t(7)
                          : EBPFGPU_EVT_HDR + ((uint64_t(Len) + 7) & ~uint64_t(7));
    if (Bytes > Head - At)
      return Error("map '" + Name + "': the record at byte " + std::to_string(At) +
                   " runs past the stream");
    if (Word & EBPFGPU_EVT_BUSY)
      return Error("map '" + Name + "': the record at byte " + std::to_string(At) +
                   " was reserved and never submitted or discarded");
    if (!(Word & EBPFGPU_EVT_DISCARD)) {
      const uint8_t *Data = Stream + At + EBPFGPU_EVT_HDR;
      Out.push_back({FirstPacket + load32(Stream + At + 4), std::vector<uint8_t>(Data, Data + Len)});
    }
    At += uint32_t(Bytes);
  }
  Dropped += load32(Control + 4 * EBPFGPU_EVT_DROPPED);
  uint64_t Taken;
  std::memcpy(&Taken, Control + 4 * EBPFGPU_EVT_TAKEN, 8);
  Taken += Head;
  std::memcpy(Control + 4 * EBPFGPU_EVT_TAKEN, &Taken, 8);
  store32(Control + 4 * EBPFGPU_EVT_HEAD, 0);
  store32(Control + 4 * EBPFGPU_EVT_DROPPED, 0);
  return std::nullopt;
}

HostMap::HostMap(std::string Name, const platform::MapShape &S, uint32_t Slices)
    : Name(std::move(Name)) {
  Layout = mapLayout(S, Slices, 0);
  Storage.assign(Layout.Bytes ? Layout.Bytes : 1, 0);
  Layout = mapLayout(S, Slices, reinterpret_cast<uint64_t>(Storage.data()));
}

void HostMap::setInnerMaps(std::vector<std::string> Names, const std::vector<HostMap *> &Maps) {
  InnerNames = std::move(Names);
  InnerTable.clear();
  for (HostMap *M : Maps)
    InnerTable.push_back(reinterpret_cast<uint64_t>(M->header()));
  Layout.Header.inner_maps = reinterpret_cast<uint64_t>(InnerTable.data());
  Layout.Header.inner_count = uint32_t(InnerTable.size());
}


std::string formatArrayMap(const std::string &Name, const uint8_t *Values, uint32_t ValueSize,
                           uint32_t Stride, uint32_t MaxEntries) {
  std::string Out;
  for (uint32_t I = 0; I < MaxEntries; ++I) {
    const uint8_t *V = Values + size_t(I) * Stride;
    bool Zero = true;
    for (uint32_t B = 0; B < ValueSize; ++B)
      Zero = Zero && V[B] == 0;
    if (!Zero)
      Out += Name + "[" + std::to_string(I) + "] = " + formatValue(V, ValueSize) + "\n";
  }
  return Out;
}

} // namespace ebpfgpu::abi

// SPDX-License-Identifier: Apache-2.0
//
// Host map storage and the common text form of map contents.

#include "ebpf-gpu/Loader/MapMemory.h"

#include <cstdio>
#include <algorithm>
#include <cstring>

namespace ebpfgpu::loader {

namespace {
constexpr uint32_t MapTypeHash = 1;
constexpr uint32_t MapTypeArray = 2;

uint32_t align8(uint32_t V) { return (V + 7u) & ~7u; }

uint32_t load32(const uint8_t *P) {
  uint32_t V;
  std::memcpy(&V, P, 4);
  return V;
}
void store32(uint8_t *P, uint32_t V) { std::memcpy(P, &V, 4); }
} // namespace

std::string formatValue(const uint8_t *V, uint32_t Size);

MaybeError checkMapSupported(const std::string &Name, uint32_t Type) {
  if (Type == MapTypeArray || Type == MapTypeHash)
    return std::nullopt;
  return Error("map '" + Name + "': maps of type " + std::to_string(Type) +
               " have no run-time implementation yet (arrays and hashes do)");
}

MapLayout mapLayout(uint32_t Type, uint32_t KeySize, uint32_t ValueSize, uint32_t MaxEntries,
                    uint32_t Flags, uint64_t Base) {
  MapLayout L;
  ebpfgpu_map &H = L.Header;
  H.type = Type;
  H.key_size = KeySize;
  H.value_size = ValueSize;
  H.max_entries = MaxEntries;
  H.flags = Flags;
  H.value_stride = align8(ValueSize);
  if (Type != MapTypeHash) {
    L.Bytes = size_t(H.value_stride) * MaxEntries;
    H.values = Base;
    return L;
  }
  uint32_t Buckets = 1;
  while (Buckets < MaxEntries && Buckets < (1u << 30))
    Buckets <<= 1;
  H.nbuckets = Buckets;
  H.key_stride = align8(KeySize);
  H.elem_stride = 8 + H.key_stride + H.value_stride;
  // Spares for the elements a batch's replacing updates unlink: they return
  // to the pool only when the batch ends.
  H.pool_size = MaxEntries + std::max<uint32_t>(MaxEntries, 4096);
  size_t Off = 0;
  H.control = Base + Off;
  Off += 24;
  H.buckets = Base + Off;
  Off += size_t(Buckets) * 4;
  H.locks = Base + Off;
  Off += size_t(Buckets) * 4;
  Off = (Off + 7) & ~size_t(7);
  H.elems = Base + Off;
  Off += size_t(H.elem_stride) * H.pool_size;
  L.Bytes = Off;
  return L;
}

void reclaimHashMap(const MapLayout &L, uint8_t *Storage) {
  const ebpfgpu_map &H = L.Header;
  uint64_t Base = H.control; // the block starts with the control words
  uint8_t *Control = Storage + (H.control - Base);
  uint8_t *Elems = Storage + (H.elems - Base);
  for (uint32_t Pending; (Pending = load32(Control + 12)) != 0;) {
    uint8_t *E = Elems + size_t(Pending - 1) * H.elem_stride;
    store32(Control + 12, load32(E));
    store32(E, load32(Control + 8));
    store32(Control + 8, Pending);
  }
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

std::string formatMap(const std::string &Name, const MapLayout &L, const uint8_t *Storage) {
  const ebpfgpu_map &H = L.Header;
  if (H.type != MapTypeHash)
    return formatArrayMap(Name, Storage, H.value_size, H.value_stride, H.max_entries);
  uint64_t Base = H.control;
  const uint8_t *Buckets = Storage + (H.buckets - Base);
  const uint8_t *Elems = Storage + (H.elems - Base);
  std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> KV;
  for (uint32_t B = 0; B < H.nbuckets; ++B) {
    for (uint32_t At = load32(Buckets + 4 * B); At != 0 && KV.size() <= H.max_entries;) {
      const uint8_t *E = Elems + size_t(At - 1) * H.elem_stride;
      KV.push_back({std::vector<uint8_t>(E + 8, E + 8 + H.key_size),
                    std::vector<uint8_t>(E + 8 + H.key_stride, E + 8 + H.key_stride + H.value_size)});
      At = load32(E);
    }
  }
  return formatHashEntries(Name, std::move(KV));
}

HostMap::HostMap(std::string Name, uint32_t Type, uint32_t KeySize, uint32_t ValueSize,
                 uint32_t MaxEntries, uint32_t Flags)
    : Name(std::move(Name)) {
  Layout = mapLayout(Type, KeySize, ValueSize, MaxEntries, Flags, 0);
  Storage.assign(Layout.Bytes ? Layout.Bytes : 1, 0);
  Layout = mapLayout(Type, KeySize, ValueSize, MaxEntries, Flags,
                     reinterpret_cast<uint64_t>(Storage.data()));
}

std::string formatValue(const uint8_t *V, uint32_t Size) {
  char Buf[32];
  if (Size == 8) {
    uint64_t X;
    std::memcpy(&X, V, 8);
    std::snprintf(Buf, sizeof(Buf), "%llu", static_cast<unsigned long long>(X));
    return Buf;
  }
  std::string Out;
  for (uint32_t B = 0; B < Size; ++B) {
    std::snprintf(Buf, sizeof(Buf), "%02x", V[B]);
    Out += Buf;
  }
  return Out;
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

} // namespace ebpfgpu::loader

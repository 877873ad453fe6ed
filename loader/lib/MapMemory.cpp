// SPDX-License-Identifier: Apache-2.0
//
// Host map storage and the common text form of map contents.

#include "ebpf-gpu/Loader/MapMemory.h"

#include <cstdio>
#include <cstring>

namespace ebpfgpu::loader {

namespace {
constexpr uint32_t MapTypeArray = 2;
}

MaybeError checkMapSupported(const std::string &Name, uint32_t Type) {
  if (Type == MapTypeArray)
    return std::nullopt;
  return Error("map '" + Name + "': maps of type " + std::to_string(Type) +
               " have no run-time implementation yet (arrays do)");
}

size_t mapValuesBytes(uint32_t ValueSize, uint32_t MaxEntries) {
  return size_t((ValueSize + 7u) & ~7u) * MaxEntries;
}

HostMap::HostMap(std::string Name, uint32_t Type, uint32_t KeySize, uint32_t ValueSize,
                 uint32_t MaxEntries, uint32_t Flags)
    : Name(std::move(Name)), Values(mapValuesBytes(ValueSize, MaxEntries), 0) {
  Header = {};
  Header.type = Type;
  Header.key_size = KeySize;
  Header.value_size = ValueSize;
  Header.max_entries = MaxEntries;
  Header.flags = Flags;
  Header.value_stride = (ValueSize + 7u) & ~7u;
  Header.values = reinterpret_cast<uint64_t>(Values.data());
}

std::string formatArrayMap(const std::string &Name, const uint8_t *Values, uint32_t ValueSize,
                           uint32_t Stride, uint32_t MaxEntries) {
  std::string Out;
  char Buf[64];
  for (uint32_t I = 0; I < MaxEntries; ++I) {
    const uint8_t *V = Values + size_t(I) * Stride;
    bool Zero = true;
    for (uint32_t B = 0; B < ValueSize; ++B)
      Zero = Zero && V[B] == 0;
    if (Zero)
      continue;
    Out += Name + "[" + std::to_string(I) + "] = ";
    if (ValueSize == 8) {
      uint64_t X;
      std::memcpy(&X, V, 8);
      std::snprintf(Buf, sizeof(Buf), "%llu", static_cast<unsigned long long>(X));
      Out += Buf;
    } else {
      for (uint32_t B = 0; B < ValueSize; ++B) {
        std::snprintf(Buf, sizeof(Buf), "%02x", V[B]);
        Out += Buf;
      }
    }
    Out += "\n";
  }
  return Out;
}

} // namespace ebpfgpu::loader

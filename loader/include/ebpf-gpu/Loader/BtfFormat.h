// SPDX-License-Identifier: Apache-2.0
//
// Map keys and values pretty-printed from the object's BTF, for the
// daemon's `map dump` and `map lookup`: a small reader of the `.BTF`
// section (kept in `.gpu.o` files and eBPF objects alike) that finds a
// map's key and value types (the `key`/`value` members of its variable in
// the `.maps` data section) or a global-data section's variables, and
// writes bytes of such a type as JSON text: integers as numbers, chars and
// bools as numbers and true/false, enums by name, structs and unions as
// objects by field (bitfields included), arrays as lists. No LLVM, no
// libbpf: the loader runs on machines without them.

#ifndef EBPF_GPU_LOADER_BTFFORMAT_H
#define EBPF_GPU_LOADER_BTFFORMAT_H

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ebpfgpu::loader {

class BtfTypes {
public:
  /// Reads a `.BTF` section. Fails on a malformed one (errors say where).
  static Expected<BtfTypes> read(const std::vector<uint8_t> &Btf);

  /// The key and value type ids of the BTF-defined map `Map` (0 when the
  /// map or either type is not described).
  std::pair<uint32_t, uint32_t> mapTypes(const std::string &Map) const;
  /// The type id of the data section `Name` (".bss", ".data", ".rodata",
  /// ".data.foo"), or 0.
  uint32_t dataSection(const std::string &Name) const;
  /// The size in bytes of type `Id` (after typedefs and qualifiers); 0
  /// for types without one (or none that fits in 64 bits, or nested past
  /// the reader's depth limit).
  uint64_t sizeOf(uint32_t Id) const;
  /// `Size` bytes of type `Id` as JSON text; nothing when the type's size
  /// is not `Size` or the type cannot be printed.
  std::optional<std::string> format(uint32_t Id, const uint8_t *Bytes, size_t Size) const;

private:
  friend class BtfCWriter;
  struct Type {
    uint32_t Kind = 0, Vlen = 0, SizeOrType = 0;
    bool KindFlag = false;
    std::string Name;
    size_t Extra = 0; ///< offset of the kind-specific data in Data
  };
  const Type *type(uint32_t Id) const { return Id < Types.size() ? &Types[Id] : nullptr; }
  uint32_t resolve(uint32_t Id) const;
  uint32_t word(size_t Off) const;
  std::string str(uint32_t Off) const;
  uint64_t sizeAt(uint32_t Id, unsigned Depth) const;
  bool write(uint32_t Id, const uint8_t *Bytes, size_t Size, std::string &Out,
             unsigned Depth) const;

  std::vector<uint8_t> Data;
  size_t StrBegin = 0, StrEnd = 0;
  std::vector<Type> Types; ///< index = type id; 0 is void
};

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_BTFFORMAT_H

// SPDX-License-Identifier: Apache-2.0
//
// C declarations from an object's BTF, for skeletons (ebpf-gpu-cc
// --emit=skeleton), as bpftool's btf_dump writes them: a global data
// section's variables as the members of a struct with their C types, and
// the definitions of the structs, unions, enums and typedefs they use,
// each once and before its first use. The text is C99 and C++ alike:
// qualifiers are dropped (a skeleton writes .rodata before load), _Bool is
// `bool` (<stdbool.h>), enums of other than 4 bytes are integers of their
// size, pointers to functions `void *`. Gaps the compiler would not leave
// are explicit padding and a packed struct says so, and every struct
// written comes with checks of its size (and a section's of each
// variable's offset) that fail to compile where the consumer's compiler
// lays it out otherwise (<stddef.h>'s offsetof).

#ifndef EBPF_GPU_LOADER_BTFCWRITER_H
#define EBPF_GPU_LOADER_BTFCWRITER_H

#include "ebpf-gpu/Loader/BtfFormat.h"

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ebpfgpu::loader {

class BtfCWriter {
public:
  /// Writes types of `Types`, which must outlive the writer.
  explicit BtfCWriter(const BtfTypes &Types) : T(Types) {}

  /// `struct Name { ... };` with the variables of data section `Section`
  /// (a type id from BtfTypes::dataSection) at their offsets in a section
  /// of `Size` bytes, and its layout checks; the types it needs go to
  /// definitions(). An object file's BTF leaves the offsets at 0 (the
  /// loader fills them in): `Offsets` (variable, offset; the ELF's
  /// symbols) say where each is. Nothing (and nothing added to
  /// definitions()) when a variable's type cannot be written in C, or the
  /// variables overlap or do not fit.
  std::optional<std::string>
  dataSectionStruct(uint32_t Section, uint64_t Size, const std::string &Name,
                    const std::vector<std::pair<std::string, uint64_t>> &Offsets);
  /// The definitions the structs written so far need, in an order C takes.
  const std::string &definitions() const { return Defs; }

private:
  struct Layout {
    uint64_t Size = 0, Align = 1;
    bool Packed = false;
  };
  const BtfTypes::Type *type(uint32_t Id) const { return T.type(Id); }
  uint32_t skipQualifiers(uint32_t Id) const;
  std::optional<Layout> layout(uint32_t Id, unsigned Depth) const;
  bool decl(uint32_t Id, const std::string &Declarator, bool Complete, unsigned Depth,
            const std::string &Indent, std::string &Out);
  bool body(uint32_t Id, unsigned Depth, const std::string &Indent, std::string &Out);
  bool define(uint32_t Id, bool Complete, unsigned Depth);
  std::string tagName(uint32_t Id) const;
  std::string sizeCheck(const std::string &Type, uint64_t Size);

  const BtfTypes &T;
  std::string Defs;
  std::set<uint32_t> Defined, Declared, InProgress;
  unsigned Checks = 0;
};

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_BTFCWRITER_H

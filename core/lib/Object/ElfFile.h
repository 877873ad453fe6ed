// SPDX-License-Identifier: Apache-2.0
//
// Private to the object reader: an ELF file's sections, symbols and
// relocations, read once with libelf into plain tables with every offset
// bounds-checked, so the rest of the reader never touches libelf.

#ifndef EBPF_GPU_OBJECT_ELFFILE_H
#define EBPF_GPU_OBJECT_ELFFILE_H

#include "ebpf-gpu/Object/Object.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ebpfgpu::object {

struct ElfSection {
  size_t Index = 0;
  std::string Name;
  uint32_t Type = 0;
  uint64_t Flags = 0;
  /// Contents (empty for SHT_NOBITS; Size still gives the length).
  std::vector<uint8_t> Bytes;
  uint64_t Size = 0;
  bool isExecutable() const;
};

struct ElfSymbol {
  std::string Name;
  uint64_t Value = 0;
  uint64_t Size = 0;
  uint16_t SectionIndex = 0;
  uint8_t Type = 0;
  uint8_t Bind = 0;
};

struct ElfReloc {
  uint64_t Offset = 0;
  uint32_t Type = 0;
  uint32_t SymbolIndex = 0;
};

/// The tables of one ELF object.
struct ElfFile {
  std::vector<ElfSection> Sections;
  std::vector<ElfSymbol> Symbols;
  /// Relocations by the index of the section they apply to, sorted by offset.
  std::map<size_t, std::vector<ElfReloc>> Relocs;

  const ElfSection *findSection(const std::string &Name) const;
};

/// Reads and checks the ELF container (64-bit, little-endian, EM_BPF).
Expected<ElfFile> readElf(const uint8_t *Data, size_t Size);

/// Map definitions of the object (.maps with BTF, legacy maps, global
/// data). Fills `Maps` and, for each map-defining symbol or data section,
/// the index of its map.
struct MapTable {
  std::vector<MapSpec> Maps;
  /// (section index, symbol value) -> map index, for .maps and maps.
  std::map<std::pair<size_t, uint64_t>, size_t> BySymbol;
  /// data section index -> map index.
  std::map<size_t, size_t> ByDataSection;
  /// iproute2's `struct bpf_elf_map` id (not 0) -> map index.
  std::map<uint32_t, size_t> LegacyIds;
};
Expected<MapTable> readMaps(const ElfFile &Elf);

/// The largest global data section ebpf-gpu takes (each becomes one array
/// map value, in host and GPU memory). The kernel takes more (a .bss of
/// 8 MiB loads on Linux 6.18); programs rarely have more than a few KiB.
constexpr uint64_t MaxDataSectionBytes = 64u << 20;

/// Fills in each global data section's DATASEC in the raw BTF `Btf` as
/// libbpf does before the kernel sees it (an object leaves them 0): the
/// section's size and its variables' offsets (MapSpec::Variables, from the
/// ELF symbols), the variables in offset order. BTF that libbpf cannot
/// parse is left as it is.
void placeDataSections(std::vector<uint8_t> &Btf, const std::vector<MapSpec> &Maps);

/// Resizes global data section `M` to `Size` bytes between open and load
/// (libbpf's bpf_map__set_value_size): its initial bytes kept up to the
/// smaller size, the rest zero; in `Btf` (placed), its last variable's
/// array then fills the section. Where it cannot (the last variable is no
/// array, or the bytes from it are no whole number of its elements) the
/// map's BTF types are dropped, as libbpf drops them: dumps show the
/// section's bytes in hex. Errors past MaxDataSectionBytes.
MaybeError resizeDataSection(std::vector<uint8_t> &Btf, MapSpec &M, uint32_t Size);

/// A program array slot an object's BTF names: a declaration tag
/// "tail:MAP/SLOT" on function `Program` (Cilium's `__declare_tail`).
struct TailTag {
  std::string Map;
  uint32_t Slot = 0;
  std::string Program;
};

/// The "tail:MAP/SLOT" declaration tags of the raw BTF `Btf`, in type
/// order; none where libbpf cannot parse it (TailTags.cpp).
std::vector<TailTag> readTailTags(const std::vector<uint8_t> &Btf);

/// Line records of `.BTF.ext` by section name, keyed by instruction index.
struct SourceLine {
  std::string File;
  std::string Text;
  uint32_t Line = 0;
  uint32_t Column = 0;
};
using LineTable = std::map<std::string, std::map<uint32_t, SourceLine>>;
Expected<LineTable> readLineInfo(const ElfFile &Elf);

/// Links every program of the object (relocations applied, sub-programs
/// appended, checked by the decoder). A program that cannot be linked (an
/// extern the project does not support) goes to `Unlinked` with the reason,
/// as the kernel loads each program alone: the object's others still load.
Expected<std::vector<ProgramSpec>> linkPrograms(const ElfFile &Elf, const MapTable &Maps,
                                                const LineTable &Lines,
                                                std::vector<UnlinkedProgram> &Unlinked);

} // namespace ebpfgpu::object

#endif // EBPF_GPU_OBJECT_ELFFILE_H

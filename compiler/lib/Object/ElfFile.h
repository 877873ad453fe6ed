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
};
Expected<MapTable> readMaps(const ElfFile &Elf);

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

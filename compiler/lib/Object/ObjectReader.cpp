// SPDX-License-Identifier: Apache-2.0
//
// The object reader's entry points: read the ELF, its maps, its line info,
// then link its programs; and the lookups on the resulting spec.

#include "ElfFile.h"

#include "ebpf-gpu/Support/ReadFile.h"

#include <algorithm>
#include <fstream>
#include <iterator>

namespace ebpfgpu::object {

const LineInfo *ProgramSpec::lineFor(uint32_t Pc) const {
  auto It = std::upper_bound(Lines.begin(), Lines.end(), Pc,
                             [](uint32_t P, const LineInfo &L) { return P < L.Pc; });
  if (It == Lines.begin())
    return nullptr;
  return &*std::prev(It);
}

const ProgramSpec *ObjectSpec::findProgram(const std::string &Name) const {
  for (const ProgramSpec &P : Programs)
    if (P.Name == Name)
      return &P;
  for (const ProgramSpec &P : Programs)
    if (P.Section == Name)
      return &P;
  return nullptr;
}

Expected<ObjectSpec> readObjectMemory(const uint8_t *Data, size_t Size,
                                      const std::string &Name) {
  Expected<ElfFile> Elf = readElf(Data, Size);
  if (!Elf)
    return Elf.takeError().withContext(Name);
  ObjectSpec Obj;
  Obj.Path = Name;
  Expected<MapTable> Maps = readMaps(*Elf);
  if (!Maps)
    return Maps.takeError().withContext(Name);
  Expected<LineTable> Lines = readLineInfo(*Elf);
  if (!Lines)
    return Lines.takeError().withContext(Name);
  Expected<std::vector<ProgramSpec>> Progs = linkPrograms(*Elf, *Maps, *Lines);
  if (!Progs)
    return Progs.takeError().withContext(Name);
  if (const ElfSection *L = Elf->findSection("license"))
    Obj.License = std::string(L->Bytes.begin(),
                              std::find(L->Bytes.begin(), L->Bytes.end(), 0));
  if (const ElfSection *B = Elf->findSection(".BTF"))
    Obj.Btf = B->Bytes;
  Obj.Maps = std::move(Maps->Maps);
  Obj.Programs = std::move(*Progs);
  return Obj;
}

Expected<ObjectSpec> readObjectFile(const std::string &Path) {
  auto Bytes = readFileBytes(Path);
  if (!Bytes)
    return Bytes.takeError();
  return readObjectMemory(Bytes->data(), Bytes->size(), Path);
}

} // namespace ebpfgpu::object

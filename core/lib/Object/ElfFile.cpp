// SPDX-License-Identifier: Apache-2.0
//
// Reading the ELF container with libelf into bounds-checked tables.

#include "ElfFile.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <memory>

namespace ebpfgpu::object {

bool ElfSection::isExecutable() const {
  return Type == SHT_PROGBITS && (Flags & SHF_EXECINSTR) && Size > 0;
}

const ElfSection *ElfFile::findSection(const std::string &Name) const {
  for (const ElfSection &S : Sections)
    if (S.Name == Name)
      return &S;
  return nullptr;
}

namespace {

struct ElfCloser {
  void operator()(Elf *E) const { elf_end(E); }
};

Error elfError(const std::string &What) {
  const char *Msg = elf_errmsg(-1);
  return Error(What + (Msg ? std::string(": ") + Msg : std::string()));
}

MaybeError readSymbols(Elf *E, Elf_Scn *Scn, const GElf_Shdr &Hdr,
                       size_t NumSections, ElfFile &Out) {
  Elf_Data *Data = elf_getdata(Scn, nullptr);
  if (!Data || Hdr.sh_entsize == 0)
    return elfError("cannot read the symbol table");
  size_t Count = Data->d_size / Hdr.sh_entsize;
  Out.Symbols.resize(Count);
  for (size_t I = 0; I < Count; ++I) {
    GElf_Sym Sym;
    if (!gelf_getsym(Data, int(I), &Sym))
      return elfError("cannot read symbol " + std::to_string(I));
    ElfSymbol &S = Out.Symbols[I];
    const char *Name = elf_strptr(E, Hdr.sh_link, Sym.st_name);
    S.Name = Name ? Name : "";
    S.Value = Sym.st_value;
    S.Size = Sym.st_size;
    S.SectionIndex = Sym.st_shndx;
    S.Type = GELF_ST_TYPE(Sym.st_info);
    S.Bind = GELF_ST_BIND(Sym.st_info);
    if (S.SectionIndex >= NumSections && S.SectionIndex < SHN_LORESERVE)
      return Error("symbol '" + S.Name + "' refers to section " +
                   std::to_string(S.SectionIndex) + " that does not exist");
  }
  return std::nullopt;
}

MaybeError readRelocs(Elf_Scn *Scn, const GElf_Shdr &Hdr, ElfFile &Out) {
  Elf_Data *Data = elf_getdata(Scn, nullptr);
  if (!Data || Hdr.sh_entsize == 0)
    return elfError("cannot read relocations");
  std::vector<ElfReloc> &Relocs = Out.Relocs[Hdr.sh_info];
  size_t Count = Data->d_size / Hdr.sh_entsize;
  for (size_t I = 0; I < Count; ++I) {
    GElf_Rel Rel;
    if (!gelf_getrel(Data, int(I), &Rel))
      return elfError("cannot read relocation " + std::to_string(I));
    Relocs.push_back({Rel.r_offset, uint32_t(GELF_R_TYPE(Rel.r_info)),
                      uint32_t(GELF_R_SYM(Rel.r_info))});
  }
  return std::nullopt;
}

} // namespace

Expected<ElfFile> readElf(const uint8_t *Bytes, size_t Size) {
  if (elf_version(EV_CURRENT) == EV_NONE)
    return Error("libelf is too old");
  if (Size < 4 || Bytes[0] != 0x7f || Bytes[1] != 'E' || Bytes[2] != 'L' ||
      Bytes[3] != 'F')
    return Error("not an ELF file");
  // libelf wants a mutable buffer; it does not write to it for ELF_C_READ.
  std::unique_ptr<Elf, ElfCloser> E(
      elf_memory(const_cast<char *>(reinterpret_cast<const char *>(Bytes)), Size));
  if (!E || elf_kind(E.get()) != ELF_K_ELF)
    return elfError("not a valid ELF file");
  GElf_Ehdr Ehdr;
  if (!gelf_getehdr(E.get(), &Ehdr))
    return elfError("cannot read the ELF header");
  if (Ehdr.e_ident[EI_CLASS] != ELFCLASS64)
    return Error("not a 64-bit ELF file");
  if (Ehdr.e_ident[EI_DATA] != ELFDATA2LSB)
    return Error("big-endian eBPF objects are not supported");
  if (Ehdr.e_machine != EM_BPF)
    return Error("not an eBPF object (ELF machine " +
                 std::to_string(Ehdr.e_machine) + ", expected " +
                 std::to_string(EM_BPF) + ")");
  if (Ehdr.e_type != ET_REL)
    return Error("not a relocatable object (compile with -c)");

  size_t NumSections = 0, StrIndex = 0;
  if (elf_getshdrnum(E.get(), &NumSections) != 0 ||
      elf_getshdrstrndx(E.get(), &StrIndex) != 0)
    return elfError("cannot read the section headers");
  // libelf reports no sections, rather than an error, when the section
  // header table is cut off; check the header's own numbers.
  uint64_t HeaderCount = std::max<uint64_t>({Ehdr.e_shnum, NumSections, 1});
  if (Ehdr.e_shoff == 0 || Ehdr.e_shoff > Size || Ehdr.e_shentsize != sizeof(Elf64_Shdr) ||
      HeaderCount > (Size - Ehdr.e_shoff) / sizeof(Elf64_Shdr))
    return Error("truncated ELF file (section headers end past the end of the file)");

  ElfFile Out;
  Out.Sections.resize(NumSections);
  for (Elf_Scn *Scn = elf_nextscn(E.get(), nullptr); Scn;
       Scn = elf_nextscn(E.get(), Scn)) {
    GElf_Shdr Hdr;
    if (!gelf_getshdr(Scn, &Hdr))
      return elfError("cannot read a section header");
    size_t Index = elf_ndxscn(Scn);
    if (Index >= NumSections)
      return Error("section index out of range");
    ElfSection &S = Out.Sections[Index];
    S.Index = Index;
    const char *Name = elf_strptr(E.get(), StrIndex, Hdr.sh_name);
    if (!Name)
      return elfError("cannot read the name of section " + std::to_string(Index));
    S.Name = Name;
    S.Type = Hdr.sh_type;
    S.Flags = Hdr.sh_flags;
    S.Size = Hdr.sh_size;
    if (Hdr.sh_type != SHT_NOBITS && Hdr.sh_size > 0) {
      if (Hdr.sh_offset > Size || Hdr.sh_size > Size - Hdr.sh_offset)
        return Error("section " + S.Name + " extends past the end of the file");
      Elf_Data *Data = elf_rawdata(Scn, nullptr);
      if (!Data || !Data->d_buf || Data->d_size != Hdr.sh_size)
        return elfError("cannot read section " + S.Name);
      const uint8_t *P = static_cast<const uint8_t *>(Data->d_buf);
      S.Bytes.assign(P, P + Data->d_size);
    }
    if (Hdr.sh_type == SHT_SYMTAB) {
      if (MaybeError Err = readSymbols(E.get(), Scn, Hdr, NumSections, Out))
        return std::move(*Err).withContext("section " + S.Name);
    } else if (Hdr.sh_type == SHT_REL) {
      if (Hdr.sh_info >= NumSections)
        return Error("section " + S.Name + " relocates a section that does not exist");
      if (MaybeError Err = readRelocs(Scn, Hdr, Out))
        return std::move(*Err).withContext("section " + S.Name);
    }
  }
  for (auto &[Sec, Relocs] : Out.Relocs)
    std::sort(Relocs.begin(), Relocs.end(),
              [](const ElfReloc &A, const ElfReloc &B) { return A.Offset < B.Offset; });
  return Out;
}

} // namespace ebpfgpu::object

// SPDX-License-Identifier: Apache-2.0
//
// Reading and writing `.gpu.o` files: a minimal ELF64 container written and
// parsed by hand (no libelf, so the loader runs on bare machines), every
// offset bounds-checked.

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Support/OutputPath.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include "GpuObjectMeta.h"
#include "Sha256.h"

#include <elf.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <unistd.h>

namespace ebpfgpu::abi {

namespace {

constexpr const char *MetaSection = ".ebpfgpu.meta";
constexpr const char *PtxSection = ".ebpfgpu.ptx";

} // namespace

/// The seal: SHA-256 over the metadata (without its seal line), the PTX and
/// the BTF, so a change to any byte after compilation (an edited kernel, a
/// "verified no" turned into "yes") is detected when the object is read.
std::string sealOf(const std::string &Meta, const std::string &Ptx, const std::vector<uint8_t> &Btf) {
  std::string All = Meta + '\0' + Ptx + '\0';
  All.append(Btf.begin(), Btf.end());
  return sha256Hex(reinterpret_cast<const uint8_t *>(All.data()), All.size());
}

std::vector<uint8_t> writeGpuObject(const GpuObjectSpec &S) {
  return gpuObjectImage(metaText(S), S.Ptx, S.Btf);
}

std::vector<uint8_t> gpuObjectImage(const std::string &Metadata, const std::string &Ptx,
                                    const std::vector<uint8_t> &Btf) {
  struct Sec {
    std::string Name;
    std::string Bytes;
  };
  std::string Meta = Metadata + "seal " + sealOf(Metadata, Ptx, Btf) + "\n";
  std::vector<Sec> Secs = {{MetaSection, Meta}, {PtxSection, Ptx}};
  if (!Btf.empty())
    Secs.push_back({".BTF", std::string(Btf.begin(), Btf.end())});
  std::string ShStr(1, '\0');
  std::vector<uint32_t> NameOff;
  for (const Sec &X : Secs) {
    NameOff.push_back(uint32_t(ShStr.size()));
    ShStr += X.Name + '\0';
  }
  uint32_t ShStrName = uint32_t(ShStr.size());
  ShStr += ".shstrtab";
  ShStr += '\0';

  std::vector<uint8_t> Out(sizeof(Elf64_Ehdr));
  auto Append = [&](const std::string &B) {
    while (Out.size() % 8)
      Out.push_back(0);
    size_t Off = Out.size();
    Out.insert(Out.end(), B.begin(), B.end());
    return Off;
  };
  std::vector<Elf64_Shdr> Shdrs(1 + Secs.size() + 1);
  std::memset(Shdrs.data(), 0, Shdrs.size() * sizeof(Elf64_Shdr));
  for (size_t I = 0; I < Secs.size(); ++I) {
    Elf64_Shdr &H = Shdrs[1 + I];
    H.sh_name = NameOff[I];
    H.sh_type = SHT_PROGBITS;
    H.sh_offset = Append(Secs[I].Bytes);
    H.sh_size = Secs[I].Bytes.size();
    H.sh_addralign = 1;
  }
  Elf64_Shdr &StrH = Shdrs.back();
  StrH.sh_name = ShStrName;
  StrH.sh_type = SHT_STRTAB;
  StrH.sh_offset = Append(ShStr);
  StrH.sh_size = ShStr.size();
  StrH.sh_addralign = 1;
  size_t ShOff = Append(std::string());
  const uint8_t *P = reinterpret_cast<const uint8_t *>(Shdrs.data());
  Out.insert(Out.end(), P, P + Shdrs.size() * sizeof(Elf64_Shdr));

  Elf64_Ehdr E;
  std::memset(&E, 0, sizeof(E));
  std::memcpy(E.e_ident, ELFMAG, SELFMAG);
  E.e_ident[EI_CLASS] = ELFCLASS64;
  E.e_ident[EI_DATA] = ELFDATA2LSB;
  E.e_ident[EI_VERSION] = EV_CURRENT;
  E.e_type = ET_REL;
  E.e_machine = EM_NONE;
  E.e_version = EV_CURRENT;
  E.e_shoff = ShOff;
  E.e_ehsize = sizeof(Elf64_Ehdr);
  E.e_shentsize = sizeof(Elf64_Shdr);
  E.e_shnum = uint16_t(Shdrs.size());
  E.e_shstrndx = uint16_t(Shdrs.size() - 1);
  std::memcpy(Out.data(), &E, sizeof(E));
  return Out;
}

bool isGpuObjectMemory(const uint8_t *Data, size_t Size) {
  Elf64_Ehdr E;
  if (Size < sizeof(E) || std::memcmp(Data, ELFMAG, SELFMAG) != 0)
    return false;
  std::memcpy(&E, Data, sizeof(E));
  if (E.e_ident[EI_CLASS] != ELFCLASS64 || E.e_machine != EM_NONE ||
      E.e_shentsize != sizeof(Elf64_Shdr) || E.e_shoff > Size ||
      E.e_shnum > (Size - E.e_shoff) / sizeof(Elf64_Shdr) || E.e_shstrndx >= E.e_shnum)
    return false;
  Elf64_Shdr Str;
  std::memcpy(&Str, Data + E.e_shoff + size_t(E.e_shstrndx) * sizeof(Elf64_Shdr), sizeof(Str));
  if (Str.sh_offset > Size || Str.sh_size > Size - Str.sh_offset)
    return false;
  std::string Names(reinterpret_cast<const char *>(Data + Str.sh_offset), Str.sh_size);
  return Names.find(std::string(MetaSection) + '\0') != std::string::npos;
}

bool isGpuObjectFile(const std::string &Path) {
  auto Bytes = readFileBytes(Path);
  return Bytes && isGpuObjectMemory(Bytes->data(), Bytes->size());
}

Expected<GpuObjectSpec> readGpuObjectMemory(const uint8_t *Data, size_t Size,
                                            const std::string &Name) {
  auto Fail = [&](const std::string &Why) { return Error(Name + ": " + Why); };
  Elf64_Ehdr E;
  if (Size < sizeof(E) || std::memcmp(Data, ELFMAG, SELFMAG) != 0)
    return Fail("not an ELF file");
  std::memcpy(&E, Data, sizeof(E));
  if (E.e_ident[EI_CLASS] != ELFCLASS64 || E.e_ident[EI_DATA] != ELFDATA2LSB)
    return Fail("not a 64-bit little-endian ELF file");
  if (E.e_shentsize != sizeof(Elf64_Shdr) || E.e_shoff > Size ||
      E.e_shnum > (Size - E.e_shoff) / sizeof(Elf64_Shdr) || E.e_shstrndx >= E.e_shnum)
    return Fail("truncated or malformed section headers");
  std::vector<Elf64_Shdr> Sh(E.e_shnum);
  std::memcpy(Sh.data(), Data + E.e_shoff, E.e_shnum * sizeof(Elf64_Shdr));
  auto Contents = [&](const Elf64_Shdr &H, std::string &Out) {
    if (H.sh_offset > Size || H.sh_size > Size - H.sh_offset)
      return false;
    Out.assign(reinterpret_cast<const char *>(Data + H.sh_offset), H.sh_size);
    return true;
  };
  std::string ShStr;
  if (!Contents(Sh[E.e_shstrndx], ShStr))
    return Fail("section names out of bounds");
  GpuObjectSpec S;
  bool HaveMeta = false, HavePtx = false;
  std::string MetaBytes;
  for (const Elf64_Shdr &H : Sh) {
    if (H.sh_type != SHT_PROGBITS)
      continue;
    if (H.sh_name >= ShStr.size())
      return Fail("section name out of bounds");
    std::string SecName = ShStr.c_str() + H.sh_name, Bytes;
    if (!Contents(H, Bytes))
      return Fail("section " + SecName + " extends past the end of the file");
    if (SecName == MetaSection) {
      if (MaybeError Err = parseMeta(Bytes, S))
        return std::move(*Err).withContext(Name);
      MetaBytes = Bytes;
      HaveMeta = true;
    } else if (SecName == PtxSection) {
      S.Ptx = std::move(Bytes);
      HavePtx = true;
    } else if (SecName == ".BTF") {
      S.Btf.assign(Bytes.begin(), Bytes.end());
    }
  }
  if (!HaveMeta)
    return Fail("not an ebpf-gpu object (no " + std::string(MetaSection) +
                " section; compile it with ebpf-gpu-cc)");
  if (!HavePtx || S.Ptx.empty())
    return Fail("no PTX in the object");
  size_t SealAt = MetaBytes.rfind("seal ");
  if (SealAt == std::string::npos || (SealAt != 0 && MetaBytes[SealAt - 1] != '\n'))
    return Fail("no seal (not written by ebpf-gpu-cc)");
  std::string Seal = MetaBytes.substr(SealAt + 5, 64);
  if (Seal != sealOf(MetaBytes.substr(0, SealAt), S.Ptx, S.Btf))
    return Fail("the seal does not match the contents: the object was changed after compilation");
  return S;
}

Expected<GpuObjectSpec> readGpuObjectFile(const std::string &Path) {
  auto Bytes = readFileBytes(Path);
  if (!Bytes)
    return Bytes.takeError();
  return readGpuObjectMemory(Bytes->data(), Bytes->size(), Path);
}

MaybeError writeFileAtomically(const std::string &Path, const std::vector<uint8_t> &Bytes) {
  std::string Tmp = stagingPath(Path, ".tmp." + std::to_string(getpid()));
  bool Staged = Tmp != Path;
  {
    std::ofstream Out(Tmp, std::ios::binary);
    Out.write(reinterpret_cast<const char *>(Bytes.data()), std::streamsize(Bytes.size()));
    if (!Out) {
      if (Staged)
        std::remove(Tmp.c_str());
      return Error(Path + ": cannot write: " + std::strerror(errno));
    }
  }
  if (Staged && std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    std::remove(Tmp.c_str());
    return Error(Path + ": cannot write: " + std::strerror(errno));
  }
  return std::nullopt;
}

} // namespace ebpfgpu::abi

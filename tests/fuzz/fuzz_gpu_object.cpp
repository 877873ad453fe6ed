// SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target: the `.gpu.o` reader (abi/GpuObject.h), which the
// loader and the daemon run on files compiled elsewhere, with no LLVM. The
// first byte picks the shape of the rest: even, a whole file as it comes
// (ELF headers, section table); odd, the three parts (metadata text, PTX,
// BTF, each but the last after a 4-byte length) that this target seals and
// wraps in an ELF file itself, so mutations reach the metadata parser's
// checks past the seal. An accepted object must write back
// (writeGpuObject) to an image that reads again to the same image; its BTF
// goes through the BTF reader as the daemon's `prog load` takes it.

#include "../../abi/lib/Sha256.h"

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Loader/BtfFormat.h"

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace ebpfgpu;

namespace {

bool takePart(const uint8_t *&P, size_t &N, std::string &Out) {
  uint32_t Len;
  if (N < 4)
    return false;
  std::memcpy(&Len, P, 4);
  P += 4;
  N -= 4;
  if (Len > N)
    return false;
  Out.assign(reinterpret_cast<const char *>(P), Len);
  P += Len;
  N -= Len;
  return true;
}

/// An ELF file with the sections `.ebpfgpu.meta` (Meta and its seal),
/// `.ebpfgpu.ptx` and `.BTF`.
std::vector<uint8_t> wrap(std::string Meta, const std::string &Ptx, const std::string &Btf) {
  std::string All = Meta + '\0' + Ptx + '\0' + Btf;
  Meta +=
      "seal " + abi::sha256Hex(reinterpret_cast<const uint8_t *>(All.data()), All.size()) + "\n";
  const std::string Names[] = {".ebpfgpu.meta", ".ebpfgpu.ptx", ".BTF"};
  const std::string *Bytes[] = {&Meta, &Ptx, &Btf};
  std::string ShStr(1, '\0');
  std::vector<uint8_t> Out(sizeof(Elf64_Ehdr));
  Elf64_Shdr Sh[5] = {};
  for (int I = 0; I < 3; ++I) {
    Sh[1 + I].sh_name = uint32_t(ShStr.size());
    ShStr += Names[I] + '\0';
    Sh[1 + I].sh_type = SHT_PROGBITS;
    Sh[1 + I].sh_offset = Out.size();
    Sh[1 + I].sh_size = Bytes[I]->size();
    Out.insert(Out.end(), Bytes[I]->begin(), Bytes[I]->end());
  }
  Sh[4].sh_name = uint32_t(ShStr.size());
  ShStr += std::string(".shstrtab") + '\0';
  Sh[4].sh_type = SHT_STRTAB;
  Sh[4].sh_offset = Out.size();
  Sh[4].sh_size = ShStr.size();
  Out.insert(Out.end(), ShStr.begin(), ShStr.end());
  Elf64_Ehdr E = {};
  std::memcpy(E.e_ident, ELFMAG, SELFMAG);
  E.e_ident[EI_CLASS] = ELFCLASS64;
  E.e_ident[EI_DATA] = ELFDATA2LSB;
  E.e_ident[EI_VERSION] = EV_CURRENT;
  E.e_type = ET_REL;
  E.e_version = EV_CURRENT;
  E.e_shoff = Out.size();
  E.e_ehsize = sizeof(Elf64_Ehdr);
  E.e_shentsize = sizeof(Elf64_Shdr);
  E.e_shnum = 5;
  E.e_shstrndx = 4;
  const auto *S = reinterpret_cast<const uint8_t *>(Sh);
  Out.insert(Out.end(), S, S + sizeof(Sh));
  std::memcpy(Out.data(), &E, sizeof(E));
  return Out;
}

void readObject(const uint8_t *Data, size_t Size) {
  (void)abi::isGpuObjectMemory(Data, Size);
  auto Spec = abi::readGpuObjectMemory(Data, Size, "fuzz.gpu.o");
  if (!Spec)
    return;
  std::vector<uint8_t> Image = abi::writeGpuObject(*Spec);
  auto Again = abi::readGpuObjectMemory(Image.data(), Image.size(), "rewritten.gpu.o");
  if (!Again) {
    std::fprintf(stderr, "a written .gpu.o does not read back: %s\n",
                 Again.error().message().c_str());
    std::abort();
  }
  if (abi::writeGpuObject(*Again) != Image) {
    std::fprintf(stderr, "a .gpu.o changed across write and read\n");
    std::abort();
  }
  if (!Spec->Btf.empty())
    if (auto T = loader::BtfTypes::read(Spec->Btf))
      for (const platform::MapSpec &M : Spec->Maps)
        (void)T->mapTypes(M.Name);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 1)
    return 0;
  const uint8_t *P = Data + 1;
  size_t N = Size - 1;
  if (!(Data[0] & 1)) {
    std::vector<uint8_t> Copy(P, P + N); // exact bounds for ASan
    readObject(Copy.data(), Copy.size());
    return 0;
  }
  std::string Meta, Ptx;
  if (!takePart(P, N, Meta) || !takePart(P, N, Ptx))
    return 0;
  std::vector<uint8_t> Image = wrap(Meta, Ptx, std::string(reinterpret_cast<const char *>(P), N));
  readObject(Image.data(), Image.size());
  return 0;
}

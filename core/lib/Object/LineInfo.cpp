// SPDX-License-Identifier: Apache-2.0
//
// Source line records from `.BTF.ext`, so diagnostics can name the C file,
// line and source text of an instruction. The format is the kernel's: a
// header, then per code section a list of (instruction byte offset, file,
// line text, line << 10 | column) records whose strings live in `.BTF`.

#include "ElfFile.h"

#include <cstring>

namespace ebpfgpu::object {

namespace {

constexpr uint16_t BtfMagic = 0xeB9F;

class Reader {
public:
  Reader(const std::vector<uint8_t> &Bytes) : Bytes(Bytes) {}
  bool u32(size_t Off, uint32_t &V) const {
    if (Off > Bytes.size() || Bytes.size() - Off < 4)
      return false;
    std::memcpy(&V, Bytes.data() + Off, 4);
    return true;
  }
  bool u16(size_t Off, uint16_t &V) const {
    if (Off > Bytes.size() || Bytes.size() - Off < 2)
      return false;
    std::memcpy(&V, Bytes.data() + Off, 2);
    return true;
  }

private:
  const std::vector<uint8_t> &Bytes;
};

/// The string table of `.BTF`.
struct Strings {
  const std::vector<uint8_t> *Bytes = nullptr;
  size_t Begin = 0, End = 0;
  std::string at(uint32_t Off) const {
    size_t P = Begin + Off;
    if (!Bytes || Off >= End - Begin)
      return "";
    size_t Q = P;
    while (Q < End && (*Bytes)[Q] != 0)
      ++Q;
    return std::string(Bytes->begin() + P, Bytes->begin() + Q);
  }
};

Expected<Strings> btfStrings(const ElfSection &Btf) {
  Reader R(Btf.Bytes);
  uint16_t Magic;
  uint32_t HdrLen, StrOff, StrLen;
  if (!R.u16(0, Magic) || Magic != BtfMagic || !R.u32(4, HdrLen) ||
      !R.u32(16, StrOff) || !R.u32(20, StrLen))
    return Error("section .BTF: bad header");
  size_t Begin = size_t(HdrLen) + StrOff;
  if (Begin > Btf.Bytes.size() || Btf.Bytes.size() - Begin < StrLen)
    return Error("section .BTF: string table out of bounds");
  return Strings{&Btf.Bytes, Begin, Begin + StrLen};
}

} // namespace

Expected<LineTable> readLineInfo(const ElfFile &Elf) {
  LineTable Table;
  const ElfSection *Ext = Elf.findSection(".BTF.ext");
  const ElfSection *Btf = Elf.findSection(".BTF");
  if (!Ext || !Btf)
    return Table;
  Expected<Strings> Str = btfStrings(*Btf);
  if (!Str)
    return Str.takeError();
  Reader R(Ext->Bytes);
  uint16_t Magic;
  uint32_t HdrLen, LineOff, LineLen;
  if (!R.u16(0, Magic) || Magic != BtfMagic || !R.u32(4, HdrLen) ||
      !R.u32(16, LineOff) || !R.u32(20, LineLen))
    return Error("section .BTF.ext: bad header");
  if (LineLen == 0)
    return Table;
  size_t P = size_t(HdrLen) + LineOff;
  size_t End = P + LineLen;
  uint32_t RecSize;
  if (End > Ext->Bytes.size() || !R.u32(P, RecSize) || RecSize < 16)
    return Error("section .BTF.ext: line info out of bounds");
  P += 4;
  while (P < End) {
    uint32_t SecNameOff, Count;
    if (!R.u32(P, SecNameOff) || !R.u32(P + 4, Count))
      return Error("section .BTF.ext: truncated line info");
    P += 8;
    if (uint64_t(Count) * RecSize > End - P)
      return Error("section .BTF.ext: line info out of bounds");
    auto &Lines = Table[Str->at(SecNameOff)];
    for (uint32_t I = 0; I < Count; ++I, P += RecSize) {
      uint32_t InsnOff = 0, FileOff = 0, TextOff = 0, LineCol = 0;
      R.u32(P, InsnOff);
      R.u32(P + 4, FileOff);
      R.u32(P + 8, TextOff);
      R.u32(P + 12, LineCol);
      SourceLine L;
      L.File = Str->at(FileOff);
      L.Text = Str->at(TextOff);
      L.Line = LineCol >> 10;
      L.Column = LineCol & 0x3ff;
      Lines[InsnOff / isa::InsnSize] = std::move(L);
    }
  }
  return Table;
}

} // namespace ebpfgpu::object

// SPDX-License-Identifier: Apache-2.0
//
// BTF reading and value formatting (the format as the kernel documents it
// in Documentation/bpf/btf.rst: a header, type records with kind-specific
// trailers, a string table).

#include "ebpf-gpu/Loader/BtfFormat.h"

#include "BtfKinds.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace ebpfgpu::loader {

namespace {


/// Bytes of the kind-specific data after a type record.
size_t trailerBytes(uint32_t Kind, uint32_t Vlen) {
  switch (Kind) {
  case KindInt:
    return 4;
  case KindArray:
    return 12;
  case KindStruct:
  case KindUnion:
    return size_t(Vlen) * 12;
  case KindEnum:
    return size_t(Vlen) * 8;
  case KindFuncProto:
    return size_t(Vlen) * 8;
  case KindVar:
    return 4;
  case KindDatasec:
    return size_t(Vlen) * 12;
  case KindDeclTag:
    return 4;
  case KindEnum64:
    return size_t(Vlen) * 12;
  default:
    return 0;
  }
}

uint64_t loadLe(const uint8_t *P, size_t N) {
  uint64_t V = 0;
  if (N)
    std::memcpy(&V, P, N < 8 ? N : 8);
  return V;
}

void appendHex(std::string &Out, const uint8_t *P, size_t N) {
  Out += "\"0x";
  char Buf[4];
  for (size_t I = N; I-- > 0;) { // little-endian: most significant byte last
    std::snprintf(Buf, sizeof(Buf), "%02x", P[I]);
    Out += Buf;
  }
  Out += "\"";
}

/// `S` as a JSON string. Names come from the object's BTF, which nothing
/// checks: control characters and bytes past ASCII (C identifiers have
/// none) are written as \u escapes, so the text stays JSON whatever they
/// hold.
std::string quoted(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    unsigned char U = static_cast<unsigned char>(C);
    if (U < 0x20 || U >= 0x7f) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\u%04x", U);
      Out += Buf;
      continue;
    }
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

} // namespace

uint32_t BtfTypes::word(size_t Off) const {
  uint32_t V;
  std::memcpy(&V, Data.data() + Off, 4);
  return V;
}

std::string BtfTypes::str(uint32_t Off) const {
  size_t At = StrBegin + Off;
  if (At >= StrEnd)
    return "";
  size_t End = At;
  while (End < StrEnd && Data[End])
    ++End;
  return std::string(reinterpret_cast<const char *>(Data.data()) + At, End - At);
}

Expected<BtfTypes> BtfTypes::read(const std::vector<uint8_t> &Btf) {
  BtfTypes B;
  B.Data = Btf;
  auto Fail = [](const std::string &Why) { return Error("BTF: " + Why); };
  if (Btf.size() < 24)
    return Fail("shorter than its header");
  uint16_t M;
  std::memcpy(&M, Btf.data(), 2);
  if (M != Magic)
    return Fail("bad magic (not little-endian BTF)");
  uint32_t HdrLen = B.word(4), TypeOff = B.word(8), TypeLen = B.word(12), StrOff = B.word(16),
           StrLen = B.word(20);
  uint64_t TypesAt = uint64_t(HdrLen) + TypeOff, StrAt = uint64_t(HdrLen) + StrOff;
  if (HdrLen < 24 || TypesAt + TypeLen > Btf.size() || StrAt + StrLen > Btf.size())
    return Fail("sections past the end of the data");
  B.StrBegin = size_t(StrAt);
  B.StrEnd = size_t(StrAt + StrLen);
  B.Types.push_back(Type()); // void
  size_t Pos = size_t(TypesAt), End = size_t(TypesAt + TypeLen);
  while (Pos < End) {
    if (End - Pos < 12)
      return Fail("truncated type record at byte " + std::to_string(Pos));
    Type T;
    uint32_t Info = B.word(Pos + 4);
    T.Name = B.str(B.word(Pos));
    T.Vlen = Info & 0xffff;
    T.Kind = (Info >> 24) & 0x1f;
    T.KindFlag = Info >> 31;
    T.SizeOrType = B.word(Pos + 8);
    T.Extra = Pos + 12;
    if (T.Kind == 0 || T.Kind > KindEnum64)
      return Fail("unknown kind " + std::to_string(T.Kind) + " at byte " + std::to_string(Pos));
    size_t Trailer = trailerBytes(T.Kind, T.Vlen);
    if (End - T.Extra < Trailer)
      return Fail("truncated type record at byte " + std::to_string(Pos));
    Pos = T.Extra + Trailer;
    B.Types.push_back(std::move(T));
  }
  return B;
}

uint32_t BtfTypes::resolve(uint32_t Id) const {
  for (unsigned N = 0; N < MaxDepth; ++N) {
    const Type *T = type(Id);
    if (!T)
      return 0;
    if (T->Kind != KindTypedef && T->Kind != KindVolatile && T->Kind != KindConst &&
        T->Kind != KindRestrict && T->Kind != KindTypeTag)
      return Id;
    Id = T->SizeOrType;
  }
  return 0;
}

uint64_t BtfTypes::sizeOf(uint32_t Id) const { return sizeAt(Id, 0); }

uint64_t BtfTypes::sizeAt(uint32_t Id, unsigned Depth) const {
  Id = resolve(Id);
  const Type *T = type(Id);
  // The depth bounds arrays of arrays (and arrays that contain themselves).
  if (!T || Id == 0 || Depth > MaxDepth)
    return 0;
  switch (T->Kind) {
  case KindInt:
  case KindStruct:
  case KindUnion:
  case KindEnum:
  case KindEnum64:
  case KindDatasec:
  case KindFloat:
    return T->SizeOrType;
  case KindPtr:
    return 8;
  case KindArray: {
    uint64_t N = word(T->Extra + 8), ES = sizeAt(word(T->Extra), Depth + 1);
    if (ES && N > UINT64_MAX / ES)
      return 0;
    return N * ES;
  }
  case KindVar:
    return sizeAt(T->SizeOrType, Depth + 1);
  default:
    return 0;
  }
}

std::pair<uint32_t, uint32_t> BtfTypes::mapTypes(const std::string &Map) const {
  for (const Type &Sec : Types) {
    if (Sec.Kind != KindDatasec || Sec.Name != ".maps")
      continue;
    for (uint32_t I = 0; I < Sec.Vlen; ++I) {
      const Type *Var = type(word(Sec.Extra + 12 * I));
      if (!Var || Var->Kind != KindVar || Var->Name != Map)
        continue;
      const Type *Def = type(resolve(Var->SizeOrType));
      if (!Def || Def->Kind != KindStruct)
        return {0, 0};
      uint32_t Key = 0, Value = 0;
      for (uint32_t F = 0; F < Def->Vlen; ++F) {
        std::string Name = str(word(Def->Extra + 12 * F));
        const Type *Ptr = type(resolve(word(Def->Extra + 12 * F + 4)));
        if (!Ptr || Ptr->Kind != KindPtr)
          continue;
        if (Name == "key")
          Key = Ptr->SizeOrType;
        else if (Name == "value")
          Value = Ptr->SizeOrType;
      }
      return {Key, Value};
    }
  }
  return {0, 0};
}

uint32_t BtfTypes::dataSection(const std::string &Name) const {
  for (uint32_t Id = 1; Id < Types.size(); ++Id)
    if (Types[Id].Kind == KindDatasec && Types[Id].Name == Name)
      return Id;
  return 0;
}

std::optional<std::string> BtfTypes::format(uint32_t Id, const uint8_t *Bytes, size_t Size) const {
  // A data section's size is 0 in an object file (the loader that places
  // the section fills it in): its variables are checked against `Size`.
  const Type *T = type(resolve(Id));
  bool UnsizedSection = T && T->Kind == KindDatasec && T->SizeOrType == 0;
  if (Id == 0 || (sizeOf(Id) != Size && !UnsizedSection))
    return std::nullopt;
  std::string Out;
  if (!write(Id, Bytes, Size, Out, 0))
    return std::nullopt;
  return Out;
}

bool BtfTypes::write(uint32_t Id, const uint8_t *Bytes, size_t Size, std::string &Out,
                     unsigned Depth) const {
  Id = resolve(Id);
  const Type *T = type(Id);
  if (!T || Id == 0 || Depth > MaxDepth)
    return false;
  char Buf[32];
  switch (T->Kind) {
  case KindInt: {
    uint32_t Enc = word(T->Extra);
    uint32_t Bits = Enc & 0xff, BitOff = (Enc >> 16) & 0xff;
    bool Signed = (Enc >> 24) & 1, Bool = (Enc >> 24) & 4;
    // Encodings the kernel refuses (bits past the type's size) print as
    // bytes.
    if (T->SizeOrType > 8 || Size < T->SizeOrType || Bits > 64 || BitOff >= 64 ||
        BitOff + Bits > 8 * T->SizeOrType) {
      appendHex(Out, Bytes, Size);
      return true;
    }
    uint64_t V = loadLe(Bytes, T->SizeOrType) >> BitOff;
    if (Bits && Bits < 64)
      V &= (uint64_t(1) << Bits) - 1;
    if (Bool) {
      Out += V ? "true" : "false";
    } else if (Signed && Bits && Bits < 64 && (V >> (Bits - 1)) & 1) {
      std::snprintf(Buf, sizeof(Buf), "%" PRId64, int64_t(V | ~((uint64_t(1) << Bits) - 1)));
      Out += Buf;
    } else if (Signed) {
      std::snprintf(Buf, sizeof(Buf), "%" PRId64, int64_t(V));
      Out += Buf;
    } else {
      std::snprintf(Buf, sizeof(Buf), "%" PRIu64, V);
      Out += Buf;
    }
    return true;
  }
  case KindPtr:
    if (Size < 8) {
      appendHex(Out, Bytes, Size);
      return true;
    }
    std::snprintf(Buf, sizeof(Buf), "%" PRIu64, loadLe(Bytes, 8));
    Out += Buf;
    return true;
  case KindEnum:
  case KindEnum64: {
    if (T->SizeOrType > 8 || Size < T->SizeOrType) {
      appendHex(Out, Bytes, Size);
      return true;
    }
    uint64_t V = loadLe(Bytes, T->SizeOrType);
    size_t Stride = T->Kind == KindEnum ? 8 : 12;
    for (uint32_t I = 0; I < T->Vlen; ++I) {
      size_t E = T->Extra + Stride * I;
      uint64_t Val = word(E + 4);
      if (T->Kind == KindEnum64)
        Val |= uint64_t(word(E + 8)) << 32;
      uint64_t Mask = T->SizeOrType >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * T->SizeOrType)) - 1;
      if ((Val & Mask) == (V & Mask)) {
        Out += quoted(str(word(E)));
        return true;
      }
    }
    std::snprintf(Buf, sizeof(Buf), "%" PRIu64, V);
    Out += Buf;
    return true;
  }
  case KindFloat:
    appendHex(Out, Bytes, std::min<size_t>(T->SizeOrType, Size));
    return true;
  case KindArray: {
    uint32_t Elem = word(T->Extra), N = word(T->Extra + 8);
    uint64_t ES = sizeAt(Elem, Depth + 1);
    if ((ES == 0 && N != 0) || (ES && N > Size / ES))
      return false;
    Out += "[";
    for (uint32_t I = 0; I < N; ++I) {
      Out += I ? "," : "";
      if (!write(Elem, Bytes + I * ES, ES, Out, Depth + 1))
        return false;
    }
    Out += "]";
    return true;
  }
  case KindStruct:
  case KindUnion: {
    Out += "{";
    bool First = true;
    for (uint32_t I = 0; I < T->Vlen; ++I) {
      size_t M = T->Extra + 12 * I;
      std::string Name = str(word(M));
      uint32_t MType = word(M + 4), Off = word(M + 8);
      uint32_t BitSize = T->KindFlag ? Off >> 24 : 0;
      uint32_t BitOff = T->KindFlag ? Off & 0xffffff : Off;
      Out += First ? "" : ",";
      First = false;
      Out += quoted(Name.empty() ? "(anon)" : Name) + ":";
      if (BitSize || BitOff % 8) {
        // A bitfield: the bits from its bit offset, as an unsigned number.
        uint64_t Width = BitSize ? BitSize : 8 * sizeAt(MType, Depth + 1);
        // 64-bit sums: a 32-bit offset near its top must not wrap.
        if (Width == 0 || Width > 64 || (uint64_t(BitOff) + Width + 7) / 8 > Size)
          return false;
        uint64_t V = 0;
        for (uint32_t B = 0; B < Width; ++B) {
          uint64_t At = uint64_t(BitOff) + B;
          V |= uint64_t((Bytes[At / 8] >> (At % 8)) & 1) << B;
        }
        std::snprintf(Buf, sizeof(Buf), "%" PRIu64, V);
        Out += Buf;
        continue;
      }
      uint64_t MS = sizeAt(MType, Depth + 1);
      if (BitOff / 8 + MS > Size || !write(MType, Bytes + BitOff / 8, MS, Out, Depth + 1))
        return false;
    }
    Out += "}";
    return true;
  }
  case KindDatasec: {
    // Global data: its variables by name.
    Out += "{";
    for (uint32_t I = 0; I < T->Vlen; ++I) {
      size_t V = T->Extra + 12 * I;
      const Type *Var = type(word(V));
      uint32_t Off = word(V + 4), VS = word(V + 8);
      if (!Var || uint64_t(Off) + VS > Size)
        return false;
      Out += (I ? "," : "") + quoted(Var->Name) + ":";
      // A variable that cannot be printed as its type is printed as bytes,
      // not as what was written of it before the writer gave up.
      std::string Value;
      if (write(Var->Kind == KindVar ? Var->SizeOrType : word(V), Bytes + Off, VS, Value,
                Depth + 1))
        Out += Value;
      else
        appendHex(Out, Bytes + Off, VS);
    }
    Out += "}";
    return true;
  }
  default:
    return false;
  }
}

} // namespace ebpfgpu::loader

// SPDX-License-Identifier: Apache-2.0
//
// BTF to C declarations (BtfCWriter.h). Layouts are the x86-64 and BPF
// ABI's (the two agree on every BTF type: sizes, natural alignment up to
// 16 bytes); what BTF cannot say (an aligned() attribute) the size checks
// catch at the consumer's compile.

#include "ebpf-gpu/Loader/BtfCWriter.h"

#include "BtfKinds.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace ebpfgpu::loader {

namespace {

uint64_t alignUp(uint64_t V, uint64_t A) { return A > 1 ? (V + A - 1) / A * A : V; }

std::string spaced(const std::string &Declarator) {
  return Declarator.empty() ? "" : " " + Declarator;
}

/// The names <stdint.h> defines (ebpf-gpu.h includes it): their typedefs
/// are not written again.
bool isStdintName(const std::string &N) {
  static const char *const Names[] = {"int8_t",   "int16_t",  "int32_t",  "int64_t",  "uint8_t",
                                      "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t"};
  return std::find(std::begin(Names), std::end(Names), N) != std::end(Names);
}

/// An integer type of `Size` bytes, for enums whose size C cannot say.
const char *intOfSize(uint32_t Size, bool Signed) {
  switch (Size) {
  case 1:
    return Signed ? "signed char" : "unsigned char";
  case 2:
    return Signed ? "short" : "unsigned short";
  case 4:
    return Signed ? "int" : "unsigned int";
  case 8:
    return Signed ? "long long" : "unsigned long long";
  default:
    return nullptr;
  }
}

std::string identifierOf(const std::string &Text) {
  std::string Out;
  for (char C : Text)
    Out += std::isalnum(static_cast<unsigned char>(C)) ? C : '_';
  return Out;
}

} // namespace

uint32_t BtfCWriter::skipQualifiers(uint32_t Id) const {
  for (unsigned N = 0; N < MaxDepth; ++N) {
    const BtfTypes::Type *X = type(Id);
    if (!X || (X->Kind != KindVolatile && X->Kind != KindConst && X->Kind != KindRestrict &&
               X->Kind != KindTypeTag))
      return Id;
    Id = X->SizeOrType;
  }
  return 0;
}

std::string BtfCWriter::tagName(uint32_t Id) const {
  const BtfTypes::Type *X = type(Id);
  bool Union = X->Kind == KindUnion || (X->Kind == KindFwd && X->KindFlag);
  return (X->Kind == KindEnum || X->Kind == KindEnum64 ? "enum "
          : Union                                      ? "union "
                                                       : "struct ") +
         X->Name;
}

std::optional<BtfCWriter::Layout> BtfCWriter::layout(uint32_t Id, unsigned Depth) const {
  Id = skipQualifiers(Id);
  const BtfTypes::Type *X = type(Id);
  if (!X || Id == 0 || Depth > MaxDepth)
    return std::nullopt;
  switch (X->Kind) {
  case KindTypedef:
    return layout(X->SizeOrType, Depth + 1);
  case KindInt:
  case KindFloat:
  case KindEnum:
  case KindEnum64:
    if (X->SizeOrType == 0 || X->SizeOrType > 16 || (X->SizeOrType & (X->SizeOrType - 1)))
      return std::nullopt;
    return Layout{X->SizeOrType, X->SizeOrType, false};
  case KindPtr:
    return Layout{8, 8, false};
  case KindArray: {
    auto E = layout(T.word(X->Extra), Depth + 1);
    uint64_t N = T.word(X->Extra + 8);
    if (!E || (E->Size && N > UINT32_MAX / E->Size))
      return std::nullopt;
    return Layout{N * E->Size, E->Align, false};
  }
  case KindStruct:
  case KindUnion: {
    Layout L{X->SizeOrType, 1, false};
    for (uint32_t I = 0; I < X->Vlen; ++I) {
      size_t M = X->Extra + 12 * I;
      uint32_t Off = T.word(M + 8);
      uint32_t BitSize = X->KindFlag ? Off >> 24 : 0;
      uint32_t BitOff = X->KindFlag ? Off & 0xffffff : Off;
      auto ML = layout(T.word(M + 4), Depth + 1);
      if (!ML)
        return std::nullopt;
      L.Align = std::max(L.Align, ML->Align);
      if (!BitSize && (BitOff % 8 || (BitOff / 8) % ML->Align))
        L.Packed = true;
    }
    if (L.Size % L.Align)
      L.Packed = true;
    if (L.Packed)
      L.Align = 1;
    return L;
  }
  default:
    return std::nullopt;
  }
}

std::string BtfCWriter::sizeCheck(const std::string &Type, uint64_t Size) {
  return "typedef char ebpf_gpu_size_of_" + identifierOf(Type) + "[sizeof(" + Type +
         ") == " + std::to_string(Size) + " ? 1 : -1];\n";
}

bool BtfCWriter::decl(uint32_t Id, const std::string &Declarator, bool Complete, unsigned Depth,
                      const std::string &Indent, std::string &Out) {
  Id = skipQualifiers(Id);
  const BtfTypes::Type *X = type(Id);
  if (!X || Depth > MaxDepth)
    return false;
  if (Id == 0) {
    Out += "void" + spaced(Declarator);
    return true;
  }
  switch (X->Kind) {
  case KindInt:
  case KindFloat:
    if (X->Name.empty())
      return false;
    Out += (X->Name == "_Bool" ? "bool" : X->Name) + spaced(Declarator);
    return true;
  case KindPtr: {
    uint32_t To = skipQualifiers(X->SizeOrType);
    const BtfTypes::Type *Target = type(To);
    if (!Target)
      return false;
    if (Target->Kind == KindFuncProto) {
      Out += "void *" + Declarator;
      return true;
    }
    return decl(To, Target->Kind == KindArray ? "(*" + Declarator + ")" : "*" + Declarator,
                /*Complete=*/false, Depth + 1, Indent, Out);
  }
  case KindArray:
    return decl(T.word(X->Extra), Declarator + "[" + std::to_string(T.word(X->Extra + 8)) + "]",
                Complete, Depth + 1, Indent, Out);
  case KindStruct:
  case KindUnion: {
    if (!X->Name.empty()) {
      if (!define(Id, Complete, Depth + 1))
        return false;
      Out += tagName(Id) + spaced(Declarator);
      return true;
    }
    auto L = layout(Id, Depth);
    if (!L)
      return false;
    Out += std::string(X->Kind == KindUnion ? "union" : "struct") + " {\n";
    if (!body(Id, Depth + 1, Indent + "  ", Out))
      return false;
    Out += Indent + "}" + (L->Packed ? " __attribute__((packed))" : "") + spaced(Declarator);
    return true;
  }
  case KindEnum:
  case KindEnum64:
    if (X->SizeOrType != 4) {
      const char *Int = intOfSize(X->SizeOrType, X->KindFlag);
      if (!Int)
        return false;
      Out += Int + spaced(Declarator);
      return true;
    }
    if (X->Name.empty()) {
      // An anonymous enum's values matter to nobody reading the data: its
      // type is enough.
      Out += std::string(X->KindFlag ? "int" : "unsigned int") + spaced(Declarator);
      return true;
    }
    if (!define(Id, true, Depth + 1))
      return false;
    Out += tagName(Id) + spaced(Declarator);
    return true;
  case KindTypedef:
    if (X->Name.empty() || (!isStdintName(X->Name) && !define(Id, Complete, Depth + 1)))
      return false;
    Out += X->Name + spaced(Declarator);
    return true;
  case KindFwd:
    if (Complete || X->Name.empty())
      return false;
    if (!Declared.count(Id) && !Defined.count(Id)) {
      Defs += tagName(Id) + ";\n";
      Declared.insert(Id);
    }
    Out += tagName(Id) + spaced(Declarator);
    return true;
  default:
    return false;
  }
}

bool BtfCWriter::body(uint32_t Id, unsigned Depth, const std::string &Indent, std::string &Out) {
  const BtfTypes::Type *X = type(Id);
  auto L = layout(Id, Depth);
  if (!X || !L)
    return false;
  bool Union = X->Kind == KindUnion;
  uint64_t Cursor = 0; // bits
  unsigned Pads = 0;
  auto Pad = [&](uint64_t Bytes) {
    Out += Indent + "char __pad" + std::to_string(Pads++) + "[" + std::to_string(Bytes) + "];\n";
  };
  for (uint32_t I = 0; I < X->Vlen; ++I) {
    size_t M = X->Extra + 12 * I;
    std::string Name = T.str(T.word(M));
    uint32_t MType = T.word(M + 4), Off = T.word(M + 8);
    uint32_t BitSize = X->KindFlag ? Off >> 24 : 0;
    uint32_t BitOff = X->KindFlag ? Off & 0xffffff : Off;
    const BtfTypes::Type *MT = type(skipQualifiers(MType));
    if (Name.empty() && !(MT && (MT->Kind == KindStruct || MT->Kind == KindUnion)))
      return false;
    if (BitSize) {
      Out += Indent;
      if (!decl(MType, Name, true, Depth + 1, Indent, Out))
        return false;
      Out += " : " + std::to_string(BitSize) + ";\n";
      Cursor = std::max<uint64_t>(Cursor, uint64_t(BitOff) + BitSize);
      continue;
    }
    auto ML = layout(MType, Depth + 1);
    uint64_t At = (Cursor + 7) / 8;
    if (!ML || BitOff % 8 || (Union && BitOff))
      return false;
    if (!Union && (L->Packed ? At : alignUp(At, ML->Align)) != BitOff / 8) {
      if (BitOff / 8 < At)
        return false;
      Pad(BitOff / 8 - At);
    }
    Out += Indent;
    if (!decl(MType, Name, true, Depth + 1, Indent, Out))
      return false;
    Out += ";\n";
    Cursor = std::max<uint64_t>(Cursor, (BitOff / 8 + ML->Size) * 8);
  }
  uint64_t At = (Cursor + 7) / 8;
  uint64_t End = L->Packed ? At : alignUp(At, L->Align);
  if (End > L->Size)
    return false;
  if (End < L->Size)
    Pad(Union ? L->Size : L->Size - At);
  return true;
}

bool BtfCWriter::define(uint32_t Id, bool Complete, unsigned Depth) {
  const BtfTypes::Type *X = type(Id);
  if (!X || Depth > MaxDepth)
    return false;
  if (Defined.count(Id))
    return true;
  if (InProgress.count(Id))
    return false; // a type that holds itself by value: not C
  switch (X->Kind) {
  case KindStruct:
  case KindUnion: {
    if (!Complete) {
      if (!Declared.count(Id)) {
        Defs += tagName(Id) + ";\n";
        Declared.insert(Id);
      }
      return true;
    }
    auto L = layout(Id, Depth);
    if (!L)
      return false;
    InProgress.insert(Id);
    std::string Text = tagName(Id) + " {\n";
    bool Ok = body(Id, Depth + 1, "  ", Text);
    InProgress.erase(Id);
    if (!Ok)
      return false;
    Defs += Text + "}" + (L->Packed ? " __attribute__((packed))" : "") + ";\n" +
            sizeCheck(tagName(Id), L->Size);
    Defined.insert(Id);
    return true;
  }
  case KindEnum: {
    std::string Text = tagName(Id) + " {\n";
    for (uint32_t I = 0; I < X->Vlen; ++I) {
      size_t E = X->Extra + 8 * I;
      uint32_t V = T.word(E + 4);
      std::string Value = X->KindFlag               ? std::to_string(int32_t(V))
                          : V > uint32_t(INT32_MAX) ? std::to_string(V) + "u"
                                                    : std::to_string(V);
      Text += "  " + T.str(T.word(E)) + " = " + Value + ",\n";
    }
    Defs += Text + "};\n";
    Defined.insert(Id);
    return true;
  }
  case KindTypedef: {
    // The typedef of a struct needs the struct declared only; a use of the
    // typedef by value needs it defined, after.
    uint32_t To = skipQualifiers(X->SizeOrType);
    const BtfTypes::Type *Target = type(To);
    bool Tagged = Target && (Target->Kind == KindStruct || Target->Kind == KindUnion) &&
                  !Target->Name.empty();
    InProgress.insert(Id);
    std::string Text = "typedef ";
    bool Ok = decl(To, X->Name, Complete && !Tagged, Depth + 1, "", Text);
    InProgress.erase(Id);
    if (!Ok)
      return false;
    Defs += Text + ";\n";
    Defined.insert(Id);
    return !Tagged || !Complete || define(To, true, Depth + 1);
  }
  default:
    return false;
  }
}

std::optional<std::string>
BtfCWriter::dataSectionStruct(uint32_t Section, uint64_t Size, const std::string &Name,
                              const std::vector<std::pair<std::string, uint64_t>> &Offsets) {
  const BtfTypes::Type *Sec = type(Section);
  if (!Sec || Sec->Kind != KindDatasec || Sec->Vlen == 0)
    return std::nullopt;
  struct Var {
    uint32_t Type;
    uint64_t Off, Size;
    std::string Name;
  };
  std::vector<Var> Vars;
  for (uint32_t I = 0; I < Sec->Vlen; ++I) {
    size_t E = Sec->Extra + 12 * I;
    const BtfTypes::Type *V = type(T.word(E));
    if (!V || V->Kind != KindVar || V->Name.empty())
      return std::nullopt;
    uint64_t Off = T.word(E + 4);
    for (const auto &[Var, At] : Offsets)
      if (Var == V->Name)
        Off = At;
    Vars.push_back({V->SizeOrType, Off, T.word(E + 8), V->Name});
  }
  std::stable_sort(Vars.begin(), Vars.end(),
                   [](const Var &A, const Var &B) { return A.Off < B.Off; });
  // Written aside, so that a section given up leaves definitions() as it
  // was.
  std::string SavedDefs = Defs;
  auto SavedDefined = Defined, SavedDeclared = Declared;
  auto GiveUp = [&] {
    Defs = std::move(SavedDefs);
    Defined = std::move(SavedDefined);
    Declared = std::move(SavedDeclared);
    return std::nullopt;
  };
  std::string Text = "struct " + Name + " {\n", Checks;
  uint64_t At = 0, Align = 1;
  unsigned Pads = 0;
  for (const Var &V : Vars) {
    auto L = layout(V.Type, 0);
    if (!L || L->Size != V.Size || V.Off < At || V.Off + V.Size > Size)
      return GiveUp();
    if (alignUp(At, L->Align) != V.Off)
      Text += "  char __pad" + std::to_string(Pads++) + "[" + std::to_string(V.Off - At) + "];\n";
    Text += "  ";
    if (!decl(V.Type, V.Name, true, 0, "  ", Text))
      return GiveUp();
    Text += ";\n";
    Checks += "typedef char ebpf_gpu_offset_of_" + Name + "_" + V.Name + "[offsetof(struct " +
              Name + ", " + V.Name + ") == " + std::to_string(V.Off) + " ? 1 : -1];\n";
    At = V.Off + V.Size;
    Align = std::max(Align, L->Align);
  }
  // The struct may end past the section, at its alignment (a u64 and a
  // u32 make a section of 12 bytes, a struct of 16): the section's memory
  // is whole pages.
  uint64_t Whole = alignUp(Size, Align);
  if (alignUp(At, Align) > Whole)
    return GiveUp();
  if (alignUp(At, Align) < Whole)
    Text += "  char __pad" + std::to_string(Pads++) + "[" + std::to_string(Size - At) + "];\n";
  return Text + "};\n" + sizeCheck("struct " + Name, Whole) + Checks;
}

} // namespace ebpfgpu::loader

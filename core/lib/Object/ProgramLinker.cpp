// SPDX-License-Identifier: Apache-2.0
//
// Turns the code sections of an object into self-contained programs, as a
// loader must before verification: each program's entry function is copied
// out, every sub-program it calls (directly or through a function pointer)
// is appended once, call and jump offsets are rewritten for the new layout,
// and LDDW relocations become map references by index.

#include "ElfFile.h"

#include "ebpf-gpu/ISA/Decoder.h"
#include "ebpf-gpu/Platform/Platform.h"

#include <gelf.h>

#include <algorithm>
#include <cstring>

namespace ebpfgpu::object {

namespace {

constexpr uint32_t RelocBpf64_64 = 1;  // R_BPF_64_64: lddw
constexpr uint32_t RelocBpf64_32 = 10; // R_BPF_64_32: call

class Linker {
public:
  Linker(const ElfFile &Elf, const MapTable &Maps, const LineTable &Lines)
      : Elf(Elf), Maps(Maps), Lines(Lines) {}

  Expected<ProgramSpec> link(const ElfSection &Sec, const std::string &Name,
                             uint32_t Begin, uint32_t End);

private:
  struct Piece {
    size_t Sec = 0;
    uint32_t Begin = 0, End = 0;
    uint32_t Linked = 0;
  };

  uint32_t functionEnd(const ElfSection &Sec, uint32_t Idx) const;
  std::string functionName(const ElfSection &Sec, uint32_t Idx) const;
  Expected<uint32_t> locate(size_t Sec, uint32_t Idx);
  MaybeError processPiece(size_t PieceIndex);
  MaybeError applyReloc(const ElfReloc &R, uint32_t Pc);
  const ElfReloc *relocAt(size_t Sec, uint64_t Offset) const;

  const ElfFile &Elf;
  const MapTable &Maps;
  const LineTable &Lines;
  ProgramSpec Prog;
  std::vector<Piece> Pieces;
};

uint32_t Linker::functionEnd(const ElfSection &Sec, uint32_t Idx) const {
  uint64_t SecEnd = Sec.Size / isa::InsnSize;
  uint64_t End = SecEnd;
  for (const ElfSymbol &S : Elf.Symbols) {
    if (S.SectionIndex != Sec.Index || S.Type != STT_FUNC)
      continue;
    uint64_t Start = S.Value / isa::InsnSize;
    if (Start == Idx && S.Size > 0)
      return uint32_t(std::min(SecEnd, Start + S.Size / isa::InsnSize));
    if (Start > Idx)
      End = std::min(End, Start);
  }
  return uint32_t(End);
}

std::string Linker::functionName(const ElfSection &Sec, uint32_t Idx) const {
  for (const ElfSymbol &S : Elf.Symbols)
    if (S.SectionIndex == Sec.Index && S.Type == STT_FUNC &&
        S.Value == uint64_t(Idx) * isa::InsnSize)
      return S.Name;
  return Sec.Name + "+" + std::to_string(Idx);
}

const ElfReloc *Linker::relocAt(size_t Sec, uint64_t Offset) const {
  auto It = Elf.Relocs.find(Sec);
  if (It == Elf.Relocs.end())
    return nullptr;
  auto R = std::lower_bound(
      It->second.begin(), It->second.end(), Offset,
      [](const ElfReloc &A, uint64_t Off) { return A.Offset < Off; });
  return (R != It->second.end() && R->Offset == Offset) ? &*R : nullptr;
}

Expected<uint32_t> Linker::locate(size_t SecIndex, uint32_t Idx) {
  for (const Piece &P : Pieces)
    if (P.Sec == SecIndex && P.Begin <= Idx && Idx < P.End)
      return P.Linked + (Idx - P.Begin);
  const ElfSection &Sec = Elf.Sections[SecIndex];
  if (!Sec.isExecutable())
    return Error("call into section " + Sec.Name + ", which holds no code");
  if (uint64_t(Idx) * isa::InsnSize >= Sec.Size)
    return Error("call target " + std::to_string(Idx) + " is past the end of section " +
                 Sec.Name);
  uint32_t End = functionEnd(Sec, Idx);
  uint32_t Linked = uint32_t(Prog.Insns.size());
  for (uint32_t K = Idx; K < End; ++K)
    Prog.Insns.push_back(isa::readSlot(Sec.Bytes.data() + size_t(K) * isa::InsnSize));
  Prog.Functions.push_back({functionName(Sec, Idx), Linked});
  Pieces.push_back({SecIndex, Idx, End, Linked});
  return Linked;
}

MaybeError Linker::applyReloc(const ElfReloc &R, uint32_t Pc) {
  if (R.SymbolIndex >= Elf.Symbols.size())
    return Error("relocation refers to symbol " + std::to_string(R.SymbolIndex) +
                 ", which does not exist");
  const ElfSymbol &Sym = Elf.Symbols[R.SymbolIndex];
  isa::Insn &I = Prog.Insns[Pc];
  std::string SymName = Sym.Name.empty() ? "section symbol" : "'" + Sym.Name + "'";
  if (Sym.SectionIndex == SHN_UNDEF && I.isLocalCall() && R.Type == RelocBpf64_32) {
    // A kfunc (extern ... __ksym): clang emits a local call against the
    // undefined symbol; libbpf makes it src BPF_PSEUDO_KFUNC_CALL with the
    // kernel's BTF id, this reader with ebpf-gpu's id of that name.
    const platform::KfuncProto *K = platform::kfuncByName(Sym.Name);
    if (!K)
      return Error("calls kfunc " + SymName + ", which ebpf-gpu does not support");
    I.Src = isa::CallKfunc;
    I.Imm = K->Id;
    return std::nullopt;
  }
  if (Sym.SectionIndex == SHN_UNDEF)
    return Error("refers to extern " + SymName +
                 " (kconfig and ksym variable externs are not supported)");
  if (Sym.SectionIndex >= Elf.Sections.size())
    return Error("relocation against " + SymName + " in a special section");
  const ElfSection &SymSec = Elf.Sections[Sym.SectionIndex];

  if (I.isLddw()) {
    if (R.Type != RelocBpf64_64)
      return Error("lddw has relocation type " + std::to_string(R.Type));
    if (SymSec.isExecutable()) {
      uint64_t Target = (Sym.Value + uint64_t(int64_t(I.Imm))) / isa::InsnSize;
      // locate() may grow Prog.Insns: index again afterwards.
      Expected<uint32_t> L = locate(SymSec.Index, uint32_t(Target));
      if (!L)
        return L.takeError();
      Prog.Insns[Pc].Src = isa::LddwCodeAddr;
      Prog.Insns[Pc].Imm = int32_t(int64_t(*L) - int64_t(Pc) - 1);
      Prog.Insns[Pc + 1].Imm = 0;
      return std::nullopt;
    }
    if (auto It = Maps.BySymbol.find({Sym.SectionIndex, Sym.Value});
        It != Maps.BySymbol.end() && Sym.Type != STT_SECTION) {
      I.Src = isa::LddwMapIdx;
      I.Imm = int32_t(It->second);
      Prog.Insns[Pc + 1].Imm = 0;
      return std::nullopt;
    }
    if (auto It = Maps.ByDataSection.find(Sym.SectionIndex);
        It != Maps.ByDataSection.end()) {
      int64_t Offset = int64_t(I.Imm) + (Sym.Type == STT_SECTION ? 0 : int64_t(Sym.Value));
      const MapSpec &M = Maps.Maps[It->second];
      if (Offset < 0 || Offset >= int64_t(M.ValueSize))
        return Error("reference to " + SymName + " at offset " + std::to_string(Offset) +
                     " is outside section " + SymSec.Name);
      I.Src = isa::LddwMapIdxValue;
      I.Imm = int32_t(It->second);
      Prog.Insns[Pc + 1].Imm = int32_t(Offset);
      return std::nullopt;
    }
    return Error("lddw refers to " + SymName + " in section " + SymSec.Name +
                 ", which holds no map or global data");
  }
  if (I.isLocalCall()) {
    if (R.Type != RelocBpf64_32)
      return Error("call has relocation type " + std::to_string(R.Type));
    if (!SymSec.isExecutable())
      return Error("call to " + SymName + " in section " + SymSec.Name +
                   ", which holds no code");
    int64_t Target = int64_t(Sym.Value / isa::InsnSize) + I.Imm + 1;
    if (Target < 0)
      return Error("call target before the start of section " + SymSec.Name);
    Expected<uint32_t> L = locate(SymSec.Index, uint32_t(Target));
    if (!L)
      return L.takeError();
    Prog.Insns[Pc].Imm = int32_t(int64_t(*L) - int64_t(Pc) - 1);
    return std::nullopt;
  }
  return Error("unexpected relocation against " + SymName);
}

MaybeError Linker::processPiece(size_t PieceIndex) {
  const Piece P = Pieces[PieceIndex];
  const ElfSection &Sec = Elf.Sections[P.Sec];
  auto LinesIt = Lines.find(Sec.Name);
  for (uint32_t Idx = P.Begin; Idx < P.End; ++Idx) {
    uint32_t Pc = P.Linked + (Idx - P.Begin);
    auto Fail = [&](Error E) {
      return std::move(E).withContext("section " + Sec.Name + ": insn " +
                                      std::to_string(Idx));
    };
    if (LinesIt != Lines.end()) {
      if (auto L = LinesIt->second.find(Idx); L != LinesIt->second.end())
        Prog.Lines.push_back({Pc, L->second.File, L->second.Text, L->second.Line,
                              L->second.Column});
    }
    isa::Insn &I = Prog.Insns[Pc];
    bool Lddw = I.isLddw();
    if (Lddw && Idx + 1 >= P.End)
      return Fail(Error("lddw is missing its second half"));
    if (const ElfReloc *R = relocAt(P.Sec, uint64_t(Idx) * isa::InsnSize)) {
      if (MaybeError E = applyReloc(*R, Pc))
        return Fail(std::move(*E));
    } else if (I.isLocalCall() || (Lddw && I.Src == isa::LddwCodeAddr)) {
      int64_t Target = int64_t(Idx) + 1 + I.Imm;
      if (Target < 0)
        return Fail(Error("call target before the start of the section"));
      Expected<uint32_t> L = locate(P.Sec, uint32_t(Target));
      if (!L)
        return Fail(L.takeError());
      Prog.Insns[Pc].Imm = int32_t(int64_t(*L) - int64_t(Pc) - 1);
    } else if (Lddw && I.Src != isa::LddwImm64) {
      return Fail(Error("lddw with source " + std::to_string(I.Src) +
                        " has no relocation to say what it refers to"));
    } else if (I.isConditionalJump() || I.isUnconditionalJump()) {
      int64_t Target = int64_t(Idx) + 1 + I.jumpOffset();
      if (Target < int64_t(P.Begin) || Target >= int64_t(P.End))
        return Fail(Error("jump target " + std::to_string(Target) +
                          " is outside function " + functionName(Sec, P.Begin)));
    }
    if (Lddw)
      ++Idx;
  }
  return std::nullopt;
}

Expected<ProgramSpec> Linker::link(const ElfSection &Sec, const std::string &Name,
                                   uint32_t Begin, uint32_t End) {
  Prog.Name = Name;
  Prog.Section = Sec.Name;
  Pieces.push_back({Sec.Index, Begin, End, 0});
  for (uint32_t K = Begin; K < End; ++K)
    Prog.Insns.push_back(isa::readSlot(Sec.Bytes.data() + size_t(K) * isa::InsnSize));
  Prog.Functions.push_back({Name, 0});
  for (size_t I = 0; I < Pieces.size(); ++I)
    if (MaybeError E = processPiece(I))
      return std::move(*E);
  std::sort(Prog.Lines.begin(), Prog.Lines.end(),
            [](const LineInfo &A, const LineInfo &B) { return A.Pc < B.Pc; });
  if (MaybeError E = isa::checkProgram(Prog.Insns))
    return std::move(*E);
  return std::move(Prog);
}

} // namespace

const char *nonXdpProgramType(const std::string &Section) {
  // A prefix matches the whole name or the part before a '/' (or '.': the
  // sleepable and frags variants), as libbpf's section definitions do.
  static const std::pair<const char *, const char *> Types[] = {
      {"socket", "socket filter"},     {"sk_reuseport", "sk_reuseport"},
      {"kprobe", "kprobe"},            {"kretprobe", "kprobe"},
      {"uprobe", "uprobe"},            {"uretprobe", "uprobe"},
      {"ksyscall", "kprobe"},          {"kretsyscall", "kprobe"},
      {"usdt", "uprobe"},              {"tc", "tc (sched_cls)"},
      {"tcx", "tc (sched_cls)"},       {"netkit", "tc (sched_cls)"},
      {"classifier", "tc (sched_cls)"}, {"action", "tc action (sched_act)"},
      {"tracepoint", "tracepoint"},    {"tp", "tracepoint"},
      {"raw_tracepoint", "raw tracepoint"}, {"raw_tp", "raw tracepoint"},
      {"tp_btf", "tracing (tp_btf)"},  {"fentry", "tracing (fentry)"},
      {"fmod_ret", "tracing (fmod_ret)"}, {"fexit", "tracing (fexit)"},
      {"freplace", "extension (freplace)"}, {"lsm", "lsm"},
      {"lsm_cgroup", "lsm"},           {"iter", "tracing (iter)"},
      {"syscall", "syscall"},          {"lwt_in", "lwt_in"},
      {"lwt_out", "lwt_out"},          {"lwt_xmit", "lwt_xmit"},
      {"lwt_seg6local", "lwt_seg6local"}, {"sockops", "sock_ops"},
      {"sk_skb", "sk_skb"},            {"sk_msg", "sk_msg"},
      {"lirc_mode2", "lirc_mode2"},    {"flow_dissector", "flow_dissector"},
      {"cgroup_skb", "cgroup_skb"},    {"cgroup", "cgroup"},
      {"struct_ops", "struct_ops"},    {"sk_lookup", "sk_lookup"},
      {"netfilter", "netfilter"},      {"perf_event", "perf_event"}};
  for (const auto &[Prefix, Type] : Types) {
    size_t N = std::strlen(Prefix);
    if (Section.compare(0, N, Prefix) == 0 &&
        (Section.size() == N || Section[N] == '/' || Section[N] == '.'))
      return Type;
  }
  return nullptr;
}

Expected<std::vector<ProgramSpec>> linkPrograms(const ElfFile &Elf, const MapTable &Maps,
                                                const LineTable &Lines,
                                                std::vector<UnlinkedProgram> &Unlinked) {
  std::vector<ProgramSpec> Out;
  for (const ElfSection &Sec : Elf.Sections) {
    if (!Sec.isExecutable() || Sec.Name == ".text")
      continue;
    if (Sec.Size % isa::InsnSize != 0)
      return Error("section " + Sec.Name + ": size " + std::to_string(Sec.Size) +
                   " is not a multiple of 8 bytes");
    // Each function symbol in the section is a program; a section without
    // any (hand-written assembly) is one program named after the section.
    std::vector<const ElfSymbol *> Funcs;
    for (const ElfSymbol &S : Elf.Symbols)
      if (S.SectionIndex == Sec.Index && S.Type == STT_FUNC)
        Funcs.push_back(&S);
    std::sort(Funcs.begin(), Funcs.end(),
              [](const ElfSymbol *A, const ElfSymbol *B) { return A->Value < B->Value; });
    std::vector<std::pair<std::string, uint32_t>> Entries;
    if (Funcs.empty())
      Entries.push_back({Sec.Name, 0});
    for (const ElfSymbol *F : Funcs)
      Entries.push_back({F->Name, uint32_t(F->Value / isa::InsnSize)});
    if (const char *Type = nonXdpProgramType(Sec.Name)) {
      // Another program type's context, return codes and helpers: not
      // verified or compiled as XDP (the kernel would not run it as one).
      for (auto &[Name, Begin] : Entries)
        Unlinked.push_back({Name, Sec.Name,
                            "program " + Name + ": section '" + Sec.Name + "' is for " + Type +
                                " programs, not XDP (ebpf-gpu runs XDP programs)",
                            Type});
      continue;
    }
    for (auto &[Name, Begin] : Entries) {
      Linker L(Elf, Maps, Lines);
      uint32_t End = uint32_t(Sec.Size / isa::InsnSize);
      for (const ElfSymbol *F : Funcs) {
        uint32_t Start = uint32_t(F->Value / isa::InsnSize);
        if (Start == Begin && F->Size > 0)
          End = std::min<uint64_t>(End, Start + F->Size / isa::InsnSize);
        else if (Start > Begin)
          End = std::min(End, Start);
      }
      Expected<ProgramSpec> P = L.link(Sec, Name, Begin, End);
      if (!P) {
        Unlinked.push_back({Name, Sec.Name, P.takeError().withContext("program " + Name).message()});
        continue;
      }
      Out.push_back(std::move(*P));
    }
  }
  return Out;
}

} // namespace ebpfgpu::object

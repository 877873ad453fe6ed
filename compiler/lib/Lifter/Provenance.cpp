// SPDX-License-Identifier: Apache-2.0
//
// The lifter's value-provenance analysis (see Provenance.h): a worklist
// fixpoint over each function's blocks, callers before callees.

#include "Provenance.h"

#include "ebpf-gpu/ISA/Semantics.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

namespace ebpfgpu::compiler {

using isa::Insn;

namespace {

AbsValue joinValue(const AbsValue &A, const AbsValue &B) {
  if (A == B)
    return A;
  if (A.isStackDerived() && B.isStackDerived())
    return {AbsValue::StackAny, 0, 0};
  return {};
}

bool isPointerKind(const AbsValue &V) {
  return V.K == AbsValue::Ctx || V.K == AbsValue::Stack || V.K == AbsValue::MapValue ||
         V.K == AbsValue::MapElem;
}

/// Forgets the spilled values that stack bytes [Off, Off + Size) overlap.
void eraseSlots(AbsState &S, int64_t Off, unsigned Size) {
  for (auto It = S.Slots.begin(); It != S.Slots.end();) {
    if (It->first < Off + int64_t(Size) && Off < It->first + 8)
      It = S.Slots.erase(It);
    else
      ++It;
  }
}

/// An ALU or ALU64 instruction `I` applied to `S`.
void transferAlu(AbsState &S, const Insn &I) {
  bool Is64 = I.cls() == isa::ALU64;
  AbsValue &D = S.Regs[I.Dst];
  AbsValue Src = I.usesRegSource() ? S.Regs[I.Src] : AbsValue::constant(I.Imm);
  uint8_t Op = I.op();
  if (Is64 && Op == isa::Mov && I.Off == 0) {
    D = Src;
    return;
  }
  if (Is64 && (Op == isa::Add || Op == isa::Sub) && Src.isConst() && D.K == AbsValue::Packet)
    return;
  if (Is64 && (Op == isa::Add || Op == isa::Sub) && Src.isConst() && isPointerKind(D)) {
    D.Value += Op == isa::Add ? Src.Value : -Src.Value;
    return;
  }
  if (Is64 && Op == isa::Add && D.isConst() && isPointerKind(Src)) {
    int64_t C = D.Value;
    D = Src;
    D.Value += C;
    return;
  }
  if (D.isConst() && (Src.isConst() || Op == isa::Neg) && Op != isa::End) {
    D = AbsValue::constant(
        int64_t(isa::evalAlu(Op, uint64_t(D.Value), uint64_t(Src.Value), Is64, I.Off)));
    return;
  }
  if (Op == isa::Mov && I.Off == 0 && Src.isConst()) { // w-register move
    D = AbsValue::constant(int64_t(uint32_t(Src.Value)));
    return;
  }
  if (Is64 && (D.isStackDerived() || (Op != isa::Mov && Src.isStackDerived())))
    D = {AbsValue::StackAny, 0, 0};
  else if (Is64 && Op == isa::Add &&
           (D.K == AbsValue::Packet) != (Src.K == AbsValue::Packet))
    D = {AbsValue::Packet, 0, 0};
  else if (Is64 && Op == isa::Sub && D.K == AbsValue::Packet && Src.K != AbsValue::Packet)
    D = {AbsValue::Packet, 0, 0};
  else
    D = {};
}

} // namespace

bool AbsState::join(const AbsState &O) {
  bool Changed = false;
  for (unsigned R = 0; R < isa::NumRegs; ++R) {
    AbsValue J = joinValue(Regs[R], O.Regs[R]);
    if (J != Regs[R]) {
      Regs[R] = J;
      Changed = true;
    }
  }
  for (auto It = Slots.begin(); It != Slots.end();) {
    auto OIt = O.Slots.find(It->first);
    AbsValue J = OIt == O.Slots.end() ? AbsValue() : joinValue(It->second, OIt->second);
    if (J.K == AbsValue::Unknown) {
      It = Slots.erase(It);
      Changed = true;
      continue;
    }
    if (J != It->second) {
      It->second = J;
      Changed = true;
    }
    ++It;
  }
  return Changed;
}

std::vector<FunctionRange> splitFunctions(const object::ProgramSpec &Prog) {
  std::set<uint32_t> Starts = {0};
  for (uint32_t Pc = 0; Pc < Prog.Insns.size(); ++Pc) {
    const Insn &I = Prog.Insns[Pc];
    if (I.isLocalCall() || (I.isLddw() && I.Src == isa::LddwCodeAddr))
      Starts.insert(uint32_t(int64_t(Pc) + 1 + I.Imm));
  }
  std::vector<FunctionRange> Out;
  for (auto It = Starts.begin(); It != Starts.end(); ++It) {
    FunctionRange F;
    F.Begin = *It;
    auto Next = std::next(It);
    F.End = Next == Starts.end() ? uint32_t(Prog.Insns.size()) : *Next;
    for (const object::FunctionSpec &FS : Prog.Functions)
      if (FS.StartPc == F.Begin)
        F.Name = FS.Name;
    if (F.Name.empty())
      F.Name = F.Begin == 0 ? (Prog.Name.empty() ? "prog" : Prog.Name)
                            : "func_" + std::to_string(F.Begin);
    Out.push_back(std::move(F));
  }
  return Out;
}

size_t Provenance::functionAt(uint32_t Pc) const {
  for (size_t F = 0; F < Funcs->size(); ++F)
    if ((*Funcs)[F].Begin <= Pc && Pc < (*Funcs)[F].End)
      return F;
  return 0;
}

const AbsState *Provenance::blockEntry(uint32_t Pc) const {
  auto It = BlockIn.find(Pc);
  return It == BlockIn.end() ? nullptr : &It->second;
}

void Provenance::clobberCall(AbsState &S, uint32_t Pc) const {
  const Insn &I = Prog->Insns[Pc];
  // A bpf-to-bpf call, or a helper without a prototype, may write the
  // stack through any pointer it gets; a helper writes only through its
  // UninitMem and InOutMem arguments, within the size that follows them, its
  // InOutU32 and OutFixedMem ones, their fixed size, and its MapValueOut ones (pop, peek) a value
  // (the other map helpers write none: spilled pointers, the context's
  // above all, survive).
  const platform::HelperProto *H =
      I.isHelperCall() ? Platform->helper(I.Imm) : nullptr;
  // A function that writes only its own frame cannot reach the caller's
  // spills, whatever stack pointers it is given (Katran's jhash reads a
  // key on the caller's stack, with the context spilled beside it).
  bool KeepsSlots = I.isLocalCall() &&
                    FrameLocal[functionAt(uint32_t(int64_t(Pc) + 1 + I.Imm))];
  // A kfunc writes only its stack object (the iterator at r1, the
  // dynptr at r1 or r3, bpf_dynptr_clone's clone at r2 too); a slice's
  // buffer is never written. ebpf_gpu_match_all writes its bitmap, r5
  // bytes at r4.
  if (I.isCall() && I.Src == isa::CallKfunc) {
    const platform::KfuncProto *K = Platform->kfunc(I.Imm);
    if (K && K->Role == platform::KfuncRole::PatternMatchAll) {
      if (S.Regs[4].K == AbsValue::Stack && S.Regs[5].isConst() && S.Regs[5].Value >= 0 &&
          S.Regs[5].Value <= int64_t(isa::MaxStackBytes))
        eraseSlots(S, S.Regs[4].Value, uint32_t(S.Regs[5].Value));
      else if (S.Regs[4].isStackDerived())
        S.Slots.clear();
    } else {
      for (unsigned R : {K ? unsigned(K->ObjReg) : 1u,
                         K && K->Role == platform::KfuncRole::DynptrClone ? 2u : 0u}) {
        if (!R)
          continue;
        if (S.Regs[R].K == AbsValue::Stack && K)
          eraseSlots(S, S.Regs[R].Value, K->IterSize);
        else if (S.Regs[R].isStackDerived())
          S.Slots.clear();
      }
    }
    KeepsSlots = true;
  }
  for (unsigned R = 1; R <= 5 && !KeepsSlots; ++R) {
    if (!S.Regs[R].isStackDerived())
      continue;
    // A callback gets the pointer: it may write anything there. A popped
    // or peeked value's size is the map's, which this analysis does not
    // track: every slot is forgotten, as for a callback.
    if (!H || (R - 1 < H->Checks.size() &&
               (H->Checks[R - 1] == platform::ArgCheck::CallbackCtx ||
                H->Checks[R - 1] == platform::ArgCheck::MapValueOut))) {
      S.Slots.clear();
      break;
    }
    if (R - 1 >= H->Checks.size() || !platform::argWritesMemory(H->Checks[R - 1]))
      continue;
    const AbsValue Size = H->Checks[R - 1] == platform::ArgCheck::InOutU32 ? AbsValue::constant(4)
                          : H->Checks[R - 1] == platform::ArgCheck::OutFixedMem
                              ? AbsValue::constant(int64_t(H->MemSizes[R - 1]))
                          : R < 5 ? S.Regs[R + 1]
                                  : AbsValue();
    if (S.Regs[R].K != AbsValue::Stack || !Size.isConst() || Size.Value < 0 ||
        Size.Value > int64_t(isa::MaxStackBytes)) {
      S.Slots.clear();
      break;
    }
    eraseSlots(S, S.Regs[R].Value, unsigned(Size.Value));
  }
  AbsValue Map = S.Regs[1];
  for (unsigned R = 0; R <= 5; ++R)
    S.Regs[R] = {};
  if (H && platform::returnsMapValue(H->Result) && Map.K == AbsValue::Map)
    S.Regs[0] = {AbsValue::MapElem, 0, Map.Index};
}

void Provenance::transfer(AbsState &S, uint32_t Pc) const {
  const Insn &I = Prog->Insns[Pc];
  switch (I.cls()) {
  case isa::ALU:
  case isa::ALU64:
    transferAlu(S, I);
    return;
  case isa::LD:
    if (I.isLddw()) {
      AbsValue &D = S.Regs[I.Dst];
      switch (I.Src) {
      case isa::LddwImm64:
        D = AbsValue::constant(int64_t(I.imm64()));
        break;
      case isa::LddwMapIdx:
        D = {AbsValue::Map, 0, uint32_t(I.Imm)};
        break;
      case isa::LddwMapIdxValue:
        D = {AbsValue::MapValue, I.ImmHigh, uint32_t(I.Imm)};
        break;
      case isa::LddwCodeAddr:
        D = {AbsValue::Func, 0, uint32_t(int64_t(Pc) + 1 + I.Imm)};
        break;
      default:
        D = {};
      }
    } else {
      clobberCall(S, Pc);
    }
    return;
  case isa::LDX: {
    AbsValue Base = S.Regs[I.Src];
    AbsValue R;
    if (Base.K == AbsValue::Stack && I.size() == isa::DW && I.mode() == isa::ModeMem) {
      auto It = S.Slots.find(Base.Value + I.Off);
      if (It != S.Slots.end())
        R = It->second;
    }
    // ctx->data, data_end, data_meta: 4-byte loads at context offsets 0, 4, 8.
    if (Base.K == AbsValue::Ctx && I.size() == isa::W && I.mode() == isa::ModeMem) {
      int64_t Field = Base.Value + I.Off;
      if (Field == 0 || Field == 4 || Field == 8)
        R = {AbsValue::Packet, 0, 0};
    }
    S.Regs[I.Dst] = R;
    return;
  }
  case isa::ST:
  case isa::STX: {
    AbsValue Base = S.Regs[I.Dst];
    unsigned Size = isa::accessBytes(I.size());
    bool Atomic = I.cls() == isa::STX && I.mode() == isa::ModeAtomic;
    if (Base.K == AbsValue::Stack) {
      int64_t Off = Base.Value + I.Off;
      eraseSlots(S, Off, Size);
      AbsValue V = I.cls() == isa::ST ? AbsValue::constant(I.Imm) : S.Regs[I.Src];
      if (!Atomic && Size == 8 && V.K != AbsValue::Unknown)
        S.Slots[Off] = V;
    } else if (Base.K == AbsValue::StackAny) {
      S.Slots.clear();
    }
    if (Atomic) {
      if (I.Imm == isa::AtomicCmpXchg)
        S.Regs[0] = {};
      else if (I.Imm & isa::AtomicFetch)
        S.Regs[I.Src] = {};
    }
    return;
  }
  case isa::JMP:
    if (I.isCall())
      clobberCall(S, Pc);
    return;
  default:
    return;
  }
}

MaybeError Provenance::analyzeFunction(size_t FIdx, const AbsState &Entry,
                                       std::map<size_t, AbsState> &CalleeEntries) {
  const FunctionRange &F = (*Funcs)[FIdx];
  const std::vector<Insn> &Insns = Prog->Insns;
  auto Fail = [](uint32_t Pc, const std::string &Why) {
    return Error("pc " + std::to_string(Pc) + ": " + Why);
  };
  // Leaders: entry, jump targets, and instructions after jumps and exits.
  std::set<uint32_t> L = {F.Begin};
  for (uint32_t Pc = F.Begin; Pc < F.End; ++Pc) {
    const Insn &I = Insns[Pc];
    if (I.LddwHigh)
      continue;
    if (I.isConditionalJump() || I.isUnconditionalJump()) {
      int64_t T = int64_t(Pc) + 1 + I.jumpOffset();
      if (T < F.Begin || T >= F.End)
        return Fail(Pc, "jump to pc " + std::to_string(T) + " leaves function " + F.Name);
      L.insert(uint32_t(T));
    }
    if ((I.isConditionalJump() || I.isUnconditionalJump() || I.isExit()) && Pc + 1 < F.End)
      L.insert(Pc + 1);
  }
  Leaders[FIdx].assign(L.begin(), L.end());

  std::vector<uint32_t> Work = {F.Begin};
  BlockIn[F.Begin] = Entry;
  std::set<uint32_t> InWork = {F.Begin};
  while (!Work.empty()) {
    uint32_t Leader = Work.back();
    Work.pop_back();
    InWork.erase(Leader);
    AbsState S = BlockIn[Leader];
    auto NextIt = L.upper_bound(Leader);
    uint32_t BlockEnd = NextIt == L.end() ? F.End : *NextIt;
    std::vector<uint32_t> Succs;
    bool FallsThrough = true;
    for (uint32_t Pc = Leader; Pc < BlockEnd; ++Pc) {
      const Insn &I = Insns[Pc];
      if (I.LddwHigh)
        continue;
      const platform::HelperProto *H = I.isHelperCall() ? Platform->helper(I.Imm) : nullptr;
      if (H && S.Regs[2].K == AbsValue::Func &&
          std::count(H->Checks.begin(), H->Checks.end(), platform::ArgCheck::Callback)) {
        // A callback, entered where the helper calls it: bpf_loop's r1 its
        // index, r2 a pointer into its caller's frame; a map helper's
        // (bpf_for_each_map_elem) r1 the map, r2 a key, r3 its value (as
        // a lookup's: its loads are a value's) and r4 the frame pointer.
        size_t Callee = functionAt(S.Regs[2].Index);
        AbsState CS;
        CS.Regs[isa::FramePointer] = {AbsValue::Stack, 0, 0};
        if (H->Args[0] == platform::ValueType::Map && S.Regs[1].K == AbsValue::Map) {
          CS.Regs[1] = S.Regs[1];
          CS.Regs[3] = {AbsValue::MapElem, 0, S.Regs[1].Index};
        }
        auto [It, New] = CalleeEntries.try_emplace(Callee, CS);
        if (!New)
          It->second.join(CS);
      }
      if (I.isLocalCall()) {
        size_t Callee = functionAt(uint32_t(int64_t(Pc) + 1 + I.Imm));
        AbsState CS;
        for (unsigned R = 1; R <= 5; ++R)
          CS.Regs[R] = S.Regs[R].isStackDerived() ? AbsValue() : S.Regs[R];
        CS.Regs[isa::FramePointer] = {AbsValue::Stack, 0, 0};
        auto [It, New] = CalleeEntries.try_emplace(Callee, CS);
        if (!New)
          It->second.join(CS);
      }
      transfer(S, Pc);
      if (I.isExit()) {
        FallsThrough = false;
      } else if (I.isUnconditionalJump()) {
        Succs.push_back(uint32_t(int64_t(Pc) + 1 + I.jumpOffset()));
        FallsThrough = false;
      } else if (I.isConditionalJump()) {
        Succs.push_back(uint32_t(int64_t(Pc) + 1 + I.jumpOffset()));
      }
    }
    if (FallsThrough) {
      if (BlockEnd >= F.End)
        return Fail(F.End - 1, "execution falls off the end of function " + F.Name);
      Succs.push_back(BlockEnd);
    }
    for (uint32_t Succ : Succs) {
      auto [It, New] = BlockIn.try_emplace(Succ, S);
      if ((New || It->second.join(S)) && InWork.insert(Succ).second)
        Work.push_back(Succ);
    }
  }
  return std::nullopt;
}

void Provenance::computeFrame(size_t FIdx) {
  int64_t Low = 0;
  auto Touch = [&](const AbsValue &Base, int64_t Off) {
    if (Base.K == AbsValue::Stack)
      Low = std::min(Low, Base.Value + Off);
    else if (Base.K == AbsValue::StackAny)
      Low = -int64_t(isa::MaxStackBytes);
  };
  const FunctionRange &F = (*Funcs)[FIdx];
  for (uint32_t Leader : Leaders[FIdx]) {
    const AbsState *In = blockEntry(Leader);
    if (!In)
      continue;
    AbsState S = *In;
    auto It = std::upper_bound(Leaders[FIdx].begin(), Leaders[FIdx].end(), Leader);
    uint32_t End = It == Leaders[FIdx].end() ? F.End : *It;
    for (uint32_t Pc = Leader; Pc < End; ++Pc) {
      const Insn &I = Prog->Insns[Pc];
      if (I.LddwHigh)
        continue;
      if (I.cls() == isa::LDX)
        Touch(S.Regs[I.Src], I.Off);
      else if (I.cls() == isa::ST || I.cls() == isa::STX) {
        Touch(S.Regs[I.Dst], I.Off);
        // A frame pointer stored outside the frame escapes: size it fully.
        if (I.cls() == isa::STX && S.Regs[I.Src].isStackDerived() &&
            !S.Regs[I.Dst].isStackDerived())
          Low = -int64_t(isa::MaxStackBytes);
      } else if (I.isCall()) {
        for (unsigned R = 1; R <= 5; ++R)
          Touch(S.Regs[R], 0);
        // A callback reaches the frame through its pointer, at offsets
        // the verifier checked against the whole frame.
        const platform::HelperProto *H = I.isHelperCall() ? Platform->helper(I.Imm) : nullptr;
        for (unsigned R = 1; H && R <= H->Checks.size(); ++R)
          if (H->Checks[R - 1] == platform::ArgCheck::CallbackCtx && S.Regs[R].isStackDerived())
            Low = -int64_t(isa::MaxStackBytes);
      }
      transfer(S, Pc);
    }
  }
  int64_t Bytes = std::min<int64_t>(-Low, isa::MaxStackBytes);
  Frames[FIdx] = unsigned((Bytes + 7) & ~int64_t(7));
}

Expected<Provenance> Provenance::analyze(const object::ProgramSpec &Prog,
                                         const std::vector<FunctionRange> &Funcs,
                                         const platform::Platform &Platform) {
  Provenance P(Prog, Funcs, Platform);
  size_t N = Funcs.size();
  P.Leaders.resize(N);
  P.Frames.assign(N, 0);
  // Call graph, and an order with every caller before its callees.
  std::vector<std::set<size_t>> Callees(N);
  for (size_t F = 0; F < N; ++F)
    for (uint32_t Pc = Funcs[F].Begin; Pc < Funcs[F].End; ++Pc)
      if ((Prog.Insns[Pc].isLocalCall() || (Prog.Insns[Pc].isLddw() &&
                                            Prog.Insns[Pc].Src == isa::LddwCodeAddr)) &&
          !Prog.Insns[Pc].LddwHigh)
        Callees[F].insert(P.functionAt(uint32_t(int64_t(Pc) + 1 + Prog.Insns[Pc].Imm)));
  std::vector<int> Mark(N, 0); // 0 new, 1 on path, 2 done
  std::vector<size_t> PostOrder;
  std::optional<Error> Cycle;
  std::function<void(size_t)> Visit = [&](size_t F) {
    Mark[F] = 1;
    for (size_t C : Callees[F]) {
      if (Mark[C] == 1 && !Cycle)
        Cycle = Error("pc " + std::to_string(Funcs[F].Begin) + ": function " +
                      Funcs[F].Name + " calls " + Funcs[C].Name +
                      " recursively (recursion is not allowed)");
      if (Mark[C] == 0)
        Visit(C);
    }
    Mark[F] = 2;
    PostOrder.push_back(F);
  };
  Visit(0);
  if (Cycle)
    return std::move(*Cycle);

  // Callees come before their callers in PostOrder.
  P.FrameLocal.assign(N, false);
  for (size_t F : PostOrder) {
    bool Local = true;
    for (uint32_t Pc = Funcs[F].Begin; Pc < Funcs[F].End && Local; ++Pc) {
      const Insn &I = Prog.Insns[Pc];
      if (I.LddwHigh)
        continue;
      if (I.cls() == isa::ST || I.cls() == isa::STX)
        Local = I.Dst == isa::FramePointer;
      else if (I.isLocalCall())
        Local = P.FrameLocal[P.functionAt(uint32_t(int64_t(Pc) + 1 + I.Imm))];
      else if (I.isCall() && I.Src == isa::CallKfunc)
        Local = false; // an iterator may be in a caller's frame
      else if (I.isHelperCall()) {
        const platform::HelperProto *H = Platform.helper(I.Imm);
        Local = H && std::none_of(H->Checks.begin(), H->Checks.end(), [](platform::ArgCheck C) {
                  return platform::argWritesMemory(C) || C == platform::ArgCheck::CallbackCtx ||
                         C == platform::ArgCheck::MapValueOut;
                });
      }
    }
    P.FrameLocal[F] = Local;
  }

  std::map<size_t, AbsState> CalleeEntries;
  AbsState Entry;
  Entry.Regs[isa::FramePointer] = {AbsValue::Stack, 0, 0};
  if (Platform.hasContext())
    Entry.Regs[1] = {AbsValue::Ctx, 0, 0};
  CalleeEntries[0] = Entry;
  for (auto It = PostOrder.rbegin(); It != PostOrder.rend(); ++It) {
    if (MaybeError E = P.analyzeFunction(*It, CalleeEntries[*It], CalleeEntries))
      return std::move(*E);
    P.computeFrame(*It);
  }
  return P;
}

} // namespace ebpfgpu::compiler

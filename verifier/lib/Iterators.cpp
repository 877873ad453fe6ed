// SPDX-License-Identifier: Apache-2.0
//
// The verifier's kfunc calls: the open-coded iterators of bpf_for() and
// bpf_repeat() (bpf_iter_num_new, _next, _destroy), as the kernel's
// (process_iter_arg, process_iter_next_call, widen_imprecise_scalars). An
// iterator is a kind of stack slot (Kind::Iter spilled at a constant,
// 8-aligned offset), active or drained, holding a reference that _destroy
// releases; no load or store may touch it. _next is a loop head: the path
// that goes on gets null (drained), a path of its own gets a read-only
// pointer to the next element with the iterator still active, whose
// scalars are widened against the previous turn's (run()'s pruning at
// that head does the rest).

#include "VerifierEngine.h"

#include <cassert>

namespace ebpfgpu::verifier::detail {

namespace {

std::string stackAt(int64_t Off) {
  return "r10" + std::string(Off < 0 ? "-" : "+") + std::to_string(Off < 0 ? -Off : Off);
}

/// The iterator spilled at byte `At` of `F`, or null.
const Reg *iterAt(const Frame &F, unsigned At) {
  auto It = F.Spills.find(At);
  return It != F.Spills.end() && It->second.K == Kind::Iter ? &It->second : nullptr;
}

bool sameBounds(const Reg &A, const Reg &B) {
  return A.UMin == B.UMin && A.UMax == B.UMax && A.SMin == B.SMin && A.SMax == B.SMax &&
         A.U32Min == B.U32Min && A.U32Max == B.U32Max && A.S32Min == B.S32Min &&
         A.S32Max == B.S32Max && A.T == B.T;
}

/// The kernel's maybe_widen_reg: a scalar that differs from the previous
/// turn's and decided nothing there becomes unknown.
void widen(const Reg &Old, Reg &Cur, bool Precise) {
  if (Old.K != Kind::Scalar || Cur.K != Kind::Scalar || Precise || sameBounds(Old, Cur))
    return;
  Cur = Reg::unknown();
}

} // namespace

bool Verifier::iterActiveAt(const State &S) const {
  const Reg &It = S.Regs[1];
  if (It.K != Kind::Stack || It.hasVarOff() || It.Aux >= S.Frames.size() ||
      It.Off < -int64_t(isa::MaxStackBytes) || It.Off > -8)
    return false;
  const Reg *R = iterAt(S.Frames[It.Aux], unsigned(It.Off + int64_t(isa::MaxStackBytes)));
  return R && R->Aux == IterActive;
}

void Verifier::widenImprecise(State &Q, uint32_t Pc) {
  // The previous turn: the latest checkpoint at this call on this path
  // before the one stored for this visit, in the same frames.
  const Checkpoint *Prev = CurPath->Last;
  if (Prev && Prev->Pc == Pc)
    Prev = Prev->Parent;
  for (; Prev; Prev = Prev->Parent) {
    if (Prev->Pc != Pc || Prev->S.Frames.size() != Q.Frames.size())
      continue;
    bool Same = true;
    for (size_t F = 0; F < Q.Frames.size(); ++F)
      Same &= Prev->S.Frames[F].ReturnPc == Q.Frames[F].ReturnPc;
    if (Same)
      break;
  }
  if (!Prev || Prev->S.Frames.empty()) // none, or an evicted one
    return;
  const State &O = Prev->S;
  size_t Top = Q.Frames.size() - 1;
  for (unsigned R = 0; R < isa::FramePointer; ++R)
    widen(O.Regs[R], Q.Regs[R], (Prev->Decided.Regs[Top] >> R) & 1);
  for (size_t F = 0; F < Q.Frames.size(); ++F)
    for (auto &[B, R] : Q.Frames[F].Spills)
      if (auto It = O.Frames[F].Spills.find(B); It != O.Frames[F].Spills.end())
        widen(It->second, R, (Prev->Decided.Slots[F] >> (B / 8)) & 1);
}

MaybeDiag Verifier::kfuncCall(Path &P, int32_t Id, std::vector<Path> &Forks) {
  uint32_t Pc = P.Pc;
  State &S = P.S;
  const platform::KfuncProto *K = Opts.Platform->kfunc(Id);
  if (!K)
    return fail(Pc, "kfunc " + std::to_string(Id) + " is not available to " +
                        Opts.Platform->name() + " programs",
                "supported");
  if (S.Lock)
    return fail(Pc, "function calls are not allowed while holding a lock (" + K->Name +
                        " inside a bpf_spin_lock-ed region)",
                "no_call(locked)");
  if (K->isDynptr())
    return dynptrKfunc(Pc, S, *K);
  if (K->Role == platform::KfuncRole::PatternMatch ||
      K->Role == platform::KfuncRole::PatternMatchAll)
    return matchKfunc(Pc, S, *K);
  if (K->Role == platform::KfuncRole::RxMetadata)
    return rxMetadataKfunc(Pc, S, *K);
  if (K->Role == platform::KfuncRole::Classify)
    return classifyKfunc(Pc, S, *K);
  if (K->Role == platform::KfuncRole::PullData)
    return pullDataKfunc(Pc, S, *K);
  if (K->Role == platform::KfuncRole::RcuReadLock || K->Role == platform::KfuncRole::RcuReadUnlock)
    return rcuKfunc(Pc, S, *K);
  if (auto E = readReg(Pc, S, 1))
    return E;
  const Reg &It = S.Regs[1];
  std::string Arg = K->Name + " argument 1 (r1)";
  if (It.K != Kind::Stack || It.hasVarOff() || It.Off % 8 != 0 ||
      It.Off < -int64_t(isa::MaxStackBytes) || It.Off + int64_t(K->IterSize) > 0)
    return fail(Pc, Arg + " must be a stack pointer at a constant 8-aligned offset, is " + It.str(),
                "iterator(r1)");
  unsigned FrameNo = It.Aux;
  Frame &F = frameOf(S, It);
  unsigned At = unsigned(It.Off + int64_t(isa::MaxStackBytes));
  std::string Where = stackAt(It.Off);
  const Reg *Held = iterAt(F, At);
  uint64_t Slot = slotMask(At, At + K->IterSize);
  Reg R0;
  switch (K->Role) {
  case platform::KfuncRole::IterNew: {
    if (Held)
      return fail(Pc, Arg + ": " + Where + " already holds an iterator (made at pc " +
                          std::to_string(S.Refs.count(Held->Ref) ? S.Refs[Held->Ref] : 0) +
                          "), not yet destroyed",
                  "uninitialized_iter(stack[" + std::to_string(It.Off) + "])");
    for (unsigned R = 2; R <= 3; ++R) {
      if (auto E = readReg(Pc, S, R))
        return E;
      if (S.Regs[R].K != Kind::Scalar)
        return fail(Pc, K->Name + " argument " + std::to_string(R) + " (r" + std::to_string(R) +
                            ") must be a scalar, is a " + kindName(S.Regs[R].K),
                    "type(r" + std::to_string(R) + ") == scalar");
    }
    // The iterator is written whole: what was there is gone.
    leaveResidue(F, At, At + K->IterSize, true);
    for (auto S2 = F.Spills.begin(); S2 != F.Spills.end();)
      S2 = (S2->first < At + K->IterSize && At < S2->first + 8) ? F.Spills.erase(S2) : std::next(S2);
    Reg Iter = Reg::pointer(Kind::Iter, 0, IterActive);
    Iter.Ref = freshId();
    S.Refs[Iter.Ref] = Pc;
    F.Spills[At] = Iter;
    for (unsigned X = At; X < At + K->IterSize; ++X) {
      F.Bytes[X] = Slot::Spill;
      F.Known[X] = -1;
    }
    CurPath->Written[FrameNo] |= Slot;
    R0 = Reg::unknown(); // 0, -EINVAL or -E2BIG
    break;
  }
  case platform::KfuncRole::IterNext:
  case platform::KfuncRole::IterDestroy: {
    markStackRead(FrameNo, Slot);
    if (!Held)
      return fail(Pc, Arg + " must point to an iterator made by bpf_iter_num_new; " + Where +
                          " holds none",
                  "initialized_iter(stack[" + std::to_string(It.Off) + "])");
    if (K->Role == platform::KfuncRole::IterDestroy) {
      S.Refs.erase(Held->Ref);
      F.Spills.erase(At);
      for (unsigned X = At; X < At + K->IterSize; ++X) {
        F.Bytes[X] = Slot::Uninit;
        F.Known[X] = -1;
      }
      break; // void: r0 is not written
    }
    if (Held->Aux == IterActive) {
      // The next turn, a path of its own (the kernel's queued state).
      State Q = S;
      ++Q.Frames[FrameNo].Spills[At].UMin; // one turn deeper
      Q.Regs[0] = Reg::pointer(Kind::IterElem, 0, K->ElemSize);
      for (unsigned R = 1; R <= 5; ++R)
        Q.Regs[R] = Reg();
      widenImprecise(Q, Pc);
      if (P.Last)
        ++P.Last->Branches;
      Forks.push_back(Path{std::move(Q), Pc + 1, P.Last, P.Tail});
      Forks.back().Written = P.Written;
    }
    // This path: the iterator is drained and r0 null.
    F.Spills[At].Aux = IterDrained;
    R0 = Reg::constant(0);
    break;
  }
  default:
    assert(false && "dynptr kfuncs are dynptrKfunc()'s, ebpf-gpu's match/classifyKfunc()'s");
    break;
  }
  S.Regs[0] = R0;
  for (unsigned R = 1; R <= 5; ++R)
    S.Regs[R] = Reg();
  return std::nullopt;
}

std::string Verifier::unreleased(const State &S, bool Definite) const {
  uint32_t At = S.Refs.begin()->second;
  if (Insns[At].isCall() && Insns[At].Src == isa::CallKfunc)
    return (Definite ? "the" : "an") + std::string(" iterator made at pc ") + std::to_string(At) +
           " is not destroyed";
  return (Definite ? "the" : "a") + std::string(" ring buffer record reserved at pc ") +
         std::to_string(At) + " is neither submitted nor discarded";
}

/// bpf_rcu_read_lock / _unlock: the kernel's RCU read-side region, one at a
/// time (no nesting, no unlock outside one), closed before the program
/// exits and not left by a tail call (exitInsn, helperCall). It may span
/// subprogram calls, as the kernel's. Nothing runs: no map element is
/// reused while a batch runs (docs/MAPS.md), so every read is in one.
MaybeDiag Verifier::rcuKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K) {
  bool Lock = K.Role == platform::KfuncRole::RcuReadLock;
  if (Lock && S.Rcu)
    return fail(Pc, "nested rcu read lock (kernel function " + K.Name + ")", "!rcu_locked");
  if (!Lock && !S.Rcu)
    return fail(Pc, "unmatched rcu read unlock (kernel function " + K.Name + ")", "rcu_locked");
  S.Rcu = Lock;
  for (unsigned R = 0; R <= 5; ++R)
    S.Regs[R] = Reg();
  return std::nullopt;
}

} // namespace ebpfgpu::verifier::detail

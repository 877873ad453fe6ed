// SPDX-License-Identifier: Apache-2.0
//
// The verifier's engine: a static CFG check, then a depth-first walk of
// every path with abstract states, checking each instruction's safety
// obligations and pruning paths whose state is covered by one already
// proven safe at the same jump target.

#include "ebpf-gpu/Verifier/Verifier.h"

#include "VerifierEngine.h"

#include "ebpf-gpu/ISA/Disassembler.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <set>
#include <sstream>

namespace ebpfgpu::verifier {

using isa::Insn;

namespace detail {

namespace {

constexpr size_t MaxStatesPerPc = 64;
/// States stored over the whole analysis (memory: about 3 KB each).
constexpr uint64_t MaxStatesStored = 32768;
constexpr size_t MaxLogBytes = 4 << 20;

} // namespace

/// Static checks over the control-flow graph: every instruction reachable,
/// no execution falling off the end, jumps inside the program.
MaybeDiag Verifier::checkCfg() {
  size_t N = Insns.size();
  std::vector<bool> Seen(N, false);
  std::vector<uint32_t> Work = {0};
  Seen[0] = true;
  while (!Work.empty()) {
    uint32_t Pc = Work.back();
    Work.pop_back();
    const Insn &I = Insns[Pc];
    std::vector<int64_t> Next;
    uint32_t Step = I.isLddw() ? 2 : 1;
    if (I.isExit()) {
      // Returns continue after the call site, which the call edge covers.
    } else if (I.isUnconditionalJump()) {
      Next.push_back(int64_t(Pc) + 1 + I.jumpOffset());
      PrunePoint.insert(uint32_t(Next.back()));
    } else if (I.isConditionalJump()) {
      Next.push_back(int64_t(Pc) + 1 + I.jumpOffset());
      PrunePoint.insert(uint32_t(Next.back()));
      Next.push_back(Pc + 1);
    } else {
      // A function whose address is loaded runs where a helper calls it.
      if (I.isLocalCall() || (I.isLddw() && I.Src == isa::LddwCodeAddr))
        Next.push_back(int64_t(Pc) + 1 + I.Imm);
      if (I.isCall() && I.Src == isa::CallKfunc)
        if (const platform::KfuncProto *K = Opts.Platform->kfunc(I.Imm);
            K && K->Role == platform::KfuncRole::IterNext) {
          PrunePoint.insert(Pc);
          IterNextSites.insert(Pc);
        }
      if (I.isHelperCall())
        if (const platform::HelperProto *H = Opts.Platform->helper(I.Imm);
            H && std::count(H->Checks.begin(), H->Checks.end(), platform::ArgCheck::Callback)) {
          PrunePoint.insert(Pc);
          CallbackSites.insert(Pc);
        }
      Next.push_back(int64_t(Pc) + Step);
    }
    for (int64_t T : Next) {
      if (T >= int64_t(N))
        return fail(Pc, "execution falls off the end of the program",
                    "terminates_with(exit)");
      if (!Seen[size_t(T)]) {
        Seen[size_t(T)] = true;
        Work.push_back(uint32_t(T));
      }
    }
  }
  for (uint32_t Pc = 0; Pc < N; ++Pc)
    if (!Seen[Pc] && !Insns[Pc].LddwHigh)
      return fail(Pc, "unreachable instruction", "reachable");
  return std::nullopt;
}

/// Backward register liveness, per function: calls read r1-r5 and clobber
/// r0-r5, exits read r0, r10 is always live.
void Verifier::computeLiveness() {
  size_t N = Insns.size();
  LiveIn.assign(N, 0);
  auto Bit = [](unsigned R) { return uint16_t(1u << R); };
  auto UsesDefs = [&](const Insn &I, uint16_t &Use, uint16_t &Def) {
    Use = Def = 0;
    switch (I.cls()) {
    case isa::ALU:
    case isa::ALU64:
      if (I.op() != isa::Mov)
        Use |= Bit(I.Dst);
      if (I.usesRegSource() && I.op() != isa::Neg && I.op() != isa::End)
        Use |= Bit(I.Src);
      Def |= Bit(I.Dst);
      break;
    case isa::LD:
      Def |= I.isLddw() ? Bit(I.Dst) : uint16_t(0x3f);
      if (!I.isLddw())
        Use |= uint16_t(Bit(6) | Bit(I.Src));
      break;
    case isa::LDX:
      Use |= Bit(I.Src);
      Def |= Bit(I.Dst);
      break;
    case isa::ST:
      Use |= Bit(I.Dst);
      break;
    case isa::STX:
      Use |= uint16_t(Bit(I.Dst) | Bit(I.Src));
      if (I.mode() == isa::ModeAtomic) {
        if (I.Imm == isa::AtomicCmpXchg)
          Use |= Bit(0), Def |= Bit(0);
        else if (I.Imm & isa::AtomicFetch)
          Def |= Bit(I.Src);
      }
      break;
    default:
      if (I.isExit())
        Use |= Bit(0);
      else if (I.isCall()) {
        // A helper reads only its arguments; other calls may read r1-r5.
        uint16_t Args = 0x3e;
        if (I.isHelperCall())
          if (const platform::HelperProto *H = Opts.Platform->helper(I.Imm))
            Args = uint16_t(((1u << H->Checks.size()) - 1) << 1);
        Use |= uint16_t(Args | (I.isCallx() ? Bit(I.Dst) : 0)), Def |= uint16_t(0x3f);
      }
      else if (!I.isUnconditionalJump())
        Use |= uint16_t(Bit(I.Dst) | (I.usesRegSource() ? Bit(I.Src) : 0));
      break;
    }
  };
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (size_t K = N; K-- > 0;) {
      const Insn &I = Insns[K];
      if (I.LddwHigh)
        continue;
      uint16_t Out = 0;
      size_t Step = I.isLddw() ? 2 : 1;
      if (!I.isExit()) {
        if (I.isJmp() && (I.isConditionalJump() || I.isUnconditionalJump())) {
          int64_t T = int64_t(K) + 1 + I.jumpOffset();
          if (T >= 0 && size_t(T) < N)
            Out |= LiveIn[size_t(T)];
        }
        if (!I.isUnconditionalJump() && K + Step < N)
          Out |= LiveIn[K + Step];
      }
      uint16_t Use, Def;
      UsesDefs(I, Use, Def);
      uint16_t In = uint16_t((Out & ~Def) | Use | Bit(isa::FramePointer));
      if (In != LiveIn[K]) {
        LiveIn[K] = In;
        Changed = true;
      }
    }
  }
}

/// Appends the instruction about to run to the path's trace, with the
/// stack bytes it accesses (backtracking needs them to follow spills).
uint32_t Verifier::record(Path &P) {
  const Insn &I = Insns[P.Pc];
  TraceNode N;
  N.Pc = P.Pc;
  N.Prev = P.Tail;
  N.Checkpoint = P.PendingCheckpoint;
  N.Depth = uint8_t(P.S.Frames.size());
  P.PendingCheckpoint = 0;
  // (A kfunc's iterator: r1.)
  int Base = I.cls() == isa::LDX                          ? I.Src
             : (I.cls() == isa::ST || I.cls() == isa::STX) ? I.Dst
             : (I.isCall() && I.Src == isa::CallKfunc)     ? 1
                                                           : -1;
  if (Base >= 0) {
    const Reg &B = P.S.Regs[unsigned(Base)];
    int64_t At = B.Off + I.Off + int64_t(isa::MaxStackBytes);
    if (B.K == Kind::Stack && !B.hasVarOff() && At >= 0 &&
        At + int64_t(isa::accessBytes(I.size())) <= int64_t(isa::MaxStackBytes)) {
      N.StackOff = int16_t(At);
      N.StackFrame = uint8_t(B.Aux);
    }
  }
  Trace.push_back(N);
  P.Tail = uint32_t(Trace.size() - 1);
  return P.Tail;
}

/// `M` matters before the instruction of `Node`: every checkpoint on the
/// way back learns what of it matters there. A checkpoint that knew it all
/// already passed it on to its ancestors.
void Verifier::propagatePrecision(uint32_t Node, PreciseSet M) {
  while (Node != NoNode && !M.empty()) {
    TraceNode &T = Trace[Node];
    unsigned F = T.Depth - 1u;
    uint16_t Regs = M.Regs[F];
    uint64_t Slots = M.Slots[F];
    M.Regs[F] = 0;
    M.Slots[F] = 0;
    bool OwnFrameOnly = M.empty();
    M.Regs[F] = Regs;
    M.Slots[F] = Slots;
    if (OwnFrameOnly) {
      if (!(Regs & ~T.DoneRegs) && !(Slots & ~T.DoneSlots))
        return;
      T.DoneRegs |= Regs;
      T.DoneSlots |= Slots;
    }
    if (T.Checkpoint) {
      Checkpoint &C = *CheckpointList[T.Checkpoint - 1];
      if (!LoopMarking)
        C.Decided.merge(M);
      if (M.subsetOf(C.Precise))
        return;
      C.Precise.merge(M);
    }
    Node = T.Prev;
    if (Node != NoNode)
      backtrackInsn(Insns[Trace[Node].Pc], Trace[Node], M, T.Depth);
  }
}

/// Register `R` of the current frame decides a check or a branch here.
void Verifier::markPrecise(const State &S, unsigned R) {
  if (S.Regs[R].K != Kind::Scalar)
    return;
  PreciseSet M;
  M.addReg(unsigned(S.Frames.size() - 1), R);
  propagatePrecision(CurNode, M);
}

MaybeDiag Verifier::step(Path &P, std::vector<Path> &Forks, bool &Ended) {
  uint32_t Pc = P.Pc;
  const Insn &I = Insns[Pc];
  State &S = P.S;
  if (Opts.Log && Res.Log.size() < MaxLogBytes) {
    Res.Log += std::to_string(Pc) + ": " + isa::disassemble(I, Pc) + "\n    ; " + stateStr(S) + "\n";
  }
  CurNode = record(P);
  uint32_t Next = Pc + (I.isLddw() ? 2 : 1);
  switch (I.cls()) {
  case isa::ALU:
  case isa::ALU64:
    if (auto E = alu(Pc, I, S))
      return E;
    break;
  case isa::LD:
    if (auto E = lddw(Pc, I, S))
      return E;
    break;
  case isa::LDX:
    if (auto E = load(Pc, I, S))
      return E;
    break;
  case isa::ST:
  case isa::STX:
    if (auto E = I.mode() == isa::ModeAtomic ? atomic(Pc, I, S) : store(Pc, I, S))
      return E;
    break;
  case isa::JMP:
  case isa::JMP32:
    if (I.isExit()) {
      if (auto E = exitInsn(Pc, S, Ended, Next))
        return E;
      break;
    }
    if (I.isCallx()) {
      // An indirect call is allowed where the analysis knows its target:
      // then it is that helper's call (the lifter lowers it so). The
      // target's value decides which checks apply, so it is precise.
      if (auto E = readReg(Pc, S, I.Dst))
        return E;
      const Reg &T = S.Regs[I.Dst];
      if (!T.isConst() || T.UMin > uint64_t(INT32_MAX))
        return fail(Pc, "callx through r" + std::to_string(I.Dst) +
                            " whose value is not a known helper id (indirect calls are allowed "
                            "only to a known helper)",
                    "known_target(r" + std::to_string(I.Dst) + ")");
      markPrecise(S, I.Dst);
      if (const platform::HelperProto *H = Opts.Platform->helper(int32_t(T.UMin));
          H && std::count(H->Checks.begin(), H->Checks.end(), platform::ArgCheck::Callback))
        return fail(Pc, "callx of bpf_" + H->Name + " is not supported (call it directly)",
                    "supported");
      if (auto E = helperCall(Pc, int32_t(T.UMin), S))
        return E;
      break;
    }
    if (I.isCall()) {
      if (I.Src == isa::CallKfunc) {
        if (auto E = kfuncCall(P, I.Imm, Forks))
          return E;
        break;
      }
      if (I.Src == isa::CallLocal) {
        if (auto E = localCall(Pc, I, S))
          return E;
        Next = uint32_t(int64_t(Pc) + 1 + I.Imm);
        break;
      }
      if (auto E = helperCall(Pc, I.Imm, S))
        return E;
      // A callback's first turn is a path of its own; this one goes on
      // after the call (as the kernel's push_callback_call).
      if (CallbackEntry) {
        uint32_t Entry = CallbackEntry->Frames.back().Entry;
        if (P.Last)
          ++P.Last->Branches;
        Forks.push_back(Path{std::move(*CallbackEntry), Entry, P.Last, P.Tail});
        CallbackEntry.reset();
        Forks.back().Written = P.Written;
        Forks.back().Written[Forks.back().S.Frames.size() - 1] = U64Max;
      }
      break;
    }
    if (I.isUnconditionalJump()) {
      Next = uint32_t(int64_t(Pc) + 1 + I.jumpOffset());
      break;
    }
    if (auto E = conditionalJump(P, I, Forks, Ended, Next))
      return E;
    break;
  }
  P.Pc = Next;
  return std::nullopt;
}

/// LD: the 16-byte immediate loads (a constant, a map reference, an
/// address in a map's value); the legacy packet loads are refused.
MaybeDiag Verifier::lddw(uint32_t Pc, const Insn &I, State &S) {
  if (!I.isLddw())
    return fail(Pc, "legacy packet loads (ld_abs, ld_ind) are not allowed in " +
                        std::string(Opts.Platform->name()) + " programs", "supported");
  switch (I.Src) {
  case isa::LddwImm64:
    S.Regs[I.Dst] = Reg::constant(I.imm64());
    break;
  case isa::LddwMapIdx:
  case isa::LddwMapIdxValue:
    if (I.Imm < 0 || size_t(I.Imm) >= Maps.size())
      return fail(Pc, "reference to map " + std::to_string(I.Imm) + ", which does not exist",
                  "valid_map");
    if (I.Src == isa::LddwMapIdx)
      S.Regs[I.Dst] = Reg::pointer(Kind::MapPtr, 0, uint32_t(I.Imm));
    else
      S.Regs[I.Dst] = Reg::pointer(Kind::MapValue, I.ImmHigh, uint32_t(I.Imm));
    break;
  case isa::LddwCodeAddr:
    S.Regs[I.Dst] = Reg::pointer(Kind::FuncPtr, 0, uint32_t(int64_t(Pc) + 1 + I.Imm));
    break;
  default:
    return fail(Pc, "lddw of kind " + std::to_string(I.Src) +
                        " (map fds, variables) is not supported",
                "supported");
  }
  return std::nullopt;
}

/// A conditional jump of path `P`: each feasible outcome goes on, the
/// taken one as a new path in `Forks` when both are (`Next` becomes the
/// target when only it is; `Ended` when neither is).
MaybeDiag Verifier::conditionalJump(Path &P, const Insn &I, std::vector<Path> &Forks,
                                    bool &Ended, uint32_t &Next) {
  uint32_t Pc = P.Pc;
  State &S = P.S;
  if (auto E = readReg(Pc, S, I.Dst))
    return E;
  if (I.usesRegSource())
    if (auto E = readReg(Pc, S, I.Src))
      return E;
  std::optional<State> Taken, NotTaken;
  branch(Pc, I, S, Taken, NotTaken);
  // Scalars that decided the branch's direction, or a pointer's null
  // check, decided what was explored: their bounds matter.
  const Reg &DR = S.Regs[I.Dst];
  bool SrcScalar = !I.usesRegSource() || S.Regs[I.Src].K == Kind::Scalar;
  if (DR.K == Kind::Scalar && SrcScalar && !(Taken && NotTaken)) {
    markPrecise(S, I.Dst);
    if (I.usesRegSource())
      markPrecise(S, I.Src);
  }
  if (DR.isPointer() && I.usesRegSource())
    markPrecise(S, I.Src);
  uint32_t Target = uint32_t(int64_t(Pc) + 1 + I.jumpOffset());
  if (Taken && NotTaken) {
    if (P.Last)
      ++P.Last->Branches;
    Forks.push_back(Path{std::move(*Taken), Target, P.Last, P.Tail});
    Forks.back().Written = P.Written;
    S = std::move(*NotTaken);
  } else if (Taken) {
    S = std::move(*Taken);
    Next = Target;
  } else if (NotTaken) {
    S = std::move(*NotTaken);
  } else {
    Ended = true; // neither outcome is possible: the path is dead
  }
  return std::nullopt;
}

uint64_t Verifier::slotMask(int64_t Lo, int64_t Hi) {
  uint64_t M = 0;
  for (int64_t X = std::max<int64_t>(Lo, 0) / 8; X * 8 < Hi && X < 64; ++X)
    M |= uint64_t(1) << X;
  return M;
}

void Verifier::markStackRead(unsigned Frame, uint64_t Slots) {
  uint64_t R = Slots & ~CurPath->Written[Frame];
  // A checkpoint already marked had its ancestors marked then, through
  // the same writes.
  for (Checkpoint *C = CurPath->Last; C && R; C = C->Parent) {
    R &= ~C->Live[Frame];
    C->Live[Frame] |= R;
    R &= ~C->WrittenBefore[Frame];
  }
}

Result Verifier::run() {
  if (Insns.empty()) {
    Res.Error = fail(0, "program has no instructions", "nonempty");
    return Res;
  }
  if (auto E = checkCfg()) {
    Res.Error = E;
    return Res;
  }
  computeLiveness();
  LoadBase.assign(Insns.size(), Kind::NotInit);
  State Init;
  Init.Frames.resize(1);
  Init.PacketRange[0] = 0;
  Init.Regs[isa::FramePointer] = Reg::pointer(Kind::Stack, 0, 0);
  if (Opts.Platform->hasContext()) {
    Init.Regs[1] = Reg::pointer(Kind::Ctx, 0);
  } else {
    Init.Regs[1] = Reg::pointer(Kind::RawMem, 0);
    Init.Regs[2] = Reg::constant(Opts.RawMemSize);
    if (Opts.RawMemSize == 0)
      Init.Regs[1] = Reg::constant(0);
  }
  std::vector<Path> Work;
  Work.push_back(Path{std::move(Init), 0, nullptr});
  while (!Work.empty()) {
    Path P = std::move(Work.back());
    Work.pop_back();
    bool Ended = false;
    CurPath = &P;
    while (!Ended) {
      if (++Res.InsnsProcessed > Opts.MaxInsnsProcessed) {
        Res.Error = fail(P.Pc, "the analysis budget of " + std::to_string(Opts.MaxInsnsProcessed) +
                                   " instructions is exhausted: a loop is not proven to end, "
                                   "or the program is too complex",
                         "bounded_loop_count");
        return Res;
      }
      if (isPruneable(P.Pc)) {
        bool Pruned = false;
        // An iterator's next is a loop head while the iterator is active
        // (the kernel's is_iter_next_insn); never an infinite loop there.
        bool IterNext = IterNextSites.count(P.Pc) != 0;
        bool LoopHead = CallbackSites.count(P.Pc) != 0 || (IterNext && iterActiveAt(P.S));
        for (Checkpoint *C : StatesAt[P.Pc]) {
          // A callback's (or an iterator's) next turn that a turn still being explored covers,
          // every scalar compared by its bounds (the kernel's RANGE_WITHIN),
          // adds nothing. What its continuation will need is not known yet:
          // everything matters, and every slot is read.
          if (LoopHead && C->Branches > 0 && covers(C->S, P.S, LiveIn[P.Pc])) {
            ++C->Hits;
            if (P.Tail != NoNode) {
              PreciseSet M;
              for (unsigned F = 0; F < P.S.Frames.size(); ++F) {
                M.Regs[F] = 0x3ff;
                M.Slots[F] = U64Max;
              }
              backtrackInsn(Insns[Trace[P.Tail].Pc], Trace[P.Tail], M,
                            unsigned(P.S.Frames.size()));
              LoopMarking = true;
              propagatePrecision(P.Tail, M);
              LoopMarking = false;
            }
            for (unsigned F = 0; F < P.S.Frames.size(); ++F)
              markStackRead(F, U64Max);
            Pruned = true;
            break;
          }
          if (C->Branches == 0 && !covers(C->S, P.S, LiveIn[P.Pc], &C->Precise, &C->Live))
            ++C->Misses;
          else if (C->Branches == 0) {
            ++C->Hits;
            // This path is safe for the reasons C's continuation was: what
            // mattered there matters on this path's way here.
            // (What a value decided there was decided here too; what a loop
            // head marked is only marked.)
            if (P.Tail != NoNode) {
              for (bool Marked : {false, true}) {
                PreciseSet M = Marked ? C->Precise : C->Decided;
                backtrackInsn(Insns[Trace[P.Tail].Pc], Trace[P.Tail], M,
                              unsigned(P.S.Frames.size()));
                LoopMarking = Marked;
                propagatePrecision(P.Tail, M);
              }
              LoopMarking = false;
            }
            // And the stack C's continuation reads, this path's would too.
            for (unsigned F = 0; F < MaxCallDepth; ++F)
              if (C->Live[F])
                markStackRead(F, C->Live[F]);
            Pruned = true;
            break;
          }
          if (C->Branches > 0 && !LoopHead && !IterNext && C->S == P.S) {
            Res.Error = fail(P.Pc, "infinite loop: pc " + std::to_string(P.Pc) +
                                       " is reached again in the same state",
                             "terminates");
            return Res;
          }
        }
        if (Pruned) {
          ++Res.PathsPruned;
          break;
        }
        // As the kernel: stored states that keep failing to prune make room
        // for new ones (whose states are freed: they are kept only for the
        // precision marks that pass through them).
        auto &List = StatesAt[P.Pc];
        std::erase_if(List, [](Checkpoint *C) {
          bool Evict = C->Branches == 0 && C->Misses > C->Hits * 3 + 3;
          if (Evict)
            C->S = State(); // kept only for precision marks passing through
          return Evict;
        });
        if (List.size() < MaxStatesPerPc && Res.StatesStored < MaxStatesStored) {
          Checkpoints.push_back(Checkpoint{P.S, P.Pc, 1, P.Last, {}, {}});
          Checkpoints.back().WrittenBefore = P.Written;
          P.Written = {};
          P.Last = &Checkpoints.back();
          List.push_back(P.Last);
          CheckpointList.push_back(P.Last);
          P.PendingCheckpoint = uint32_t(CheckpointList.size());
          ++Res.StatesStored;
        }
      }
      if (auto E = step(P, Work, Ended)) {
        Res.Error = E;
        return Res;
      }
    }
    finishPath(P.Last);
  }
  Res.UninitStackReads.assign(UninitStackReads.begin(), UninitStackReads.end());
  return Res;
}

} // namespace detail

using detail::Verifier;

bool isGplCompatible(const std::string &License) {
  for (const char *L : {"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL",
                        "Dual MIT/GPL", "Dual MPL/GPL"})
    if (License == L)
      return true;
  return false;
}

Result verify(const object::ProgramSpec &Prog, const std::vector<object::MapSpec> &Maps,
              const Options &Opts) {
  Verifier V(Prog, Maps, Opts);
  return V.run();
}

std::string formatDiagnostic(const Diagnostic &D, const object::ProgramSpec &Prog) {
  std::string Where;
  if (const object::LineInfo *L = Prog.lineFor(D.Pc); L && !L->File.empty()) {
    std::string File = L->File;
    if (auto Slash = File.rfind('/'); Slash != std::string::npos)
      File = File.substr(Slash + 1);
    Where = File + ":" + std::to_string(L->Line) + ": ";
  }
  return Where + "pc " + std::to_string(D.Pc) + ": " + D.Reason +
         (D.Obligation.empty() ? "" : " (" + D.Obligation + ")");
}

} // namespace ebpfgpu::verifier

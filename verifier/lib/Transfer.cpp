// SPDX-License-Identifier: Apache-2.0
//
// The verifier's transfer functions: what an ALU instruction, pointer
// arithmetic, a branch (and the ranges each side of it learns), a local
// call and an exit do to the abstract state. The walk that applies them
// is Verifier.cpp's.

#include "VerifierEngine.h"

namespace ebpfgpu::verifier {

using isa::Insn;

namespace detail {

namespace {

/// The most a packet pointer may move in one addition (the kernel's
/// MAX_PACKET_OFF).
constexpr int64_t MaxPacketOff = 0xffff;
/// The largest variable offset of a map value pointer (the kernel's
/// BPF_MAX_VAR_OFF): Cilium's maglev tables are 128 KiB map values.
constexpr int64_t MaxVarOff = int64_t(1) << 29;

/// Leaves the top frame (a subprogram's or a callback's exit): pops it,
/// gives the caller back its r6-r10, and forgets every pointer into the
/// popped frame (registers, and spills of the frames below). Returns it.
Frame leaveFrame(State &S) {
  Frame Callee = std::move(S.Frames.back());
  S.Frames.pop_back();
  for (unsigned R = 6; R <= 10; ++R)
    S.Regs[R] = Callee.SavedRegs[R - 6];
  auto Kill = [&](Reg &R) {
    if (R.K == Kind::Stack && R.Aux >= S.Frames.size())
      R = Reg();
  };
  for (Reg &R : S.Regs)
    Kill(R);
  for (Frame &F : S.Frames)
    for (auto &[Off, R] : F.Spills)
      Kill(R);
  return Callee;
}

} // namespace

MaybeDiag Verifier::readReg(uint32_t Pc, const State &S, unsigned R) const {
  if (S.Regs[R].K == Kind::NotInit)
    return fail(Pc, regName(R) + " is read before it is written", "initialized(" + regName(R) + ")");
  return std::nullopt;
}

void Verifier::setLinked(State &S, uint32_t Id, const Reg &Value) {
  if (Id == 0)
    return;
  auto Apply = [&](Reg &R) {
    if (R.K == Kind::Scalar && R.Id == Id)
      R = Value; // copies share their bounds (and the id)
  };
  for (Reg &R : S.Regs)
    Apply(R);
  for (Frame &F : S.Frames) {
    for (auto &[Off, R] : F.Spills)
      Apply(R);
    for (Reg &R : F.SavedRegs)
      Apply(R);
    for (Reg &R : F.SavedArgs)
      Apply(R);
  }
}

void Verifier::nullCheck(State &S, uint32_t Id, bool IsNull) {
  auto Apply = [&](Reg &R) {
    if ((R.K == Kind::MapValueOrNull || R.K == Kind::MapPtrOrNull ||
         R.K == Kind::AllocMemOrNull || R.K == Kind::DynptrSliceOrNull) &&
        R.Id == Id) {
      if (IsNull) {
        // A failed reservation holds nothing to release.
        if (R.K == Kind::AllocMemOrNull)
          S.Refs.erase(R.Ref);
        R = Reg::constant(0);
      } else {
        R.K = R.K == Kind::MapValueOrNull      ? Kind::MapValue
              : R.K == Kind::AllocMemOrNull    ? Kind::AllocMem
              : R.K == Kind::DynptrSliceOrNull ? Kind::DynptrSlice
                                               : Kind::MapPtr;
        // A value holding a bpf_spin_lock keeps the lookup's id: the
        // unlock must name the value the lock was taken in (the kernel's
        // reg->id for such values).
        if (R.K != Kind::MapValue || Maps[R.Aux].SpinLockOff < 0)
          R.Id = 0;
      }
    }
  };
  for (Reg &R : S.Regs)
    Apply(R);
  for (Frame &F : S.Frames) {
    for (auto &[Off, R] : F.Spills)
      Apply(R);
    for (Reg &R : F.SavedRegs)
      Apply(R);
    for (Reg &R : F.SavedArgs)
      Apply(R);
  }
}

MaybeDiag Verifier::pointerArith(uint32_t Pc, const Insn &I, Reg &D, const Reg &Src,
                                 unsigned SrcReg) {
  std::string Dn = regName(I.Dst);
  bool IsSub = I.op() == isa::Sub;
  if (Src.isPointer()) {
    // Pointer difference: the kernel allows it between packet pointers (and
    // within the stack); the result is a scalar.
    bool SamePacket = (D.K == Kind::Packet || D.K == Kind::PacketEnd || D.K == Kind::PacketMeta) &&
                      (Src.K == Kind::Packet || Src.K == Kind::PacketEnd || Src.K == Kind::PacketMeta);
    if (IsSub && (SamePacket || (D.K == Src.K && D.K == Kind::Stack))) {
      D = Reg::unknown();
      return std::nullopt;
    }
    return fail(Pc, "arithmetic between two pointers (" + Dn + " " + kindName(D.K) + ", " +
                        regName(SrcReg) + " " + kindName(Src.K) + ") is not allowed",
                "pointer_arithmetic");
  }
  switch (D.K) {
  case Kind::Ctx:
  case Kind::Stack:
  case Kind::Packet:
  case Kind::PacketMeta:
  case Kind::MapValue:
  case Kind::RawMem:
  case Kind::AllocMem:
  case Kind::IterElem:
  case Kind::MapKey:
  case Kind::DynptrSlice:
    break;
  default:
    return fail(Pc, "arithmetic on a " + std::string(kindName(D.K)) + " (" + Dn +
                        ") is not allowed", "pointer_arithmetic");
  }
  if (Src.isConst()) {
    int64_t C = int64_t(Src.UMin);
    int64_t NewOff;
    if ((IsSub ? __builtin_sub_overflow(D.Off, C, &NewOff) : __builtin_add_overflow(D.Off, C, &NewOff)) ||
        NewOff > (int64_t(1) << 29) || NewOff < -(int64_t(1) << 29))
      return fail(Pc, "pointer offset of " + Dn + " out of range", "pointer_arithmetic");
    D.Off = NewOff;
    return std::nullopt;
  }
  if (D.K == Kind::Ctx)
    return fail(Pc, "variable offset into the context (" + Dn + ")", "valid_access(ctx)");
  if (D.K == Kind::PacketMeta)
    return fail(Pc, "variable offset into packet metadata (" + Dn + ")", "valid_access(meta)");
  // Variable part: bounded, and for packets non-negative (as the kernel).
  int64_t Lo = IsSub ? -Src.SMax : Src.SMin, Hi = IsSub ? -Src.SMin : Src.SMax;
  int64_t Limit = D.K == Kind::MapValue ? MaxVarOff : MaxPacketOff;
  if (Src.SMin == S64Min || Src.SMax == S64Max || Src.SMax > Limit || Src.SMin < -Limit ||
      D.SMin + Lo < -MaxVarOff || D.SMax + Hi > MaxVarOff)
    return fail(Pc, "offset added to " + Dn + " (" + kindName(D.K) + ") is unbounded (" +
                        regName(SrcReg) + " = " + Src.str() + ")",
                "bounded(" + regName(SrcReg) + ")");
  D.SMin += Lo;
  D.SMax += Hi;
  if (D.K == Kind::Packet)
    D.Id = freshId();
  return std::nullopt;
}

MaybeDiag Verifier::alu(uint32_t Pc, const Insn &I, State &S) {
  bool Is64 = I.cls() == isa::ALU64;
  uint8_t Op = I.op();
  Reg &D = S.Regs[I.Dst];
  bool Unary = Op == isa::Neg || Op == isa::End;
  bool IsMov = Op == isa::Mov;
  if (!IsMov)
    if (auto E = readReg(Pc, S, I.Dst))
      return E;
  Reg Src;
  if (Unary) {
    Src = Reg::constant(0);
  } else if (I.usesRegSource()) {
    if (auto E = readReg(Pc, S, I.Src))
      return E;
    Src = S.Regs[I.Src];
  } else {
    Src = Reg::constant(uint64_t(int64_t(I.Imm)));
    if (!Is64)
      Src = Reg::constant(uint32_t(I.Imm));
  }
  if (IsMov && I.Off == 0) {
    if (Is64) {
      if (Src.K == Kind::Scalar && !Src.isConst()) {
        // Link copies so a bounds check on one applies to the other.
        if (Src.Id == 0 && I.usesRegSource())
          S.Regs[I.Src].Id = Src.Id = freshId();
      }
      D = Src;
      return std::nullopt;
    }
    if (Src.isPointer())
      return fail(Pc, "32-bit move of a pointer (" + regName(I.Src) + ", " + kindName(Src.K) +
                          ") is not allowed", "pointer_arithmetic");
    if (Src.K == Kind::Scalar && !Src.isConst() && Src.UMax <= 0xffffffffull) {
      // A value that fits in 32 bits is copied whole: link the copies, as
      // the kernel does for such moves.
      if (Src.Id == 0 && I.usesRegSource())
        S.Regs[I.Src].Id = Src.Id = freshId();
      D = Src;
      return std::nullopt;
    }
    D = truncate32(Src);
    return std::nullopt;
  }
  if (Op == isa::End) {
    if (D.isPointer())
      return fail(Pc, "byte swap of a pointer (" + regName(I.Dst) + ") is not allowed",
                  "pointer_arithmetic");
    // ALU64 (bswap) and to-big-endian swap on this little-endian machine;
    // to-little-endian only truncates.
    D = byteSwap(D, unsigned(I.Imm), I.cls() == isa::ALU64 || I.usesRegSource());
    return std::nullopt;
  }
  if (D.isPointer() || Src.isPointer()) {
    auto InPacket = [](const Reg &R) {
      return R.K == Kind::Packet || R.K == Kind::PacketEnd || R.K == Kind::PacketMeta;
    };
    if (!Is64 && Op == isa::Sub && InPacket(D) && InPacket(Src)) {
      // `(int)(data_end - data)` as clang emits it for ALU32: the low half
      // of a packet length, which the kernel allows too.
      D = Reg::scalar(0, 0xffffffffull, 0, 0xffffffffll);
      return std::nullopt;
    }
    if (!Is64)
      return fail(Pc, "32-bit arithmetic on a pointer (" +
                          regName(D.isPointer() ? I.Dst : I.Src) + ") is not allowed",
                  "pointer_arithmetic");
    if (Op == isa::Add && !D.isPointer()) {
      // scalar + pointer: the result is the pointer moved by the scalar.
      markPrecise(S, I.Dst);
      Reg Scalar = D;
      D = Src;
      return pointerArith(Pc, I, D, Scalar, I.Dst);
    }
    if ((Op == isa::Add || Op == isa::Sub) && D.isPointer()) {
      if (I.usesRegSource())
        markPrecise(S, I.Src);
      return pointerArith(Pc, I, D, Src, I.Src);
    }
    return fail(Pc, "operation on a pointer (" + regName(D.isPointer() ? I.Dst : I.Src) + ", " +
                        kindName(D.isPointer() ? D.K : Src.K) + ") is not allowed",
                "pointer_arithmetic");
  }
  D = scalarAlu(Op, D, Src, Is64, I.Off);
  D.Id = 0;
  return std::nullopt;
}

MaybeDiag Verifier::localCall(uint32_t Pc, const Insn &I, State &S) {
  uint32_t Target = uint32_t(int64_t(Pc) + 1 + I.Imm);
  if (S.Frames.size() >= MaxCallDepth)
    return fail(Pc, "call depth exceeds " + std::to_string(MaxCallDepth) + " frames",
                "call_depth");
  if (Target == 0)
    return fail(Pc, "recursive call to the function at pc 0 is not allowed", "no_recursion");
  for (const Frame &F : S.Frames)
    if (F.Entry == Target)
      return fail(Pc, "recursive call to the function at pc " + std::to_string(Target) +
                          " is not allowed", "no_recursion");
  Frame Callee;
  Callee.ReturnPc = Pc + 1;
  Callee.Entry = Target;
  for (unsigned R = 6; R <= 10; ++R)
    Callee.SavedRegs[R - 6] = S.Regs[R];
  S.Frames.push_back(Callee);
  // The callee's frame is new: no checkpoint before the call reads it.
  CurPath->Written[S.Frames.size() - 1] = U64Max;
  for (unsigned R = 6; R <= 9; ++R)
    S.Regs[R] = Reg();
  S.Regs[0] = Reg();
  S.Regs[isa::FramePointer] = Reg::pointer(Kind::Stack, 0, uint32_t(S.Frames.size() - 1));
  return std::nullopt;
}

MaybeDiag Verifier::exitInsn(uint32_t Pc, State &S, bool &Ended, uint32_t &NextPc) {
  const Reg &R0 = S.Regs[0];
  if (S.Frames.size() == 1) {
    if (auto E = readReg(Pc, S, 0))
      return E;
    if (R0.isPointer())
      return fail(Pc, "pointer leak: r0 is a " + std::string(kindName(R0.K)) + " at exit",
                  "no_pointer_leak(r0)");
    if (!S.Refs.empty())
      return fail(Pc, "unreleased reference: " + unreleased(S, true) + " on this path",
                  "released(ref " + std::to_string(S.Refs.begin()->first) + ")");
    if (S.Lock)
      return fail(Pc, "BPF_EXIT instruction in main prog cannot be used inside "
                      "bpf_spin_lock-ed region: bpf_spin_unlock is missing on this path",
                  "unlocked(exit)");
    if (S.Rcu)
      return fail(Pc, "BPF_EXIT instruction in main prog cannot be used inside "
                      "bpf_rcu_read_lock-ed region: bpf_rcu_read_unlock is missing on this path",
                  "rcu_unlocked(exit)");
    Ended = true;
    return std::nullopt;
  }
  if (S.Frames.back().Callback)
    return callbackExit(Pc, S, NextPc);
  // A subprogram's exit hands r0 back to its caller as it is, as the
  // kernel's prepare_func_exit does: uninitialised (clang leaves r0 unwritten
  // in a static function whose constant result it propagated into its
  // callers, as test_xdp_noinline's swap_mac_and_send), or a pointer (a
  // void function's last helper result, a map value it looked up); the
  // caller is checked where it uses it. Not a stack pointer (the kernel
  // refuses it too), nor the context: the lifter rewrites context loads only
  // where it knows the base is the context, and a call's result is unknown.
  if (R0.K == Kind::Stack || R0.K == Kind::Ctx)
    return fail(Pc, "r0 is a " + std::string(kindName(R0.K)) +
                        " at a subprogram's exit: it may not be returned to the caller",
                "no_pointer_return(r0)");
  Frame Callee = leaveFrame(S);
  for (unsigned R = 1; R <= 5; ++R)
    S.Regs[R] = Reg();
  NextPc = Callee.ReturnPc;
  return std::nullopt;
}

/// A callback's exit (bpf_loop): r0 must be 0 (go on) or 1 (stop), as the
/// kernel checks; the path goes back to the helper call, which may call
/// the callback again, with the caller's registers as they were.
MaybeDiag Verifier::callbackExit(uint32_t Pc, State &S, uint32_t &NextPc) {
  if (auto E = readReg(Pc, S, 0))
    return E;
  const Reg &R0 = S.Regs[0];
  if (R0.K != Kind::Scalar)
    return fail(Pc, "r0 is a " + std::string(kindName(R0.K)) +
                        " at a callback's exit: it must return 0 or 1",
                "callback_return(r0) in [0, 1]");
  markPrecise(S, 0);
  if (R0.UMax > 1)
    return fail(Pc, "a callback must return 0 or 1: r0 is " + R0.str() + " at its exit",
                "callback_return(r0) in [0, 1]");
  // The caller's r1-r4 are what its call had (they point into frames
  // below the callback's, which leaveFrame keeps).
  Frame Callee = leaveFrame(S);
  S.Regs[0] = Reg();
  for (unsigned R = 1; R <= 4; ++R)
    S.Regs[R] = Callee.SavedArgs[R - 1];
  S.Regs[5] = Reg();
  ++S.Frames.back().Turns;
  Trace[CurNode].CallbackExit = true;
  NextPc = Callee.ReturnPc;
  return std::nullopt;
}

bool Verifier::refineScalar(State &S, unsigned R, uint8_t Op, const Reg &Other, bool Is32) {
  Reg V = S.Regs[R];
  if (!refineScalarBounds(V, Op, Other, Is32))
    return false;
  S.Regs[R] = V;
  setLinked(S, V.Id, V);
  return true;
}

uint8_t negate(uint8_t Op) {
  switch (Op) {
  case isa::Jeq: return isa::Jne;
  case isa::Jne: return isa::Jeq;
  case isa::Jgt: return isa::Jle;
  case isa::Jle: return isa::Jgt;
  case isa::Jge: return isa::Jlt;
  case isa::Jlt: return isa::Jge;
  case isa::Jsgt: return isa::Jsle;
  case isa::Jsle: return isa::Jsgt;
  case isa::Jsge: return isa::Jslt;
  case isa::Jslt: return isa::Jsge;
  case isa::Jset: return NotJset;
  default: return Op;
  }
}

uint8_t swapOperands(uint8_t Op) {
  switch (Op) {
  case isa::Jgt: return isa::Jlt;
  case isa::Jlt: return isa::Jgt;
  case isa::Jge: return isa::Jle;
  case isa::Jle: return isa::Jge;
  case isa::Jsgt: return isa::Jslt;
  case isa::Jslt: return isa::Jsgt;
  case isa::Jsge: return isa::Jsle;
  case isa::Jsle: return isa::Jsge;
  default: return Op;
  }
}

void Verifier::branch(uint32_t Pc, const Insn &I, State &S, std::optional<State> &Taken,
                      std::optional<State> &NotTaken) {
  bool Is32 = I.cls() == isa::JMP32;
  uint8_t Op = I.op();
  Reg D = S.Regs[I.Dst];
  Reg Src = I.usesRegSource() ? S.Regs[I.Src] : Reg::constant(uint64_t(int64_t(I.Imm)));
  Taken = S;
  NotTaken = S;
  // Packet bounds: comparing a packet pointer with data_end proves bytes.
  // A strict outcome (ptr < end) proves the byte at ptr too: Off + 1 bytes,
  // as the kernel's find_good_pkt_pointers with range_right_open, which
  // (and so this verifier) learns nothing from a strict one at offset 0,
  // nor from a pointer that may lie past MAX_PACKET_OFF (its overflow
  // guard: a program the kernel refuses is refused here too).
  auto Prove = [&](std::optional<State> &St, const Reg &P, bool Open) {
    if ((Open && P.Off <= 0) || P.SMax > MaxPacketOff || P.SMax + P.Off > MaxPacketOff)
      return;
    int64_t Bytes = Open ? P.Off + 1 : P.Off;
    if (P.K == Kind::Packet) {
      int64_t &Range = St->PacketRange[P.Id];
      Range = std::max(Range, Bytes);
    } else if (P.K == Kind::PacketMeta) {
      St->MetaRange = std::max(St->MetaRange, Bytes);
    }
  };
  bool PktVsEnd = !Is32 && ((D.K == Kind::Packet && Src.K == Kind::PacketEnd) ||
                            (D.K == Kind::PacketEnd && Src.K == Kind::Packet) ||
                            (D.K == Kind::PacketMeta && Src.K == Kind::Packet && Src.Id == 0 && Src.Off == 0) ||
                            (D.K == Kind::Packet && D.Id == 0 && D.Off == 0 && Src.K == Kind::PacketMeta));
  if (PktVsEnd) {
    bool PtrLeft = D.K == Kind::PacketMeta || (D.K == Kind::Packet && Src.K != Kind::PacketMeta);
    const Reg &Ptr = PtrLeft ? D : Src;
    // Normalise to "ptr OP end": which outcome means ptr <= end (or < end)?
    uint8_t O = PtrLeft ? Op : swapOperands(Op);
    if (O == isa::Jgt || O == isa::Jge)
      Prove(NotTaken, Ptr, O == isa::Jge);
    else if (O == isa::Jlt || O == isa::Jle)
      Prove(Taken, Ptr, O == isa::Jlt);
    return;
  }
  // Null checks of map lookups.
  bool IsZero = Src.isConst() && Src.UMin == 0;
  bool OrNull = D.K == Kind::MapValueOrNull || D.K == Kind::MapPtrOrNull ||
                D.K == Kind::AllocMemOrNull || D.K == Kind::DynptrSliceOrNull;
  if (OrNull && IsZero && (Op == isa::Jeq || Op == isa::Jne)) {
    nullCheck(*Taken, D.Id, Op == isa::Jeq);
    nullCheck(*NotTaken, D.Id, Op != isa::Jeq);
    return;
  }
  if (D.isPointer() && !OrNull && IsZero && (Op == isa::Jeq || Op == isa::Jne)) {
    (Op == isa::Jeq ? Taken : NotTaken).reset(); // a valid pointer is never null
    return;
  }
  if (D.K != Kind::Scalar || Src.K != Kind::Scalar)
    return;
  // Scalars: refine each side against the other's bounds (and known bits).
  if (!refineScalar(*Taken, I.Dst, Op, Src, Is32))
    Taken.reset();
  if (!refineScalar(*NotTaken, I.Dst, negate(Op), Src, Is32))
    NotTaken.reset();
  if (I.usesRegSource()) {
    if (Taken && !refineScalar(*Taken, I.Src, swapOperands(Op), D, Is32))
      Taken.reset();
    if (NotTaken && !refineScalar(*NotTaken, I.Src, swapOperands(negate(Op)), D, Is32))
      NotTaken.reset();
  }
}

} // namespace detail

} // namespace ebpfgpu::verifier

// SPDX-License-Identifier: Apache-2.0
//
// The verifier's XDP dynptrs, as the kernel's (process_dynptr_func,
// mark_stack_slots_dynptr, destroy_if_dynptr_stack_slot, the slices of
// check_kfunc_call). A dynptr is a kind of stack object: two slots
// (Kind::Dynptr, Off 0 and 8) at a constant, 8-aligned offset that
// bpf_dynptr_from_xdp writes whole, which only the dynptr kfuncs and
// helpers read, and which a store over any of its bytes destroys (an XDP
// dynptr holds no reference, so nothing is leaked). A slice is the
// packet's bytes, of the constant size the call asked for, or null; it is
// a packet pointer to helpers that move the packet (movePacket) and goes
// with its dynptr when that is destroyed.

#include "VerifierEngine.h"

namespace ebpfgpu::verifier::detail {

namespace {

std::string stackAt(int64_t Off) {
  return "r10" + std::string(Off < 0 ? "-" : "+") + std::to_string(Off < 0 ? -Off : Off);
}

} // namespace

void Verifier::destroyDynptrs(State &S, Frame &F, int64_t Lo, int64_t Hi) {
  std::vector<std::pair<unsigned, uint32_t>> Gone; // first byte, id
  for (const auto &[At, R] : F.Spills) {
    int64_t First = int64_t(At) - R.Off;
    if (R.K == Kind::Dynptr && R.Off == 0 && First < Hi && Lo < First + 16)
      Gone.push_back({At, R.Id});
    else if (R.K == Kind::Dynptr && R.Off == 8 && First < Hi && Lo < First + 16 &&
             !F.Spills.count(unsigned(First)))
      Gone.push_back({unsigned(First), R.Id}); // a half left alone: still gone
  }
  if (Gone.empty())
    return;
  for (auto [First, Id] : Gone) {
    F.Spills.erase(First);
    F.Spills.erase(First + 8);
    for (unsigned X = First; X < First + 16; ++X) {
      F.Bytes[X] = Slot::Uninit;
      F.Known[X] = -1;
    }
  }
  // Its slices go with it.
  auto Drop = [&](Reg &R) {
    if (R.K != Kind::DynptrSlice && R.K != Kind::DynptrSliceOrNull)
      return;
    for (auto [First, Id] : Gone)
      if (R.Ref == Id)
        R = Reg();
  };
  for (Reg &R : S.Regs)
    Drop(R);
  for (Frame &G : S.Frames) {
    for (auto &[Off, R] : G.Spills)
      Drop(R);
    for (Reg &R : G.SavedRegs)
      Drop(R);
    for (Reg &R : G.SavedArgs)
      Drop(R);
  }
}

MaybeDiag Verifier::dynptrObject(uint32_t Pc, State &S, unsigned R, const std::string &Arg,
                                 unsigned &At) {
  const Reg &V = S.Regs[R];
  if (V.K != Kind::Stack || V.hasVarOff() || V.Off % 8 != 0 ||
      V.Off < -int64_t(isa::MaxStackBytes) || V.Off + 16 > 0)
    return fail(Pc,
                Arg + " must point to a dynptr's 16 bytes on the stack at a constant "
                      "8-aligned offset, is " +
                    V.str(),
                "dynptr(" + regName(R) + ")");
  At = unsigned(V.Off + int64_t(isa::MaxStackBytes));
  return std::nullopt;
}

MaybeDiag Verifier::dynptrArg(uint32_t Pc, State &S, unsigned R, const std::string &Arg,
                              uint32_t &Id) {
  unsigned At;
  if (auto E = dynptrObject(Pc, S, R, Arg, At))
    return E;
  const Reg &V = S.Regs[R];
  markStackRead(V.Aux, slotMask(At, At + 16));
  Frame &F = frameOf(S, V);
  auto First = F.Spills.find(At), Second = F.Spills.find(At + 8);
  if (First == F.Spills.end() || First->second.K != Kind::Dynptr || First->second.Off != 0 ||
      Second == F.Spills.end() || Second->second.K != Kind::Dynptr ||
      Second->second.Id != First->second.Id)
    return fail(Pc,
                Arg + " must be an initialized dynptr (made by bpf_dynptr_from_xdp); " +
                    stackAt(V.Off) + " holds none",
                "initialized_dynptr(stack[" + std::to_string(V.Off) + "])");
  Id = First->second.Id;
  return std::nullopt;
}

MaybeDiag Verifier::dynptrKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K) {
  auto ArgOf = [&](unsigned R) {
    return K.Name + " argument " + std::to_string(R) + " (r" + std::to_string(R) + ")";
  };
  unsigned Args = K.NumArgs;
  for (unsigned R = 1; R <= Args; ++R)
    if (auto E = readReg(Pc, S, R))
      return E;
  auto Scalar = [&](unsigned R) -> MaybeDiag {
    if (S.Regs[R].K != Kind::Scalar)
      return fail(Pc, ArgOf(R) + " must be a scalar, is a " + kindName(S.Regs[R].K),
                  "type(r" + std::to_string(R) + ") == scalar");
    return std::nullopt;
  };
  Reg R0;
  // Makes a dynptr in the 16 bytes of stack r`Obj` points to (from_xdp's
  // ptr__uninit, clone's clone__uninit).
  auto Make = [&](unsigned Obj) -> MaybeDiag {
    unsigned At;
    if (auto E = dynptrObject(Pc, S, Obj, ArgOf(Obj), At))
      return E;
    const Reg &V = S.Regs[Obj];
    Frame &F = frameOf(S, V);
    for (const auto &[B, Spilled] : F.Spills)
      if (Spilled.K == Kind::Iter && B < At + 16 && At < B + 8)
        return fail(Pc, ArgOf(Obj) + ": " + stackAt(V.Off) +
                            " overlaps the iterator at " +
                            stackAt(int64_t(B) - int64_t(isa::MaxStackBytes)),
                    "iterator(stack[" +
                        std::to_string(int64_t(B) - int64_t(isa::MaxStackBytes)) + "])");
    // The kernel lets a dynptr be made again over one that holds no
    // reference (its slices go); whatever else was there is gone.
    destroyDynptrs(S, F, At, At + 16);
    leaveResidue(F, At, At + 16, true);
    for (auto It = F.Spills.begin(); It != F.Spills.end();)
      It = (It->first < At + 16 && At < It->first + 8) ? F.Spills.erase(It) : std::next(It);
    Reg D = Reg::pointer(Kind::Dynptr, 0);
    D.Id = freshId();
    F.Spills[At] = D;
    D.Off = 8;
    F.Spills[At + 8] = D;
    for (unsigned X = At; X < At + 16; ++X) {
      F.Bytes[X] = Slot::Spill;
      F.Known[X] = -1;
    }
    CurPath->Written[V.Aux] |= slotMask(At, At + 16);
    return std::nullopt;
  };
  using KR = platform::KfuncRole;
  const Reg IntResult = Reg::scalar(0, 0xffffffffull, 0, 0xffffffffll); // an int, zero-extended
  if (K.Role == KR::DynptrFromXdp) {
    const Reg &Ctx = S.Regs[1];
    if (Ctx.K != Kind::Ctx || Ctx.Off != 0)
      return fail(Pc, ArgOf(1) + " must be the context pointer, is a " + kindName(Ctx.K),
                  "type(r1) == ctx");
    if (auto E = Scalar(2))
      return E;
    if (auto E = Make(K.ObjReg))
      return E;
    R0 = IntResult; // 0, or -EINVAL
  } else if (K.Role == KR::DynptrClone) {
    // The clone is a dynptr of its own (the kernel gives it a fresh id
    // and the parent's ref_obj_id, none for XDP's): its slices are its
    // own, and destroying one leaves the other.
    uint32_t Id;
    if (auto E = dynptrArg(Pc, S, 1, ArgOf(1), Id))
      return E;
    if (auto E = Make(2))
      return E;
    R0 = IntResult; // 0, or -EINVAL (a null parent)
  } else if (K.Role == KR::DynptrCopy || K.Role == KR::DynptrMemset) {
    // bpf_dynptr_copy(dst, dst_off, src, src_off, size), bpf_dynptr_memset
    // (p, offset, size, val): initialised dynptrs and scalars; the packet
    // changes under them (no pointer moves: slices stay valid).
    bool Copy = K.Role == KR::DynptrCopy;
    for (unsigned R = 1; R <= Args; ++R) {
      uint32_t Id;
      if (R == 1 || (Copy && R == 3)) {
        if (auto E = dynptrArg(Pc, S, R, ArgOf(R), Id))
          return E;
      } else if (auto E = Scalar(R)) {
        return E;
      }
    }
    Res.WritesPacket = true;
    R0 = IntResult;
  } else {
    uint32_t Id;
    if (auto E = dynptrArg(Pc, S, K.ObjReg, ArgOf(K.ObjReg), Id))
      return E;
    // bpf_dynptr_size, _is_null, _is_rdonly: a scalar (unknown, as the
    // kernel's); _adjust: the same, its start and end scalars. The dynptr
    // stays what it was to the verifier, its slices too (the kernel's).
    if (Args < 4) {
      for (unsigned R = 2; R <= Args; ++R)
        if (auto E = Scalar(R))
          return E;
      S.Regs[0] = Reg::unknown();
      for (unsigned R = 1; R <= 5; ++R)
        S.Regs[R] = Reg();
      return std::nullopt;
    }
    if (auto E = Scalar(2))
      return E;
    // buffer__szk: the kernel's constant-size argument.
    markPrecise(S, 4);
    const Reg &Size = S.Regs[4];
    if (!Size.isConst())
      return fail(Pc, ArgOf(4) + ", the slice's size, must be a known constant, is " + Size.str(),
                  "constant(r4)");
    // buffer__opt: null, or memory of that size the kernel may copy into.
    const Reg &Buf = S.Regs[3];
    if (!(Buf.isConst() && Buf.UMin == 0)) {
      if (Buf.K != Kind::Stack && Buf.K != Kind::MapValue && Buf.K != Kind::AllocMem)
        return fail(Pc,
                    ArgOf(3) + ", the buffer, must be null or point to the stack, a map value or "
                               "a ring buffer record, is " +
                        Buf.str(),
                    "type(r3) == mem|null");
      if (Size.UMin > 0) {
        if (Size.UMin > isa::MaxStackBytes && Buf.K == Kind::Stack)
          return fail(Pc, ArgOf(3) + ": a " + std::to_string(Size.UMin) +
                              "-byte buffer does not fit the stack",
                      "valid_access(r3, width=" + std::to_string(Size.UMin) + ") for write");
        if (auto E = access(Pc, S, 3, 0, unsigned(std::min<uint64_t>(Size.UMin, MaxSlice)), true,
                            "kfunc access")) {
          E->Reason = ArgOf(3) + ": " + E->Reason;
          return E;
        }
        // The runtime never copies into it (its packets are linear), but
        // the kernel may: its bytes count as written, as the kernel's
        // (the runtime zeroes every frame, so they read as zeros).
        if (Buf.K == Kind::Stack)
          helperFillsStack(S, Buf, Size.UMin);
      }
    }
    bool Rdwr = K.Role == platform::KfuncRole::DynptrSliceRdwr;
    R0 = Reg::pointer(Kind::DynptrSliceOrNull, 0,
                      uint32_t(std::min<uint64_t>(Size.UMin, MaxSlice)) |
                          (Rdwr ? SliceWritable : 0));
    R0.Id = freshId();
    R0.Ref = Id;
    // As the kernel's seen_direct_write: the program may write the packet.
    Res.WritesPacket |= Rdwr;
  }
  S.Regs[0] = R0;
  for (unsigned R = 1; R <= 5; ++R)
    S.Regs[R] = Reg();
  return std::nullopt;
}

} // namespace ebpfgpu::verifier::detail

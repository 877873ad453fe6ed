// SPDX-License-Identifier: Apache-2.0
//
// Abstract values: normalisation, coverage, scalar interval arithmetic and
// printing.

#include "AbstractState.h"
#include "Precision.h"

#include "ebpf-gpu/ISA/Semantics.h"

#include <algorithm>
#include <bit>
#include <set>
#include <sstream>

namespace ebpfgpu::verifier {

const char *kindName(Kind K) {
  switch (K) {
  case Kind::NotInit: return "uninitialised";
  case Kind::Scalar: return "scalar";
  case Kind::Ctx: return "ctx";
  case Kind::Stack: return "stack pointer";
  case Kind::Packet: return "packet pointer";
  case Kind::PacketEnd: return "packet end";
  case Kind::PacketMeta: return "packet metadata pointer";
  case Kind::MapPtr: return "map reference";
  case Kind::MapValue: return "map value pointer";
  case Kind::MapValueOrNull: return "map value pointer or null";
  case Kind::AllocMem: return "ring buffer record";
  case Kind::AllocMemOrNull: return "ring buffer record or null";
  case Kind::MapPtrOrNull: return "map reference or null";
  case Kind::RawMem: return "memory pointer";
  case Kind::FuncPtr: return "function pointer";
  case Kind::Iter: return "iterator";
  case Kind::IterElem: return "iterator element pointer";
  case Kind::MapKey: return "map key pointer";
  case Kind::Dynptr: return "dynptr";
  case Kind::DynptrSlice: return "dynptr slice";
  case Kind::DynptrSliceOrNull: return "dynptr slice or null";
  }
  return "?";
}

Reg Reg::scalar(uint64_t UMin, uint64_t UMax, int64_t SMin, int64_t SMax) {
  Reg R;
  R.K = Kind::Scalar;
  R.UMin = UMin;
  R.UMax = UMax;
  R.SMin = SMin;
  R.SMax = SMax;
  R.U32Min = 0;
  R.U32Max = UINT32_MAX;
  R.S32Min = INT32_MIN;
  R.S32Max = INT32_MAX;
  R.T = Tnum::unknown();
  R.normalize();
  return R;
}

namespace {

template <typename T> void tighten(T &Min, T &Max, T NewMin, T NewMax) {
  Min = std::max(Min, NewMin);
  Max = std::min(Max, NewMax);
}

} // namespace

// As the kernel's reg_bounds_sync: each view of the value (unsigned and
// signed, 64 and 32 bits, known bits) narrows the others.
bool Reg::normalize() {
  if (K != Kind::Scalar)
    return SMin <= SMax;
  constexpr uint64_t Low = 0xffffffffull, Sign = uint64_t(1) << 63;
  for (int Round = 0; Round < 3; ++Round) {
    if (UMin > UMax || SMin > SMax || U32Min > U32Max || S32Min > S32Max)
      return false;
    // Known bits from the unsigned ranges, then ranges from known bits.
    Tnum R64 = Tnum::range(UMin, UMax);
    Tnum R32 = Tnum::range(U32Min, U32Max);
    R32.Mask |= ~Low;
    if (!T.compatible(R64) || !T.compatible(R32))
      return false;
    T = T.intersect(R64).intersect(R32);
    tighten(UMin, UMax, T.min(), T.max());
    tighten(SMin, SMax, int64_t(T.Value | (T.Mask & Sign)), int64_t(T.Value | (T.Mask & ~Sign)));
    tighten(U32Min, U32Max, uint32_t(T.Value), uint32_t(T.Value | T.Mask));
    tighten(S32Min, S32Max, int32_t(uint32_t(T.Value) | (uint32_t(T.Mask) & 0x80000000u)),
            int32_t(uint32_t(T.Value) | (uint32_t(T.Mask) & 0x7fffffffu)));
    if (UMin > UMax || SMin > SMax || U32Min > U32Max || S32Min > S32Max)
      return false;
    // 64 bits to 32: values whose upper halves are equal.
    if ((UMin >> 32) == (UMax >> 32))
      tighten(U32Min, U32Max, uint32_t(UMin), uint32_t(UMax));
    if (((SMin >> 32) == (SMax >> 32) && int32_t(SMin) <= int32_t(SMax)) ||
        (SMin >= INT32_MIN && SMax <= INT32_MAX))
      tighten(S32Min, S32Max, int32_t(SMin), int32_t(SMax));
    // 32 bits to 64: the same, the other way.
    if ((UMin >> 32) == (UMax >> 32) && U32Min <= U32Max) {
      uint64_t Hi = UMin & ~Low;
      tighten(UMin, UMax, Hi | U32Min, Hi | U32Max);
    }
    // The value is its sign-extended low half. (Sound for any 32-bit bounds;
    // the kernel deduces it only for non-negative ones, and so do we, to
    // accept nothing it refuses.)
    if (SMin >= INT32_MIN && SMax <= INT32_MAX && S32Min >= 0)
      tighten(SMin, SMax, int64_t(S32Min), int64_t(S32Max));
    if ((SMin >> 32) == (SMax >> 32) && (S32Min >= 0 || S32Max < 0)) {
      uint64_t Hi = uint64_t(SMin) & ~Low;
      tighten(SMin, SMax, int64_t(Hi | uint32_t(S32Min)), int64_t(Hi | uint32_t(S32Max)));
    }
    // A signed range across 0 is two unsigned ranges, [0, SMax] and
    // [SMin, max]: an unsigned range that meets only one of them is in it.
    if (SMin < 0 && SMax >= 0) {
      bool Low = UMin <= uint64_t(SMax), High = UMax >= uint64_t(SMin);
      if (Low != High)
        tighten(UMin, UMax, Low ? uint64_t(0) : uint64_t(SMin), Low ? uint64_t(SMax) : U64Max);
    }
    if (S32Min < 0 && S32Max >= 0) {
      bool Low = U32Min <= uint32_t(S32Max), High = U32Max >= uint32_t(S32Min);
      if (Low != High)
        tighten(U32Min, U32Max, Low ? 0u : uint32_t(S32Min), Low ? uint32_t(S32Max) : UINT32_MAX);
    }
    // Signed and unsigned views of one half of the range.
    if (SMin >= 0 || SMax < 0)
      tighten(UMin, UMax, uint64_t(SMin), uint64_t(SMax));
    if (UMax <= uint64_t(S64Max) || UMin > uint64_t(S64Max))
      tighten(SMin, SMax, int64_t(UMin), int64_t(UMax));
    if (S32Min >= 0 || S32Max < 0)
      tighten(U32Min, U32Max, uint32_t(S32Min), uint32_t(S32Max));
    if (U32Max <= uint32_t(INT32_MAX) || U32Min > uint32_t(INT32_MAX))
      tighten(S32Min, S32Max, int32_t(U32Min), int32_t(U32Max));
  }
  return UMin <= UMax && SMin <= SMax && U32Min <= U32Max && S32Min <= S32Max;
}

std::string Reg::str() const {
  std::ostringstream O;
  switch (K) {
  case Kind::NotInit:
    return "?";
  case Kind::Scalar: {
    if (isConst()) {
      O << int64_t(UMin);
      return O.str();
    }
    // What the 32-bit bounds and known bits add to the 64-bit bounds.
    Reg Base = scalar(UMin, UMax, SMin, SMax);
    std::ostringstream Extra;
    if (U32Min != Base.U32Min || U32Max != Base.U32Max)
      Extra << ",u32:" << U32Min << ".." << U32Max;
    if (S32Min != Base.S32Min || S32Max != Base.S32Max)
      Extra << ",s32:" << S32Min << ".." << S32Max;
    if (!(T == Base.T))
      Extra << ",var:0x" << std::hex << T.Value << "/0x" << T.Mask << std::dec;
    if (UMin == 0 && UMax == U64Max && SMin == S64Min && SMax == S64Max && Extra.str().empty())
      O << "scalar";
    else
      O << "scalar(u" << UMin << ".." << UMax << ",s" << SMin << ".." << SMax << Extra.str()
        << ")";
    return O.str();
  }
  default:
    break;
  }
  O << kindName(K);
  if (K == Kind::MapPtr || K == Kind::MapValue || K == Kind::MapValueOrNull ||
      K == Kind::MapPtrOrNull || K == Kind::MapKey)
    O << " #" << Aux;
  if (K == Kind::Stack)
    O << " frame" << Aux;
  if (K == Kind::FuncPtr)
    O << " pc" << Aux;
  if (K == Kind::Iter)
    O << (Aux == IterActive ? " active" : " drained") << " ref" << Ref << " depth" << UMin;
  if (K == Kind::Packet && Id)
    O << " id" << Id;
  if (K == Kind::MapValueOrNull || K == Kind::MapPtrOrNull || K == Kind::AllocMemOrNull ||
      K == Kind::DynptrSliceOrNull)
    O << " null-id" << Id;
  if (K == Kind::Dynptr)
    O << " id" << Id;
  if (K == Kind::DynptrSlice || K == Kind::DynptrSliceOrNull)
    O << " size" << sliceSize(Aux) << ((Aux & SliceWritable) ? " rw" : " ro") << " dynptr" << Ref;
  if (K == Kind::AllocMem || K == Kind::AllocMemOrNull)
    O << " size" << Aux << " ref" << Ref;
  O << (Off < 0 ? "" : "+") << Off;
  if (hasVarOff())
    O << "+[" << SMin << ".." << SMax << "]";
  return O.str();
}

namespace {

/// Ids link registers (copies of one scalar, pointers with one variable
/// offset, one map lookup's result); Old's links must exist in New too.
using IdMap = std::map<uint32_t, uint32_t>;

bool idCovers(uint32_t O, uint32_t N, IdMap &Ids) {
  if (O == 0)
    return true;
  if (N == 0)
    return false;
  auto [It, New] = Ids.try_emplace(O, N);
  return It->second == N;
}

/// Ids matched so far, and the ids of Old's precise scalars: only links
/// to those can matter (a link between imprecise scalars refines nothing
/// that decided anything).
struct Match {
  IdMap Ids;
  std::set<uint32_t> PreciseIds;
  bool linkMatters(uint32_t Id) const { return Id != 0 && PreciseIds.count(Id) != 0; }
};

bool regCovers(const Reg &O, const Reg &N, Match &M, bool Precise = true) {
  IdMap &Ids = M.Ids;
  if (O.K == Kind::NotInit)
    return true;
  if (O.K != N.K)
    return false;
  // An imprecise scalar's bounds decided nothing, but its links to precise
  // scalars must hold in New too: linked scalars share their bounds, so a
  // precise one refined through an imprecise copy is refined as in Old.
  if (O.K == Kind::Scalar && !Precise)
    return !M.linkMatters(O.Id) || idCovers(O.Id, N.Id, Ids);
  if (O.K == Kind::Scalar)
    return O.UMin <= N.UMin && N.UMax <= O.UMax && O.SMin <= N.SMin && N.SMax <= O.SMax &&
           O.U32Min <= N.U32Min && N.U32Max <= O.U32Max && O.S32Min <= N.S32Min &&
           N.S32Max <= O.S32Max && O.T.contains(N.T) && idCovers(O.Id, N.Id, Ids);
  if (O.K == Kind::Packet && (O.Id == 0) != (N.Id == 0))
    return false;
  return O.Off == N.Off && O.Aux == N.Aux && O.SMin <= N.SMin && N.SMax <= O.SMax &&
         idCovers(O.Id, N.Id, Ids) && idCovers(O.Ref, N.Ref, Ids);
}

/// `SavedPrecise`: bit per saved register (the caller's r6-r10);
/// `SlotPrecise`: bit per 8-byte slot of this frame.
bool frameCovers(const Frame &O, const Frame &N, Match &Ids, uint16_t SavedPrecise,
                 uint64_t SlotPrecise, uint64_t LiveSlots) {
  if (O.ReturnPc != N.ReturnPc || O.Callback != N.Callback || O.Entry != N.Entry ||
      O.Turns > N.Turns)
    return false;
  // A callback's caller's arguments run the helper call again: all matter.
  for (size_t I = 0; I < O.SavedArgs.size(); ++I)
    if (!regCovers(O.SavedArgs[I], N.SavedArgs[I], Ids))
      return false;
  for (size_t I = 0; I < O.SavedRegs.size(); ++I)
    if (!regCovers(O.SavedRegs[I], N.SavedRegs[I], Ids, (SavedPrecise >> I) & 1))
      return false;
  for (unsigned B = 0; B < isa::MaxStackBytes; ++B) {
    // A slot Old's continuation writes whole before it reads any of it
    // holds nothing that matters.
    if (!((LiveSlots >> (B / 8)) & 1))
      continue;
    Slot OS = O.Bytes[B], NS = N.Bytes[B];
    // Old's continuation never reads a residue byte (it would be refused);
    // New's may be read only where Old's was too.
    if (OS == Slot::Residue)
      continue;
    if (NS == Slot::Residue)
      return false;
    if (OS == Slot::Uninit) {
      // Uninitialised bytes may still be read as a map key's or value's
      // padding (as zeros): New's must not hold a pointer there.
      auto NIt = N.Spills.find(B & ~7u);
      if (NS == Slot::Spill && NIt != N.Spills.end() &&
          (NIt->second.isPointer() || NIt->second.K == Kind::NotInit))
        return false;
      continue;
    }
    if (NS == Slot::Uninit)
      return false;
    bool Precise = (SlotPrecise >> (B / 8)) & 1;
    // Known bytes decide constant map keys.
    if (Precise && O.Known[B] >= 0 && N.Known[B] != O.Known[B])
      return false;
    if (B % 8 != 0)
      continue;
    auto OIt = O.Spills.find(B), NIt = N.Spills.find(B);
    bool OSpill = OIt != O.Spills.end(), NSpill = NIt != N.Spills.end();
    if (OSpill) {
      const Reg &OR = OIt->second;
      if (NSpill) {
        if (!regCovers(OR, NIt->second, Ids, Precise))
          return false;
      } else if (!(OR.K == Kind::Scalar && !Precise && !Ids.linkMatters(OR.Id))) {
        // New holds plain data there, which reads as an unknown scalar:
        // as good as an imprecise, unlinked spilled scalar, nothing more.
        return false;
      }
    }
    if (!OSpill && NSpill && NIt->second.isPointer())
      return false;
  }
  return true;
}

Reg full(bool Is64) { return Is64 ? Reg::unknown() : Reg::scalar(0, 0xffffffffull, 0, 0xffffffffll); }

Reg alu64Bounds(uint8_t Op, const Reg &D, const Reg &S, int16_t Off) {
  Reg R = Reg::unknown();
  uint64_t U;
  int64_t L, H;
  switch (Op) {
  case isa::Add:
    if (!__builtin_add_overflow(D.UMax, S.UMax, &U))
      R.UMin = D.UMin + S.UMin, R.UMax = U;
    if (!__builtin_add_overflow(D.SMin, S.SMin, &L) && !__builtin_add_overflow(D.SMax, S.SMax, &H))
      R.SMin = L, R.SMax = H;
    break;
  case isa::Sub:
    if (D.UMin >= S.UMax)
      R.UMin = D.UMin - S.UMax, R.UMax = D.UMax - S.UMin;
    if (!__builtin_sub_overflow(D.SMin, S.SMax, &L) && !__builtin_sub_overflow(D.SMax, S.SMin, &H))
      R.SMin = L, R.SMax = H;
    break;
  case isa::Mul:
    if (!__builtin_mul_overflow(D.UMax, S.UMax, &U))
      R.UMin = D.UMin * S.UMin, R.UMax = U;
    break;
  case isa::And:
    R.UMax = std::min(D.UMax, S.UMax);
    break;
  case isa::Or:
  case isa::Xor: {
    uint64_t M = std::max(D.UMax, S.UMax);
    R.UMax = M == 0 ? 0 : (M >> 63) ? U64Max : (uint64_t(1) << std::bit_width(M)) - 1;
    if (Op == isa::Or)
      R.UMin = std::max(D.UMin, S.UMin);
    break;
  }
  case isa::Lsh:
    if (S.isConst() && S.UMin < 64 && (S.UMin == 0 || (D.UMax >> (64 - S.UMin)) == 0))
      R.UMin = D.UMin << S.UMin, R.UMax = D.UMax << S.UMin;
    // The kernel's special case (__scalar64_min_max_lsh): compilers
    // sign-extend an int by <<32 then s>>32, and <<32 makes the low half's
    // signed bounds the high half's; the kernel keeps each only where it
    // is not negative.
    if (S.isConst() && S.UMin == 32) {
      if (D.S32Max >= 0)
        R.SMax = int64_t(uint64_t(uint32_t(D.S32Max)) << 32);
      if (D.S32Min >= 0)
        R.SMin = int64_t(uint64_t(uint32_t(D.S32Min)) << 32);
    }
    break;
  case isa::Rsh:
    if (S.isConst())
      R.UMin = D.UMin >> (S.UMin & 63), R.UMax = D.UMax >> (S.UMin & 63);
    else
      R.UMax = D.UMax;
    break;
  case isa::Arsh:
    if (S.isConst())
      R.SMin = D.SMin >> (S.UMin & 63), R.SMax = D.SMax >> (S.UMin & 63);
    break;
  case isa::Div:
    if (Off == 0) {
      if (S.isConst() && S.UMin != 0)
        R.UMin = D.UMin / S.UMin, R.UMax = D.UMax / S.UMin;
      else
        R.UMax = D.UMax;
    }
    break;
  case isa::Mod:
    if (Off == 0) {
      if (S.UMin > 0)
        R.UMax = std::min(D.UMax, S.UMax - 1);
      else
        R.UMax = std::max(D.UMax, S.UMax == 0 ? 0 : S.UMax - 1);
    }
    break;
  case isa::Mov:
    // Sign extension of the low Off bits: a value that fits stays as is.
    if (Off == 0 || S.UMax < (uint64_t(1) << (Off - 1)))
      return S;
    R.SMin = -(int64_t(1) << (Off - 1));
    R.SMax = (int64_t(1) << (Off - 1)) - 1;
    break;
  default:
    break;
  }
  // Known bits, as the kernel's tnum operations.
  bool ConstShift = S.isConst();
  unsigned Sh = unsigned(S.UMin & 63);
  switch (Op) {
  case isa::Add: R.T = tnumAdd(D.T, S.T); break;
  case isa::Sub: R.T = tnumSub(D.T, S.T); break;
  case isa::Mul: R.T = tnumMul(D.T, S.T); break;
  case isa::And: R.T = tnumAnd(D.T, S.T); break;
  case isa::Or: R.T = tnumOr(D.T, S.T); break;
  case isa::Xor: R.T = tnumXor(D.T, S.T); break;
  case isa::Lsh: if (ConstShift) R.T = tnumLsh(D.T, Sh); break;
  case isa::Rsh: if (ConstShift) R.T = tnumRsh(D.T, Sh); break;
  case isa::Arsh: if (ConstShift) R.T = tnumArsh(D.T, Sh); break;
  default: break;
  }
  if (!R.normalize())
    return Reg::unknown();
  return R;
}

/// The low half of a scalar, zero-extended, as a 64-bit scalar.
Reg low32(const Reg &R) {
  Reg L = Reg::scalar(R.U32Min, R.U32Max, int64_t(R.U32Min), int64_t(R.U32Max));
  tighten(L.S32Min, L.S32Max, R.S32Min, R.S32Max);
  L.T = L.T.intersect(R.T.low32());
  L.normalize();
  return L;
}

/// The low half of a scalar, sign-extended, as a 64-bit scalar.
Reg sext32(const Reg &R) {
  Reg L = Reg::scalar(0, U64Max, R.S32Min, R.S32Max);
  L.T = L.T.intersect(R.T.sext32());
  L.normalize();
  return L;
}

} // namespace

bool covers(const State &Old, const State &New, uint16_t LiveRegs, const PreciseSet *Precise,
            const std::array<uint64_t, MaxCallDepth> *LiveSlots) {
  // References held: the same number (their pointers are matched below).
  if (Old.Frames.size() != New.Frames.size() || New.MetaRange < Old.MetaRange ||
      Old.Refs.size() != New.Refs.size())
    return false;
  PreciseSet All;
  if (!Precise) {
    All.Regs.fill(0xffff);
    All.Slots.fill(U64Max);
    Precise = &All;
  }
  Match Ids;
  size_t Top = Old.Frames.size() - 1;
  auto NotePrecise = [&](const Reg &R, bool IsPrecise) {
    if (IsPrecise && R.K == Kind::Scalar && R.Id)
      Ids.PreciseIds.insert(R.Id);
  };
  for (unsigned R = 0; R < isa::NumRegs; ++R)
    if (LiveRegs >> R & 1)
      NotePrecise(Old.Regs[R], (Precise->Regs[Top] >> R) & 1);
  for (size_t F = 0; F < Old.Frames.size(); ++F) {
    const Frame &Fr = Old.Frames[F];
    for (size_t I = 0; F > 0 && I < Fr.SavedRegs.size(); ++I)
      NotePrecise(Fr.SavedRegs[I], (Precise->Regs[F - 1] >> (6 + I)) & 1);
    for (auto &[B, R] : Fr.Spills)
      NotePrecise(R, (Precise->Slots[F] >> (B / 8)) & 1);
    for (const Reg &R : Fr.SavedArgs)
      NotePrecise(R, true);
  }
  for (unsigned R = 0; R < isa::NumRegs; ++R)
    if ((LiveRegs >> R & 1) &&
        !regCovers(Old.Regs[R], New.Regs[R], Ids, (Precise->Regs[Top] >> R) & 1))
      return false;
  for (size_t F = 0; F < Old.Frames.size(); ++F) {
    uint16_t Saved = F == 0 ? 0 : uint16_t(Precise->Regs[F - 1] >> 6);
    if (!frameCovers(Old.Frames[F], New.Frames[F], Ids, Saved, Precise->Slots[F],
                     LiveSlots ? (*LiveSlots)[F] : U64Max))
      return false;
  }
  for (auto &[Id, Range] : Old.PacketRange) {
    auto M = Ids.Ids.find(Id);
    if (Id != 0 && M == Ids.Ids.end())
      continue; // no pointer of Old refers to it
    auto It = New.PacketRange.find(Id == 0 ? 0 : M->second);
    if ((It == New.PacketRange.end() ? 0 : It->second) < Range)
      return false;
  }
  // A reference Old's pointers hold is one New holds too.
  for (auto &[Ref, Pc] : Old.Refs) {
    auto M = Ids.Ids.find(Ref);
    if (M != Ids.Ids.end() && !New.Refs.count(M->second))
      return false;
  }
  // The same lock held, its value's id matched as the pointers' are.
  if (Old.Rcu != New.Rcu)
    return false;
  if (Old.Lock.has_value() != New.Lock.has_value())
    return false;
  if (Old.Lock && (Old.Lock->Map != New.Lock->Map ||
                   (Old.Lock->Id == 0) != (New.Lock->Id == 0) ||
                   !idCovers(Old.Lock->Id, New.Lock->Id, Ids.Ids)))
    return false;
  return true;
}

Reg truncate32(const Reg &R) {
  if (R.isConst())
    return Reg::constant(uint32_t(R.UMin));
  if (R.K != Kind::Scalar)
    return full(false);
  return low32(R);
}

Reg byteSwap(const Reg &D, unsigned W, bool Swap) {
  const uint64_t Mask = W >= 64 ? U64Max : (uint64_t(1) << W) - 1;
  if (!Swap && W < 64)
    return alu64Bounds(isa::And, D, Reg::constant(Mask), 0);
  if (!Swap) { // the value as it was: a scalar of its own
    Reg R = D;
    R.Id = 0;
    return R;
  }
  auto Bswap = [W](uint64_t V) {
    return W == 16 ? uint64_t(__builtin_bswap16(uint16_t(V)))
           : W == 32 ? uint64_t(__builtin_bswap32(uint32_t(V)))
                     : __builtin_bswap64(V);
  };
  // Known bits move with their bytes (the kernel's tnum_bswap16/32/64).
  Tnum T{Bswap(D.T.Value & Mask), Bswap(D.T.Mask & Mask)};
  Reg R = Reg::unknown();
  R.UMin = T.min();
  R.UMax = T.max();
  if (W < 64)
    R.SMin = int64_t(R.UMin), R.SMax = int64_t(R.UMax);
  R.T = T;
  if (!R.normalize())
    return Reg::unknown();
  return R;
}

Reg scalarAlu(uint8_t Op, const Reg &D, const Reg &S, bool Is64, int16_t Off) {
  if ((Op == isa::Neg || S.isConst()) && D.isConst())
    return Reg::constant(isa::evalAlu(Op, D.UMin, S.UMin, Is64, Off));
  // Negation is 0 - D, as the kernel tracks it (BPF_NEG since Linux 6.14:
  // a subtraction from a known 0, bounds and known bits). In 32 bits: the
  // low half taken as signed, negated exactly in 64, its low half kept.
  if (Op == isa::Neg)
    return Is64 ? alu64Bounds(isa::Sub, Reg::constant(0), D, 0)
                : truncate32(alu64Bounds(isa::Sub, Reg::constant(0), sext32(D), 0));
  if (Op == isa::Mov && Off == 0)
    return Is64 ? S : truncate32(S);
  if (Op == isa::Mov && S.isConst())
    return Reg::constant(isa::evalAlu(Op, 0, S.UMin, Is64, Off));
  if (Is64)
    return alu64Bounds(Op, D, S, Off);
  // 32-bit: operate on the low halves, then keep the low half of the result
  // (zero-extended): its known bits stay exact through wrap-around.
  if (Off != 0 && Op != isa::Mov)
    return full(false);
  if (Op == isa::Mov) // sign extension of the low 8 or 16 bits
    return truncate32(alu64Bounds(Op, Reg::unknown(), low32(S), Off));
  Reg B = low32(S);
  if (Op == isa::Lsh || Op == isa::Rsh || Op == isa::Arsh) {
    if (!B.isConst())
      return Op == isa::Rsh ? Reg::scalar(0, D.U32Max, 0, int64_t(D.U32Max)) : full(false);
    B = Reg::constant(B.UMin & 31);
    if (Op == isa::Arsh)
      return truncate32(alu64Bounds(Op, sext32(D), B, 0));
  }
  return truncate32(alu64Bounds(Op, low32(D), B, 0));
}

namespace {

/// Narrows [Min, Max] to what "V Op O" leaves, O in [OMin, OMax], for the
/// order comparisons (unsigned or signed by T). False when nothing is left.
template <typename T>
bool refineOrder(T &Min, T &Max, uint8_t Op, T OMin, T OMax) {
  constexpr T Lo = std::numeric_limits<T>::min(), Hi = std::numeric_limits<T>::max();
  switch (Op) {
  case isa::Jgt: case isa::Jsgt:
    if (OMin == Hi)
      return false;
    Min = std::max(Min, T(OMin + 1));
    break;
  case isa::Jge: case isa::Jsge:
    Min = std::max(Min, OMin);
    break;
  case isa::Jlt: case isa::Jslt:
    if (OMax == Lo)
      return false;
    Max = std::min(Max, T(OMax - 1));
    break;
  case isa::Jle: case isa::Jsle:
    Max = std::min(Max, OMax);
    break;
  case isa::Jeq:
    Min = std::max(Min, OMin);
    Max = std::min(Max, OMax);
    break;
  case isa::Jne:
    // Only a constant that is an end of the range removes anything.
    if (OMin != OMax)
      break;
    if (Min == OMin && Max == OMin)
      return false;
    if (Min == OMin)
      ++Min;
    else if (Max == OMin)
      --Max;
    break;
  default:
    break;
  }
  return Min <= Max;
}

bool isSignedJump(uint8_t Op) {
  return Op == isa::Jsgt || Op == isa::Jsge || Op == isa::Jslt || Op == isa::Jsle;
}

} // namespace

bool refineScalarBounds(Reg &V, uint8_t Op, const Reg &O, bool Is32) {
  uint64_t Width = Is32 ? 0xffffffffull : U64Max;
  bool Signed = isSignedJump(Op);
  bool Unsigned = Op == isa::Jgt || Op == isa::Jge || Op == isa::Jlt || Op == isa::Jle;
  bool Ok = true;
  if (Is32) {
    if (Unsigned || Op == isa::Jeq || Op == isa::Jne)
      Ok = refineOrder(V.U32Min, V.U32Max, Op, O.U32Min, O.U32Max);
    if (Ok && (Signed || Op == isa::Jeq || Op == isa::Jne))
      Ok = refineOrder(V.S32Min, V.S32Max, Op, O.S32Min, O.S32Max);
  } else {
    if (Unsigned || Op == isa::Jeq || Op == isa::Jne)
      Ok = refineOrder(V.UMin, V.UMax, Op, O.UMin, O.UMax);
    if (Ok && (Signed || Op == isa::Jeq || Op == isa::Jne))
      Ok = refineOrder(V.SMin, V.SMax, Op, O.SMin, O.SMax);
  }
  if (!Ok)
    return false;
  // Known bits: equality takes the other side's (on the compared bits);
  // JSET with a constant knows a bit set, or bits clear.
  Tnum OT = O.T;
  if (Is32)
    OT = {OT.Value & Width, OT.Mask | ~Width};
  if (Op == isa::Jeq) {
    if (!V.T.compatible(OT))
      return false;
    V.T = V.T.intersect(OT);
  }
  if ((Op == isa::Jset || Op == NotJset) && O.isConst()) {
    uint64_t C = O.UMin & Width;
    if (Op == isa::Jset) {
      if (!((V.T.Value | V.T.Mask) & C))
        return false;
      if (std::popcount(C) == 1) {
        V.T.Value |= C;
        V.T.Mask &= ~C;
      }
      // Some bit is set: the value (or its low half) is not 0.
      if (Is32)
        V.U32Min = std::max(V.U32Min, 1u);
      else
        V.UMin = std::max(V.UMin, uint64_t(1));
    } else {
      if (V.T.Value & C)
        return false;
      V.T.Mask &= ~C;
    }
  }
  return V.normalize();
}

std::string stateStr(const State &S) {
  std::ostringstream O;
  bool First = true;
  for (unsigned R = 0; R < isa::NumRegs; ++R) {
    if (S.Regs[R].K == Kind::NotInit)
      continue;
    O << (First ? "" : " ") << "r" << R << "=" << S.Regs[R].str();
    First = false;
  }
  const Frame &F = S.Frames.back();
  for (auto &[B, R] : F.Spills)
    O << " fp" << int(B) - int(isa::MaxStackBytes) << "=" << R.str();
  if (!S.PacketRange.empty()) {
    O << " pkt_range";
    for (auto &[Id, Range] : S.PacketRange)
      O << " id" << Id << ":" << Range;
  }
  return O.str();
}

} // namespace ebpfgpu::verifier

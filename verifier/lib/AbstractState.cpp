// SPDX-License-Identifier: Apache-2.0
//
// Abstract values: normalisation, coverage, scalar interval arithmetic and
// printing.

#include "AbstractState.h"
#include "Precision.h"

#include "ebpf-gpu/ISA/Semantics.h"

#include <algorithm>
#include <bit>
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
  case Kind::MapPtrOrNull: return "map reference or null";
  case Kind::RawMem: return "memory pointer";
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
  R.normalize();
  return R;
}

bool Reg::normalize() {
  if (K != Kind::Scalar)
    return SMin <= SMax;
  for (int Round = 0; Round < 2; ++Round) {
    if (UMin > UMax || SMin > SMax)
      return false;
    if (SMin >= 0) {
      UMin = std::max(UMin, uint64_t(SMin));
      UMax = std::min(UMax, uint64_t(SMax));
    } else if (SMax < 0) {
      UMin = std::max(UMin, uint64_t(SMin));
      UMax = std::min(UMax, uint64_t(SMax));
    }
    if (UMax <= uint64_t(S64Max)) {
      SMin = std::max(SMin, int64_t(UMin));
      SMax = std::min(SMax, int64_t(UMax));
    } else if (UMin > uint64_t(S64Max)) {
      SMin = std::max(SMin, int64_t(UMin));
      SMax = std::min(SMax, int64_t(UMax));
    }
  }
  return UMin <= UMax && SMin <= SMax;
}

std::string Reg::str() const {
  std::ostringstream O;
  switch (K) {
  case Kind::NotInit:
    return "?";
  case Kind::Scalar:
    if (isConst())
      O << int64_t(UMin);
    else if (UMin == 0 && UMax == U64Max && SMin == S64Min && SMax == S64Max)
      O << "scalar";
    else
      O << "scalar(u" << UMin << ".." << UMax << ",s" << SMin << ".." << SMax << ")";
    return O.str();
  default:
    break;
  }
  O << kindName(K);
  if (K == Kind::MapPtr || K == Kind::MapValue || K == Kind::MapValueOrNull ||
      K == Kind::MapPtrOrNull)
    O << " #" << Aux;
  if (K == Kind::Stack)
    O << " frame" << Aux;
  if (K == Kind::Packet && Id)
    O << " id" << Id;
  if (K == Kind::MapValueOrNull || K == Kind::MapPtrOrNull)
    O << " null-id" << Id;
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

bool regCovers(const Reg &O, const Reg &N, IdMap &Ids, bool Precise = true) {
  if (O.K == Kind::NotInit)
    return true;
  if (O.K != N.K)
    return false;
  // An imprecise scalar's bounds decided nothing, but its links to other
  // scalars must hold in New too: linked scalars share their bounds, so a
  // precise one refined through an imprecise copy is refined as in Old.
  if (O.K == Kind::Scalar && !Precise)
    return idCovers(O.Id, N.Id, Ids);
  if (O.K == Kind::Scalar)
    return O.UMin <= N.UMin && N.UMax <= O.UMax && O.SMin <= N.SMin && N.SMax <= O.SMax &&
           idCovers(O.Id, N.Id, Ids);
  if (O.K == Kind::Packet && (O.Id == 0) != (N.Id == 0))
    return false;
  return O.Off == N.Off && O.Aux == N.Aux && O.SMin <= N.SMin && N.SMax <= O.SMax &&
         idCovers(O.Id, N.Id, Ids);
}

/// `SavedPrecise`: bit per saved register (the caller's r6-r10);
/// `SlotPrecise`: bit per 8-byte slot of this frame.
bool frameCovers(const Frame &O, const Frame &N, IdMap &Ids, uint16_t SavedPrecise,
                 uint64_t SlotPrecise) {
  if (O.ReturnPc != N.ReturnPc)
    return false;
  for (size_t I = 0; I < O.SavedRegs.size(); ++I)
    if (!regCovers(O.SavedRegs[I], N.SavedRegs[I], Ids, (SavedPrecise >> I) & 1))
      return false;
  for (unsigned B = 0; B < isa::MaxStackBytes; ++B) {
    Slot OS = O.Bytes[B], NS = N.Bytes[B];
    if (OS == Slot::Uninit)
      continue;
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
      } else if (!(OR.K == Kind::Scalar && !Precise && OR.Id == 0)) {
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
    if (Off == 0)
      return S;
    R.SMin = -(int64_t(1) << (Off - 1));
    R.SMax = (int64_t(1) << (Off - 1)) - 1;
    break;
  default:
    break;
  }
  if (!R.normalize())
    return Reg::unknown();
  return R;
}

} // namespace

bool covers(const State &Old, const State &New, uint16_t LiveRegs, const PreciseSet *Precise) {
  if (Old.Frames.size() != New.Frames.size() || New.MetaRange < Old.MetaRange)
    return false;
  PreciseSet All;
  if (!Precise) {
    All.Regs.fill(0xffff);
    All.Slots.fill(U64Max);
    Precise = &All;
  }
  IdMap Ids;
  size_t Top = Old.Frames.size() - 1;
  for (unsigned R = 0; R < isa::NumRegs; ++R)
    if ((LiveRegs >> R & 1) &&
        !regCovers(Old.Regs[R], New.Regs[R], Ids, (Precise->Regs[Top] >> R) & 1))
      return false;
  for (size_t F = 0; F < Old.Frames.size(); ++F) {
    uint16_t Saved = F == 0 ? 0 : uint16_t(Precise->Regs[F - 1] >> 6);
    if (!frameCovers(Old.Frames[F], New.Frames[F], Ids, Saved, Precise->Slots[F]))
      return false;
  }
  for (auto &[Id, Range] : Old.PacketRange) {
    auto M = Ids.find(Id);
    if (Id != 0 && M == Ids.end())
      continue; // no pointer of Old refers to it
    auto It = New.PacketRange.find(Id == 0 ? 0 : M->second);
    if ((It == New.PacketRange.end() ? 0 : It->second) < Range)
      return false;
  }
  return true;
}

Reg truncate32(const Reg &R) {
  if (R.isConst())
    return Reg::constant(uint32_t(R.UMin));
  if (R.UMax <= 0xffffffffull)
    return Reg::scalar(R.UMin, R.UMax, int64_t(R.UMin), int64_t(R.UMax));
  return full(false);
}

Reg scalarAlu(uint8_t Op, const Reg &D, const Reg &S, bool Is64, int16_t Off) {
  if ((Op == isa::Neg || S.isConst()) && D.isConst())
    return Reg::constant(isa::evalAlu(Op, D.UMin, S.UMin, Is64, Off));
  if (Op == isa::Mov && Off == 0)
    return Is64 ? S : truncate32(S);
  if (Op == isa::Mov && S.isConst())
    return Reg::constant(isa::evalAlu(Op, 0, S.UMin, Is64, Off));
  if (Is64)
    return alu64Bounds(Op, D, S, Off);
  // 32-bit: operate on the zero-extended low halves, then wrap.
  if (Op == isa::Arsh || Op == isa::Neg || Op == isa::Mov || Off != 0)
    return full(false);
  Reg A = truncate32(D), B = truncate32(S);
  if (Op == isa::Lsh || Op == isa::Rsh) {
    if (!B.isConst())
      return Op == isa::Rsh ? Reg::scalar(0, A.UMax, 0, int64_t(A.UMax)) : full(false);
    B = Reg::constant(B.UMin & 31);
  }
  Reg R = alu64Bounds(Op, A, B, 0);
  if (R.UMax > 0xffffffffull || (Op == isa::Sub && A.UMin < B.UMax))
    return full(false);
  return R;
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

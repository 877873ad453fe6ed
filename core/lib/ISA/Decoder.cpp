// SPDX-License-Identifier: Apache-2.0
//
// Decoding and well-formedness checks for eBPF instructions (RFC 9669).
// The checks are per instruction (fields each opcode defines must be valid,
// the rest must be zero) plus whole-program ones (LDDW pairs, jump targets).

#include "ebpf-gpu/ISA/Decoder.h"

#include <string>

namespace ebpfgpu::isa {

Insn readSlot(const uint8_t *B) {
  Insn I;
  I.Opcode = B[0];
  I.Dst = B[1] & 0x0f;
  I.Src = B[1] >> 4;
  I.Off = int16_t(uint16_t(B[2]) | uint16_t(B[3]) << 8);
  I.Imm = int32_t(uint32_t(B[4]) | uint32_t(B[5]) << 8 | uint32_t(B[6]) << 16 |
                  uint32_t(B[7]) << 24);
  return I;
}

namespace {

std::string hex(unsigned V) {
  static const char Digits[] = "0123456789abcdef";
  std::string S = "0x";
  S += Digits[(V >> 4) & 0xf];
  S += Digits[V & 0xf];
  return S;
}

/// The operand an ALU or jump instruction does not use must be zero: imm
/// for a register source, src for an immediate one.
std::string reservedOperand(const Insn &I, const char *What) {
  if (I.usesRegSource())
    return I.Imm != 0 ? std::string("reserved imm of register ") + What + " must be zero" : "";
  return I.Src != 0 ? std::string("reserved src of immediate ") + What + " must be zero" : "";
}

/// An ALU or ALU64 instruction (`Op` names its opcode), as checkInsn.
std::string checkAlu(const Insn &I, const std::string &Op) {
  bool Is64 = I.cls() == ALU64;
  uint8_t O = I.op();
  if (O > End)
    return "unknown ALU operation (" + Op + ")";
  if (I.Dst == FramePointer)
    return "r10 is read-only";
  if (O == Neg) {
    if (I.usesRegSource())
      return "neg takes no source operand (" + Op + ")";
    if (I.Src != 0 || I.Imm != 0 || I.Off != 0)
      return "reserved fields of neg must be zero";
    return "";
  }
  if (O == End) {
    if (Is64 && I.usesRegSource())
      return "unknown byte swap (" + Op + ")";
    if (I.Imm != 16 && I.Imm != 32 && I.Imm != 64)
      return "byte swap width must be 16, 32 or 64 (is " +
             std::to_string(I.Imm) + ")";
    if (I.Src != 0 || I.Off != 0)
      return "reserved fields of byte swap must be zero";
    return "";
  }
  bool SignedDivMod = (O == Div || O == Mod) && I.Off == 1;
  bool SignExtMov = O == Mov && I.usesRegSource() &&
                    (I.Off == 8 || I.Off == 16 || (Is64 && I.Off == 32));
  if (I.Off != 0 && !SignedDivMod && !SignExtMov)
    return "invalid offset " + std::to_string(I.Off) + " for ALU operation";
  return reservedOperand(I, "ALU operation");
}

/// A JMP or JMP32 instruction (`Op` names its opcode), as checkInsn.
std::string checkJump(const Insn &I, const std::string &Op) {
  bool Is32 = I.cls() == JMP32;
  uint8_t O = I.op();
  if (O > Jsle)
    return "unknown jump operation (" + Op + ")";
  if (O == Ja) {
    if (I.usesRegSource())
      return "unknown jump (" + Op + ")";
    if (I.Dst != 0 || I.Src != 0)
      return "reserved registers of ja must be zero";
    if (!Is32 && I.Imm != 0)
      return "reserved imm of ja must be zero";
    if (Is32 && I.Off != 0)
      return "reserved offset of gotol must be zero";
    return "";
  }
  if (O == Call) {
    if (Is32)
      return "call is not defined for the JMP32 class";
    if (I.usesRegSource()) {
      if (I.Src != 0 || I.Off != 0 || I.Imm != 0)
        return "reserved fields of callx must be zero";
      return "";
    }
    if (I.Dst != 0 || I.Off != 0)
      return "reserved fields of call must be zero";
    if (I.Src > CallKfunc)
      return "unknown call kind (src " + std::to_string(I.Src) + ")";
    return "";
  }
  if (O == Exit) {
    if (Is32 || I.usesRegSource())
      return "unknown exit encoding (" + Op + ")";
    if (I.Dst != 0 || I.Src != 0 || I.Off != 0 || I.Imm != 0)
      return "reserved fields of exit must be zero";
    return "";
  }
  return reservedOperand(I, "jump");
}

/// Checks one instruction on its own. Returns an empty string when valid,
/// otherwise the reason it is not.
std::string checkInsn(const Insn &I) {
  const std::string Op = "opcode " + hex(I.Opcode);
  if (I.Dst >= NumRegs)
    return "invalid destination register r" + std::to_string(I.Dst);
  if (I.Src >= NumRegs && !(I.cls() == LD || I.isCall()))
    return "invalid source register r" + std::to_string(I.Src);

  switch (I.cls()) {
  case ALU:
  case ALU64:
    return checkAlu(I, Op);
  case JMP:
  case JMP32:
    return checkJump(I, Op);
  case LD: {
    uint8_t M = I.mode();
    if (I.isLddw()) {
      if (I.Off != 0)
        return "reserved offset of lddw must be zero";
      if (I.Src > LddwMapIdxValue)
        return "unknown lddw kind (src " + std::to_string(I.Src) + ")";
      if (I.Dst == FramePointer)
        return "r10 is read-only";
      return "";
    }
    if ((M == ModeAbs || M == ModeInd) && I.size() != DW) {
      if (I.Dst != 0 || I.Off != 0)
        return "reserved fields of legacy packet load must be zero";
      if (M == ModeAbs && I.Src != 0)
        return "reserved src of ld_abs must be zero";
      if (I.Src >= NumRegs)
        return "invalid source register r" + std::to_string(I.Src);
      return "";
    }
    return "unknown load (" + Op + ")";
  }
  case LDX:
    if (I.mode() != ModeMem && !(I.mode() == ModeMemSX && I.size() != DW))
      return "unknown load (" + Op + ")";
    if (I.Imm != 0)
      return "reserved imm of load must be zero";
    if (I.Dst == FramePointer)
      return "r10 is read-only";
    return "";
  case ST:
    if (I.mode() != ModeMem)
      return "unknown store (" + Op + ")";
    if (I.Src != 0)
      return "reserved src of immediate store must be zero";
    return "";
  case STX:
    if (I.mode() == ModeMem) {
      if (I.Imm != 0)
        return "reserved imm of store must be zero";
      return "";
    }
    if (I.mode() == ModeAtomic) {
      if (I.size() != W && I.size() != DW)
        return "atomic operations are 32 or 64 bits wide";
      switch (I.Imm) {
      case AtomicAdd:
      case AtomicOr:
      case AtomicAnd:
      case AtomicXor:
      case AtomicAdd | AtomicFetch:
      case AtomicOr | AtomicFetch:
      case AtomicAnd | AtomicFetch:
      case AtomicXor | AtomicFetch:
      case AtomicXchg:
      case AtomicCmpXchg:
        return "";
      default:
        return "unknown atomic operation " + hex(unsigned(I.Imm) & 0xff);
      }
    }
    return "unknown store (" + Op + ")";
  }
  return "unknown opcode " + hex(I.Opcode);
}

} // namespace

MaybeError checkProgram(std::vector<Insn> &Insns) {
  auto Fail = [](size_t Pc, const std::string &Why) {
    return Error("pc " + std::to_string(Pc) + ": " + Why);
  };
  if (Insns.empty())
    return Error("program has no instructions");
  size_t N = Insns.size();
  for (size_t Pc = 0; Pc < N; ++Pc) {
    Insn &I = Insns[Pc];
    if (I.LddwHigh)
      continue;
    if (std::string Why = checkInsn(I); !Why.empty())
      return Fail(Pc, Why);
    if (I.isLddw()) {
      if (Pc + 1 >= N)
        return Fail(Pc, "lddw is missing its second half");
      Insn &Hi = Insns[Pc + 1];
      if (Hi.Opcode != 0 || Hi.Dst != 0 || Hi.Src != 0 || Hi.Off != 0)
        return Fail(Pc + 1, "second half of lddw must have only an imm");
      I.ImmHigh = Hi.Imm;
      Hi.LddwHigh = true;
      ++Pc;
    }
  }
  // Jump targets: inside the program and never on the second half of an LDDW.
  for (size_t Pc = 0; Pc < N; ++Pc) {
    const Insn &I = Insns[Pc];
    bool IsJump = I.isConditionalJump() || I.isUnconditionalJump() ||
                  I.isLocalCall();
    if (I.LddwHigh || !IsJump)
      continue;
    int64_t Rel = I.isLocalCall() ? int64_t(I.Imm) : I.jumpOffset();
    int64_t Target = int64_t(Pc) + 1 + Rel;
    const char *What = I.isLocalCall() ? "call" : "jump";
    if (Target < 0 || Target >= int64_t(N))
      return Fail(Pc, std::string(What) + " target " + std::to_string(Target) +
                          " is outside the program (0.." +
                          std::to_string(N - 1) + ")");
    if (Insns[Target].LddwHigh)
      return Fail(Pc, std::string(What) + " target " + std::to_string(Target) +
                          " is the second half of an lddw");
  }
  return std::nullopt;
}

Expected<std::vector<Insn>> decodeProgram(const uint8_t *Bytes, size_t Size) {
  if (Size % InsnSize != 0)
    return Error("program size " + std::to_string(Size) +
                 " is not a multiple of 8 bytes");
  std::vector<Insn> Insns;
  Insns.reserve(Size / InsnSize);
  for (size_t Off = 0; Off < Size; Off += InsnSize)
    Insns.push_back(readSlot(Bytes + Off));
  // An opcode-0 slot that does not follow an LDDW is refused by checkInsn.
  if (MaybeError E = checkProgram(Insns))
    return std::move(*E);
  return Insns;
}

} // namespace ebpfgpu::isa

// SPDX-License-Identifier: Apache-2.0
//
// Text form of decoded instructions, in the syntax of the kernel verifier
// log and llvm-objdump.

#include "ebpf-gpu/ISA/Disassembler.h"
#include "ebpf-gpu/Platform/Platform.h"

#include <cstdio>

namespace ebpfgpu::isa {

namespace {

std::string reg(uint8_t R, bool Is32) {
  return (Is32 ? "w" : "r") + std::to_string(R);
}

std::string sizeName(uint8_t Size, bool Signed = false) {
  std::string S = Signed ? "s" : "u";
  return S + std::to_string(accessBytes(Size) * 8);
}

std::string memRef(uint8_t Size, uint8_t Base, int16_t Off, bool Signed = false) {
  std::string S = "*(" + sizeName(Size, Signed) + " *)(r" + std::to_string(Base);
  if (Off < 0)
    S += " - " + std::to_string(-int32_t(Off));
  else
    S += " + " + std::to_string(Off);
  return S + ")";
}

std::string relTarget(int64_t Rel, size_t Pc) {
  std::string S = Rel < 0 ? std::to_string(Rel) : "+" + std::to_string(Rel);
  return S + " <" + std::to_string(int64_t(Pc) + 1 + Rel) + ">";
}

std::string hex64(uint64_t V) {
  char Buf[24];
  std::snprintf(Buf, sizeof(Buf), "0x%llx", static_cast<unsigned long long>(V));
  return Buf;
}

const char *aluSymbol(uint8_t Op, bool Signed) {
  switch (Op) {
  case Add: return "+=";
  case Sub: return "-=";
  case Mul: return "*=";
  case Div: return Signed ? "s/=" : "/=";
  case Or: return "|=";
  case And: return "&=";
  case Lsh: return "<<=";
  case Rsh: return ">>=";
  case Mod: return Signed ? "s%=" : "%=";
  case Xor: return "^=";
  case Mov: return "=";
  case Arsh: return "s>>=";
  default: return "?=";
  }
}

const char *jmpSymbol(uint8_t Op) {
  switch (Op) {
  case Jeq: return "==";
  case Jgt: return ">";
  case Jge: return ">=";
  case Jset: return "&";
  case Jne: return "!=";
  case Jsgt: return "s>";
  case Jsge: return "s>=";
  case Jlt: return "<";
  case Jle: return "<=";
  case Jslt: return "s<";
  case Jsle: return "s<=";
  default: return "?";
  }
}

const char *atomicName(int32_t Op) {
  switch (Op & ~AtomicFetch) {
  case AtomicAdd: return "add";
  case AtomicOr: return "or";
  case AtomicAnd: return "and";
  case AtomicXor: return "xor";
  default: return "?";
  }
}

std::string disasmAlu(const Insn &I) {
  bool Is32 = I.cls() == ALU;
  std::string D = reg(I.Dst, Is32);
  if (I.op() == Neg)
    return D + " = -" + D;
  if (I.op() == End) {
    std::string W = std::to_string(I.Imm);
    if (I.cls() == ALU64)
      return reg(I.Dst, false) + " = bswap" + W + " " + reg(I.Dst, false);
    const char *Order = I.usesRegSource() ? "be" : "le";
    return reg(I.Dst, false) + " = " + Order + W + " " + reg(I.Dst, false);
  }
  std::string S;
  if (I.usesRegSource())
    S = reg(I.Src, Is32);
  else
    S = std::to_string(I.Imm);
  if (I.op() == Mov && I.Off != 0)
    return D + " = (s" + std::to_string(I.Off) + ")" + S;
  return D + " " + aluSymbol(I.op(), I.Off == 1) + " " + S;
}

std::string disasmJmp(const Insn &I, size_t Pc, const DisasmNames *Names) {
  switch (I.op()) {
  case Ja:
    return std::string(I.cls() == JMP32 ? "gotol " : "goto ") +
           relTarget(I.jumpOffset(), Pc);
  case Exit:
    return "exit";
  case Call:
    if (I.usesRegSource())
      return "callx r" + std::to_string(I.Dst);
    if (I.Src == CallLocal)
      return "call pc" + relTarget(I.Imm, Pc);
    if (I.Src == CallKfunc) {
      // ebpf-gpu's ids (the object reader's), not the kernel's BTF ids.
      const platform::KfuncProto *K = nullptr;
      for (const platform::KfuncProto &F : platform::knownKfuncs())
        if (F.Id == I.Imm)
          K = &F;
      return "call kfunc " + (K ? K->Name + "#" : std::string()) + std::to_string(I.Imm);
    }
    if (Names && Names->Helper) {
      std::string N = Names->Helper(I.Imm);
      if (!N.empty())
        return "call " + N + "#" + std::to_string(I.Imm);
    }
    return "call " + std::to_string(I.Imm);
  default:
    break;
  }
  bool Is32 = I.cls() == JMP32;
  std::string S = I.usesRegSource() ? reg(I.Src, Is32) : std::to_string(I.Imm);
  return "if " + reg(I.Dst, Is32) + " " + jmpSymbol(I.op()) + " " + S +
         " goto " + relTarget(I.Off, Pc);
}

std::string disasmLddw(const Insn &I, const DisasmNames *Names) {
  std::string D = reg(I.Dst, false) + " = ";
  std::string MapName;
  if (Names && Names->Map && I.Src != LddwImm64)
    MapName = Names->Map(I.Imm);
  std::string Ref = MapName.empty() ? std::to_string(I.Imm) : MapName;
  switch (I.Src) {
  case LddwMapFd:
  case LddwMapIdx:
    return D + "map[" + Ref + "]";
  case LddwMapValue:
  case LddwMapIdxValue:
    return D + "map_value[" + Ref + "] + " + std::to_string(I.ImmHigh);
  case LddwVarAddr:
    return D + "var[" + std::to_string(I.Imm) + "]";
  case LddwCodeAddr:
    return D + "func[" + std::to_string(I.Imm) + "]";
  default:
    return D + hex64(I.imm64()) + " ll";
  }
}

std::string disasmAtomic(const Insn &I) {
  bool Is64 = I.size() == DW;
  std::string Ptr = "(" + sizeName(I.size()) + " *)(r" + std::to_string(I.Dst) +
                    (I.Off < 0 ? " - " + std::to_string(-int32_t(I.Off))
                               : " + " + std::to_string(I.Off)) +
                    ")";
  std::string S = reg(I.Src, !Is64);
  if (I.Imm == AtomicXchg)
    return S + " = atomic_xchg(" + Ptr + ", " + S + ")";
  if (I.Imm == AtomicCmpXchg)
    return reg(0, !Is64) + " = atomic_cmpxchg(" + Ptr + ", " + reg(0, !Is64) +
           ", " + S + ")";
  if (I.Imm & AtomicFetch)
    return S + " = atomic_fetch_" + atomicName(I.Imm) + "(" + Ptr + ", " + S +
           ")";
  return std::string("lock *") + Ptr + " " + aluSymbol(
      static_cast<uint8_t>(I.Imm & 0xf0), false) + " " + S;
}

} // namespace

std::string disassemble(const Insn &I, size_t Pc, const DisasmNames *Names) {
  if (I.LddwHigh)
    return "(lddw high half)";
  switch (I.cls()) {
  case ALU:
  case ALU64:
    return disasmAlu(I);
  case JMP:
  case JMP32:
    return disasmJmp(I, Pc, Names);
  case LD:
    if (I.isLddw())
      return disasmLddw(I, Names);
    if (I.mode() == ModeAbs)
      return "r0 = *(" + sizeName(I.size()) + " *)skb[" + std::to_string(I.Imm) + "]";
    return "r0 = *(" + sizeName(I.size()) + " *)skb[r" + std::to_string(I.Src) +
           " + " + std::to_string(I.Imm) + "]";
  case LDX:
    return reg(I.Dst, false) + " = " +
           memRef(I.size(), I.Src, I.Off, I.mode() == ModeMemSX);
  case ST:
    return memRef(I.size(), I.Dst, I.Off) + " = " + std::to_string(I.Imm);
  case STX:
    if (I.mode() == ModeAtomic)
      return disasmAtomic(I);
    return memRef(I.size(), I.Dst, I.Off) + " = " +
           reg(I.Src, I.size() != DW);
  }
  return "unknown";
}

} // namespace ebpfgpu::isa

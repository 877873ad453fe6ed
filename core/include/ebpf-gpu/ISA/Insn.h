// SPDX-License-Identifier: Apache-2.0
//
// The eBPF instruction set as RFC 9669 defines it (v1 to v4): opcode fields,
// their values, and the decoded instruction. Pure data, shared by the
// verifier and the compiler; no LLVM.

#ifndef EBPF_GPU_ISA_INSN_H
#define EBPF_GPU_ISA_INSN_H

#include <cstdint>

namespace ebpfgpu::isa {

/// Size of one instruction slot in bytes. LDDW takes two slots.
constexpr unsigned InsnSize = 8;
/// Registers r0..r10; r10 is the read-only frame pointer.
constexpr unsigned NumRegs = 11;
constexpr uint8_t FramePointer = 10;
/// Largest stack frame the ISA allows a function.
constexpr unsigned MaxStackBytes = 512;

/// Instruction classes (bits 0..2 of the opcode).
constexpr uint8_t LD = 0x00;
constexpr uint8_t LDX = 0x01;
constexpr uint8_t ST = 0x02;
constexpr uint8_t STX = 0x03;
constexpr uint8_t ALU = 0x04;
constexpr uint8_t JMP = 0x05;
constexpr uint8_t JMP32 = 0x06;
constexpr uint8_t ALU64 = 0x07;

/// Arithmetic operations (bits 4..7 of ALU/ALU64 opcodes).
constexpr uint8_t Add = 0x00;
constexpr uint8_t Sub = 0x10;
constexpr uint8_t Mul = 0x20;
constexpr uint8_t Div = 0x30;
constexpr uint8_t Or = 0x40;
constexpr uint8_t And = 0x50;
constexpr uint8_t Lsh = 0x60;
constexpr uint8_t Rsh = 0x70;
constexpr uint8_t Neg = 0x80;
constexpr uint8_t Mod = 0x90;
constexpr uint8_t Xor = 0xa0;
constexpr uint8_t Mov = 0xb0;
constexpr uint8_t Arsh = 0xc0;
constexpr uint8_t End = 0xd0;

/// Jump operations (bits 4..7 of JMP/JMP32 opcodes).
constexpr uint8_t Ja = 0x00;
constexpr uint8_t Jeq = 0x10;
constexpr uint8_t Jgt = 0x20;
constexpr uint8_t Jge = 0x30;
constexpr uint8_t Jset = 0x40;
constexpr uint8_t Jne = 0x50;
constexpr uint8_t Jsgt = 0x60;
constexpr uint8_t Jsge = 0x70;
constexpr uint8_t Call = 0x80;
constexpr uint8_t Exit = 0x90;
constexpr uint8_t Jlt = 0xa0;
constexpr uint8_t Jle = 0xb0;
constexpr uint8_t Jslt = 0xc0;
constexpr uint8_t Jsle = 0xd0;

/// Operand source bit of ALU and JMP opcodes.
constexpr uint8_t SrcK = 0x00;
constexpr uint8_t SrcX = 0x08;
/// For ALU END: byte order to convert to.
constexpr uint8_t ToLE = 0x00;
constexpr uint8_t ToBE = 0x08;

/// Access size of load and store opcodes (bits 3..4).
constexpr uint8_t W = 0x00;
constexpr uint8_t H = 0x08;
constexpr uint8_t B = 0x10;
constexpr uint8_t DW = 0x18;

/// Mode of load and store opcodes (bits 5..7).
constexpr uint8_t ModeImm = 0x00;
constexpr uint8_t ModeAbs = 0x20;
constexpr uint8_t ModeInd = 0x40;
constexpr uint8_t ModeMem = 0x60;
constexpr uint8_t ModeMemSX = 0x80;
constexpr uint8_t ModeAtomic = 0xc0;

/// Atomic operations (the imm field of STX|ATOMIC).
constexpr int32_t AtomicAdd = 0x00;
constexpr int32_t AtomicOr = 0x40;
constexpr int32_t AtomicAnd = 0x50;
constexpr int32_t AtomicXor = 0xa0;
constexpr int32_t AtomicFetch = 0x01;
constexpr int32_t AtomicXchg = 0xe0 | AtomicFetch;
constexpr int32_t AtomicCmpXchg = 0xf0 | AtomicFetch;

/// The src field of LDDW (64-bit immediate) instructions.
constexpr uint8_t LddwImm64 = 0;
constexpr uint8_t LddwMapFd = 1;
constexpr uint8_t LddwMapValue = 2;
constexpr uint8_t LddwVarAddr = 3;
constexpr uint8_t LddwCodeAddr = 4;
constexpr uint8_t LddwMapIdx = 5;
constexpr uint8_t LddwMapIdxValue = 6;

/// The src field of CALL instructions.
constexpr uint8_t CallHelper = 0;
constexpr uint8_t CallLocal = 1;
/// bpf_tail_call: the one helper that may not return to its caller.
constexpr int32_t HelperTailCall = 12;
constexpr uint8_t CallKfunc = 2;

/// One decoded instruction slot. For LDDW the slot holds both halves of the
/// immediate and the following slot is a placeholder (isLddwHigh()).
struct Insn {
  uint8_t Opcode = 0;
  uint8_t Dst = 0;
  uint8_t Src = 0;
  int16_t Off = 0;
  int32_t Imm = 0;
  /// LDDW only: the imm of the second slot (upper 32 bits).
  int32_t ImmHigh = 0;
  /// True for the second slot of an LDDW.
  bool LddwHigh = false;

  uint8_t cls() const { return Opcode & 0x07; }
  bool isAlu() const { return cls() == ALU || cls() == ALU64; }
  bool isJmp() const { return cls() == JMP || cls() == JMP32; }
  uint8_t op() const { return Opcode & 0xf0; }
  bool usesRegSource() const { return (Opcode & 0x08) == SrcX; }
  uint8_t size() const { return Opcode & 0x18; }
  uint8_t mode() const { return Opcode & 0xe0; }

  bool isLddw() const { return !LddwHigh && Opcode == (LD | ModeImm | DW); }
  bool isExit() const { return Opcode == (JMP | Exit); }
  bool isCall() const { return cls() == JMP && op() == Call; }
  bool isHelperCall() const { return Opcode == (JMP | Call) && Src == CallHelper; }
  bool isLocalCall() const { return Opcode == (JMP | Call) && Src == CallLocal; }
  bool isCallx() const { return Opcode == (JMP | Call | SrcX); }
  bool isUnconditionalJump() const { return isJmp() && op() == Ja; }
  bool isConditionalJump() const {
    return isJmp() && op() != Ja && op() != Call && op() != Exit;
  }
  /// Slot offset of a jump's target relative to the next slot. JMP32|JA
  /// (gotol) keeps it in imm; every other jump in off.
  int64_t jumpOffset() const {
    return (cls() == JMP32 && op() == Ja) ? int64_t(Imm) : int64_t(Off);
  }
  uint64_t imm64() const {
    return uint64_t(uint32_t(Imm)) | (uint64_t(uint32_t(ImmHigh)) << 32);
  }
};

/// Bytes accessed by a load/store of the given size field.
inline unsigned accessBytes(uint8_t SizeField) {
  switch (SizeField) {
  case B:
    return 1;
  case H:
    return 2;
  case W:
    return 4;
  default:
    return 8;
  }
}

} // namespace ebpfgpu::isa

#endif // EBPF_GPU_ISA_INSN_H

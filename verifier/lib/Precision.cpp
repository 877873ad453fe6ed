// SPDX-License-Identifier: Apache-2.0
//
// Precision tracking: the backward step over one executed instruction.

#include "Precision.h"

namespace ebpfgpu::verifier {

bool PreciseSet::empty() const {
  for (unsigned F = 0; F < MaxCallDepth; ++F)
    if (Regs[F] || Slots[F])
      return false;
  return true;
}

bool PreciseSet::subsetOf(const PreciseSet &O) const {
  for (unsigned F = 0; F < MaxCallDepth; ++F)
    if ((Regs[F] & ~O.Regs[F]) || (Slots[F] & ~O.Slots[F]))
      return false;
  return true;
}

void PreciseSet::merge(const PreciseSet &O) {
  for (unsigned F = 0; F < MaxCallDepth; ++F) {
    Regs[F] |= O.Regs[F];
    Slots[F] |= O.Slots[F];
  }
}

void PreciseSet::addBytes(unsigned Frame, unsigned Lo, unsigned Size) {
  for (unsigned S = Lo / 8; S <= (Lo + Size - 1) / 8 && S < 64; ++S)
    Slots[Frame] |= uint64_t(1) << S;
}

void backtrackInsn(const isa::Insn &I, const TraceNode &N, PreciseSet &M, unsigned NextDepth) {
  unsigned F = N.Depth - 1u;
  uint16_t &R = M.Regs[F];
  auto Bit = [](unsigned Reg) { return uint16_t(1u << Reg); };
  auto Has = [&](unsigned Reg) { return (R & Bit(Reg)) != 0; };
  switch (I.cls()) {
  case isa::ALU:
  case isa::ALU64:
    if (!Has(I.Dst))
      return;
    if (I.op() == isa::Mov) {
      // The old value is gone; the new one is the source's (or a constant).
      R &= uint16_t(~Bit(I.Dst));
      if (I.usesRegSource())
        R |= Bit(I.Src);
    } else if (I.op() != isa::Neg && I.op() != isa::End && I.usesRegSource()) {
      R |= Bit(I.Src);
    }
    return;
  case isa::LD:
    R &= uint16_t(~Bit(I.Dst)); // a 64-bit immediate: known exactly
    return;
  case isa::LDX:
    if (!Has(I.Dst))
      return;
    R &= uint16_t(~Bit(I.Dst));
    // A value filled from the stack is whatever was spilled there; other
    // memory gives an unknown value that depends on nothing tracked.
    if (N.StackOff != NoStackAccess)
      M.addBytes(N.StackFrame, unsigned(N.StackOff), isa::accessBytes(I.size()));
    return;
  case isa::ST:
  case isa::STX: {
    if (I.mode() == isa::ModeAtomic) {
      // Fetched values are the memory's old contents: unknown.
      if (I.Imm == isa::AtomicCmpXchg)
        R &= uint16_t(~Bit(0));
      else if (I.Imm & isa::AtomicFetch)
        R &= uint16_t(~Bit(I.Src));
      return;
    }
    if (N.StackOff == NoStackAccess)
      return;
    unsigned Size = isa::accessBytes(I.size());
    PreciseSet Touched;
    Touched.addBytes(N.StackFrame, unsigned(N.StackOff), Size);
    uint64_t Hit = M.Slots[N.StackFrame] & Touched.Slots[N.StackFrame];
    if (!Hit)
      return;
    if (Size == 8 && N.StackOff % 8 == 0)
      M.Slots[N.StackFrame] &= ~Hit; // the whole slot is overwritten
    if (I.cls() == isa::STX)
      R |= Bit(I.Src);
    return;
  }
  default:
    break;
  }
  // Jumps, calls and exits.
  if (I.isExit() && N.CallbackExit) {
    // Backwards from the helper call that runs again: the caller's r1-r4
    // (and r6-r9) are the ones it had; its r0 and r5 were not defined.
    M.Regs[F - 1] &= uint16_t(~(Bit(0) | Bit(5)));
    R = 0;
    M.Slots[F] = 0;
    return;
  }
  if (I.isExit()) {
    // Backwards from the caller's next instruction into the callee: the
    // caller's r0 is the callee's; r1-r5 were not defined after the return.
    if (F == 0)
      return;
    uint16_t &Caller = M.Regs[F - 1];
    R = (Caller & Bit(0)) ? Bit(0) : 0;
    M.Slots[F] = 0;
    Caller &= uint16_t(~0x3fu);
    return;
  }
  if (I.isLocalCall()) {
    // Backwards from the callee's first instruction: its arguments are the
    // caller's r1-r5; nothing else of the new frame existed before.
    if (F + 1 < MaxCallDepth) {
      R |= uint16_t(M.Regs[F + 1] & 0x3e);
      M.Regs[F + 1] = 0;
      M.Slots[F + 1] = 0;
    }
    return;
  }
  if (I.isCall() && NextDepth > N.Depth) {
    // Backwards from a callback's first instruction: its r2 (bpf_loop) or
    // r4 (bpf_for_each_map_elem) is the caller's r3, its r1 a new index or
    // the map, its r2 and r3 an element's pointers; the caller's registers
    // stay as they were before the call, which runs again when the
    // callback returns.
    if (F + 1 < MaxCallDepth) {
      if (M.Regs[F + 1] & (Bit(2) | Bit(4)))
        R |= Bit(3);
      M.Regs[F + 1] = 0;
      M.Slots[F + 1] = 0;
    }
    return;
  }
  if (I.isCall() && I.Src == isa::CallKfunc && N.StackOff != NoStackAccess) {
    // The iterator's slot holds no scalar: nothing before it there matters.
    M.Slots[N.StackFrame] &= ~(uint64_t(1) << (N.StackOff / 8));
  }
  if (I.isCall()) {
    R &= uint16_t(~0x3fu); // r0 is the helper's result, r1-r5 are clobbered
    return;
  }
  if (I.isConditionalJump() && I.usesRegSource() && (Has(I.Dst) || Has(I.Src)))
    R |= uint16_t(Bit(I.Dst) | Bit(I.Src)); // one refined the other
}

} // namespace ebpfgpu::verifier

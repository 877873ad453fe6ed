// SPDX-License-Identifier: Apache-2.0
//
// Private to the verifier: precision tracking, as the kernel's
// (mark_chain_precision). A scalar is "precise" at a checkpoint when its
// value may decide a safety check or the feasibility of a branch on some
// path that continues from that checkpoint; pruning compares only precise
// scalars by their bounds (an imprecise scalar matches any scalar). Each
// path records the instructions it executed as a trace shared with the
// paths it forked; when a check depends on a scalar, the trace is walked
// backwards to the registers and stack slots the value came from, and every
// checkpoint passed on the way learns that they are precise there.

#ifndef EBPF_GPU_VERIFIER_PRECISION_H
#define EBPF_GPU_VERIFIER_PRECISION_H

#include "AbstractState.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ebpfgpu::verifier {

/// Registers and 8-byte stack slots, per call frame, whose values matter.
struct PreciseSet {
  std::array<uint16_t, MaxCallDepth> Regs{};
  std::array<uint64_t, MaxCallDepth> Slots{};

  bool empty() const;
  bool subsetOf(const PreciseSet &O) const;
  void merge(const PreciseSet &O);
  void addReg(unsigned Frame, unsigned R) { Regs[Frame] |= uint16_t(1u << R); }
  /// Marks the slots holding bytes [Lo, Lo + Size) of frame `Frame`
  /// (byte offsets from the frame's bottom).
  void addBytes(unsigned Frame, unsigned Lo, unsigned Size);
};

constexpr uint32_t NoNode = UINT32_MAX;
constexpr int16_t NoStackAccess = -1;

/// One executed instruction of a path. Nodes are shared: a forked path
/// points at the node of the branch it forked from.
struct TraceNode {
  uint32_t Pc = 0;
  uint32_t Prev = NoNode;
  /// 1 + index of the checkpoint taken just before this instruction, or 0.
  uint32_t Checkpoint = 0;
  /// The stack bytes a load, store or atomic touched at a fixed offset:
  /// frame and byte offset from the frame's bottom (NoStackAccess: none).
  int16_t StackOff = NoStackAccess;
  uint8_t StackFrame = 0;
  /// Call frames before the instruction (1: the main program).
  uint8_t Depth = 1;
  /// An exit of a callback (bpf_loop): the path goes back to the helper
  /// call, with the caller's r1-r4 as they were.
  bool CallbackExit = false;
  /// What of the instruction's own frame was already propagated backwards
  /// from here (with nothing of other frames): walks that bring no more
  /// stop here, so a long loop does not walk its whole history each time.
  uint16_t DoneRegs = 0;
  uint64_t DoneSlots = 0;
};

/// Turns `M`, the set that matters after instruction `N` ran, into the set
/// that matters before it: a destination that matters makes its sources
/// matter (the kernel's backtrack_insn). `NextDepth`: the call frames after
/// it (a helper call that enters a callback adds one).
void backtrackInsn(const isa::Insn &I, const TraceNode &N, PreciseSet &M, unsigned NextDepth);

} // namespace ebpfgpu::verifier

#endif // EBPF_GPU_VERIFIER_PRECISION_H

// SPDX-License-Identifier: Apache-2.0
//
// Private to the lifter: a small forward dataflow analysis that tells, for
// every register and 8-byte stack slot at every instruction, whether it
// holds a constant, the context pointer, a pointer into the function's own
// stack frame, a map reference or a pointer into global data, each with its
// offset. The lifter uses it to rewrite context accesses to the runtime
// layout, to address the stack frame directly (so LLVM can keep it in
// registers), to size frames, and to bind map arguments statically.
// It is not the safety verifier: anything it cannot tell is Unknown and
// lowered as a plain memory access.

#ifndef EBPF_GPU_LIFTER_PROVENANCE_H
#define EBPF_GPU_LIFTER_PROVENANCE_H

#include "ebpf-gpu/ISA/Insn.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Platform/Platform.h"
#include "ebpf-gpu/Support/Error.h"

#include <array>
#include <cstdint>
#include <map>
#include <vector>

namespace ebpfgpu::compiler {

struct AbsValue {
  enum Kind : uint8_t {
    Unknown,
    Const,    ///< Value
    Ctx,      ///< context + Value
    Stack,    ///< frame top (r10) + Value, this function's frame
    StackAny, ///< somewhere in this function's frame
    Map,      ///< map object Index
    MapValue, ///< value of map Index + Value
    MapElem,  ///< bpf_map_lookup_elem's result on map Index, + Value: a value
              ///< (8-byte aligned in every runtime layout) or null; for
              ///< maps of maps, an inner map
    Packet,   ///< somewhere in the packet buffer (from ctx->data/data_end/data_meta)
    Func,     ///< the address of the function starting at pc Index (a callback)
  };
  Kind K = Unknown;
  int64_t Value = 0;
  uint32_t Index = 0;

  static AbsValue constant(int64_t V) { return {Const, V, 0}; }
  bool isConst() const { return K == Const; }
  bool isStackDerived() const { return K == Stack || K == StackAny; }
  bool operator==(const AbsValue &O) const {
    return K == O.K && Value == O.Value && Index == O.Index;
  }
  bool operator!=(const AbsValue &O) const { return !(*this == O); }
};

struct AbsState {
  std::array<AbsValue, isa::NumRegs> Regs;
  /// Known 8-byte spills, by offset from the frame top.
  std::map<int64_t, AbsValue> Slots;

  bool operator==(const AbsState &O) const {
    return Regs == O.Regs && Slots == O.Slots;
  }
  /// Merges `O` into this state; returns true when this state changed.
  bool join(const AbsState &O);
};

/// One eBPF function of a linked program: [Begin, End) slots.
struct FunctionRange {
  uint32_t Begin = 0, End = 0;
  std::string Name;
};

/// Splits a linked program into functions at its entry and every local call
/// target. Errors when a call or function pointer targets the middle of an
/// instruction sequence it cannot split there.
std::vector<FunctionRange> splitFunctions(const object::ProgramSpec &Prog);

class Provenance {
public:
  /// Runs the analysis over all functions. r1 of the entry function is the
  /// context when the platform has one; helper calls keep the stack slots
  /// their prototypes cannot write. Errors on recursion or a jump that
  /// leaves its function.
  static Expected<Provenance> analyze(const object::ProgramSpec &Prog,
                                      const std::vector<FunctionRange> &Funcs,
                                      const platform::Platform &Platform);

  /// State before `Pc`, if `Pc` starts a block reachable from its
  /// function's entry.
  const AbsState *blockEntry(uint32_t Pc) const;
  /// Block starts of function `F`, in order.
  const std::vector<uint32_t> &blocks(size_t F) const { return Leaders[F]; }
  /// Applies instruction `Pc` to `S`.
  void transfer(AbsState &S, uint32_t Pc) const;
  /// Bytes of stack frame function `F` needs (multiple of 8, at most 512).
  unsigned frameBytes(size_t F) const { return Frames[F]; }
  /// Index of the function starting at `Pc`.
  size_t functionAt(uint32_t Pc) const;

private:
  explicit Provenance(const object::ProgramSpec &Prog,
                      const std::vector<FunctionRange> &Funcs,
                      const platform::Platform &Platform)
      : Prog(&Prog), Funcs(&Funcs), Platform(&Platform) {}
  MaybeError analyzeFunction(size_t F, const AbsState &Entry,
                             std::map<size_t, AbsState> &CalleeEntries);
  void computeFrame(size_t F);
  /// A call (helper, kfunc or bpf-to-bpf) at `Pc` applied to `S`: the
  /// stack slots it may write forgotten, r0-r5 clobbered.
  void clobberCall(AbsState &S, uint32_t Pc) const;

  const object::ProgramSpec *Prog;
  const std::vector<FunctionRange> *Funcs;
  const platform::Platform *Platform;
  std::vector<std::vector<uint32_t>> Leaders;
  std::map<uint32_t, AbsState> BlockIn;
  std::vector<unsigned> Frames;
  /// Per function: it (and every function it calls) writes memory only in
  /// its own frame (stores based on r10, helpers that write no memory), so
  /// a call to it leaves the caller's spills as they were.
  std::vector<bool> FrameLocal;
};

} // namespace ebpfgpu::compiler

#endif // EBPF_GPU_LIFTER_PROVENANCE_H

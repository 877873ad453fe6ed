// SPDX-License-Identifier: Apache-2.0
//
// Private to the verifier: the engine's state (checkpoints, paths) and the
// Verifier class, whose members are defined in Verifier.cpp (the walk:
// CFG, ALU, memory, branches, pruning) and HelperCalls.cpp (helper calls:
// argument obligations, map/helper pairing, return values).

#ifndef EBPF_GPU_VERIFIER_LIB_VERIFIERENGINE_H
#define EBPF_GPU_VERIFIER_LIB_VERIFIERENGINE_H

#include "ebpf-gpu/Verifier/Verifier.h"

#include "AbstractState.h"
#include "FormatString.h"
#include "Precision.h"

#include <array>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ebpfgpu::verifier::detail {

using isa::Insn;

/// How diagnostics name argument `R` of helper `H`: "bpf_NAME argument R
/// (rR)" (HelperCalls.cpp).
std::string argName(const platform::HelperProto &H, unsigned R);

struct Checkpoint {
  State S;
  uint32_t Pc = 0;
  uint32_t Branches = 0;
  Checkpoint *Parent = nullptr;
  /// What mattered on the paths explored from here (complete once
  /// Branches is 0).
  PreciseSet Precise;
  /// Of Precise, what a value decided on a path from here, rather than
  /// what a loop head's pruning marked for want of knowing (what
  /// widenImprecise keeps; a subset that may miss some, which only widens
  /// more).
  PreciseSet Decided;
  /// Paths it pruned, and paths it was compared with and did not.
  uint32_t Hits = 0, Misses = 0;
  /// Stack liveness, as the kernel's (REG_LIVE_READ / REG_LIVE_WRITTEN):
  /// per frame, the 8-byte slots some path explored from here reads before
  /// writing them whole (complete once Branches is 0), and the slots the
  /// path that stored this checkpoint wrote whole since its parent.
  std::array<uint64_t, MaxCallDepth> Live{};
  std::array<uint64_t, MaxCallDepth> WrittenBefore{};
};

struct Path {
  State S;
  uint32_t Pc = 0;
  Checkpoint *Last = nullptr;
  /// The trace node of the last instruction executed.
  uint32_t Tail = NoNode;
  /// 1 + index of a checkpoint taken before the next instruction, or 0.
  uint32_t PendingCheckpoint = 0;
  /// Per frame, the 8-byte slots written whole since Last was stored.
  std::array<uint64_t, MaxCallDepth> Written{};
};

using MaybeDiag = std::optional<Diagnostic>;

inline bool isRedirectMap(uint32_t T) {
  return platform::mapFamily(T) == platform::MapFamily::Redirect;
}

/// Global data no one changes after load (.rodata: the kernel's frozen
/// BPF_F_RDONLY_PROG map, which libbpf makes of it alone): its bytes are
/// the object's, or those set before load, while the program runs.
inline bool constantGlobalData(const object::MapSpec &M) {
  return M.Origin == platform::MapOrigin::GlobalData && (M.Flags & platform::MapFlagReadOnlyProg);
}

/// A slice at least as large as the largest packet is null whatever its
/// offset (the kernel's bpf_xdp_pointer: -EFAULT past 0xffff): its
/// accesses are checked against this bound on paths that never run.
constexpr uint64_t MaxSlice = 0x10000;

class Verifier {
public:
  Verifier(const object::ProgramSpec &Prog,
           const std::vector<object::MapSpec> &Maps, const Options &Opts)
      : Prog(Prog), Insns(Prog.Insns), Maps(Maps), Opts(Opts) {
    // Inner maps of maps-of-maps get indices after the object's maps.
    for (size_t I = 0; I < this->Maps.size(); ++I)
      if (!this->Maps[I].Inner.empty()) {
        InnerIndex[I] = uint32_t(this->Maps.size());
        this->Maps.push_back(this->Maps[I].Inner[0]);
      }
  }

  Result run();

private:
  Diagnostic fail(uint32_t Pc, std::string Reason,
                  std::string Obligation) const {
    return Diagnostic{Pc, std::move(Reason), std::move(Obligation)};
  }
  MaybeDiag checkCfg();
  void computeLiveness();
  MaybeDiag step(Path &P, std::vector<Path> &Forks, bool &Ended);
  MaybeDiag lddw(uint32_t Pc, const Insn &I, State &S);
  MaybeDiag conditionalJump(Path &P, const Insn &I, std::vector<Path> &Forks,
                            bool &Ended, uint32_t &Next);
  MaybeDiag readReg(uint32_t Pc, const State &S, unsigned R) const;
  MaybeDiag alu(uint32_t Pc, const Insn &I, State &S);
  MaybeDiag pointerArith(uint32_t Pc, const Insn &I, Reg &D, const Reg &Src,
                         unsigned SrcReg);
  MaybeDiag access(uint32_t Pc, State &S, unsigned BaseReg, int64_t Off,
                   unsigned Size, bool Write, const char *What);
  /// access() through a packet pointer `B` (named `Rn`).
  MaybeDiag packetAccess(uint32_t Pc, const State &S, const Reg &B, const std::string &Rn,
                         int64_t InsnOff, unsigned Size, bool Write);
  /// access() through a pointer `B` (named `Rn`) to a map value or the raw
  /// input memory, a dynptr slice, or a callback's map key: its bytes
  /// [Lo, Hi + Size).
  MaybeDiag mapValueAccess(uint32_t Pc, const Reg &B, const std::string &Rn, int64_t InsnOff,
                           int64_t Lo, int64_t Hi, unsigned Size, bool Write);
  MaybeDiag dynptrSliceAccess(uint32_t Pc, const Reg &B, const std::string &Rn,
                              int64_t InsnOff, int64_t Lo, int64_t Hi, unsigned Size,
                              bool Write);
  MaybeDiag mapKeyAccess(uint32_t Pc, const Reg &B, const std::string &Rn, int64_t InsnOff,
                         int64_t Lo, int64_t Hi, unsigned Size, bool Write);
  /// access() through a stack pointer `B`, its bytes [Lo, Hi + Size).
  MaybeDiag stackAccess(uint32_t Pc, State &S, const Reg &B, int64_t Lo, int64_t Hi,
                        unsigned Size, bool Write);
  /// Refuses a read of stack bytes through `BaseReg` (+Off, Size bytes,
  /// already checked by access()) that would see part of a spilled pointer
  /// as data, or what a narrower write left of one (Slot::Residue): a
  /// pointer leak, refused for everyone as a store of one. `WholeFill`: an
  /// aligned 8-byte load, which fills a spilled pointer back whole.
  MaybeDiag spilledPointerRead(uint32_t Pc, State &S, unsigned BaseReg, int64_t Off,
                               uint64_t Size, const std::string &What,
                               bool WholeFill = false);
  /// Before a write that may cover frame bytes [Lo, Hi) (offsets from the
  /// frame's bottom): the bytes of every spilled pointer it may leave in
  /// part become Slot::Residue. With `Exact` (the write covers exactly
  /// [Lo, Hi): a fixed offset and size, and it cannot fail) those outside
  /// [Lo, Hi); otherwise all of them. The caller erases the spills.
  void leaveResidue(Frame &F, int64_t Lo, int64_t Hi, bool Exact);
  MaybeDiag load(uint32_t Pc, const Insn &I, State &S);
  MaybeDiag store(uint32_t Pc, const Insn &I, State &S);
  MaybeDiag atomic(uint32_t Pc, const Insn &I, State &S);
  /// A helper call: the generic checker, which reads the helper's row of
  /// the platform's table (HelperCalls.cpp).
  MaybeDiag helperCall(uint32_t Pc, int32_t Id, State &S);
  /// What a helper call's arguments tell of its result and effects,
  /// gathered as they are checked.
  struct HelperArgs {
    const object::MapSpec *Map = nullptr; ///< MapPtr: the map named
    uint64_t AllocBytes = 0;              ///< AllocSize: the size to allocate
    uint32_t Released = 0; ///< ReleaseAlloc: the reference released
    uint32_t DynptrId = 0; ///< Dynptr: the id of the dynptr it names
    std::optional<uint64_t> KeyConst; ///< a 4-byte key known on the stack,
    unsigned KeyFrame = 0, KeyAt = 0; ///< and where its bytes are
    std::optional<uint32_t> Callback; ///< Callback: the subprogram's first pc
    std::vector<FormatArg> Format;    ///< FormatStr: its conversions, in order
  };
  // The checkers of the kinds of argument that take more than a line, and
  // the helpers' results and effects, each named after what it models.
  MaybeDiag helperArg(uint32_t Pc, const platform::HelperProto &H, size_t A,
                      State &S, HelperArgs &Args);
  MaybeDiag mapArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                   State &S, HelperArgs &Args);
  MaybeDiag mapMemArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                      State &S, HelperArgs &Args);
  MaybeDiag sizedMemArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                        State &S, bool CheckSpills = true);
  MaybeDiag fixedMemArg(uint32_t Pc, const platform::HelperProto &H, unsigned R, State &S);
  MaybeDiag formatStrArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                         State &S, HelperArgs &Args);
  MaybeDiag formatDataArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                          State &S, const HelperArgs &Args);
  MaybeDiag formatPointer(uint32_t Pc, const std::string &What, FormatArg A, const Reg &P,
                          const State &S);
  MaybeDiag rcuKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K);
  MaybeDiag fixedOutArg(uint32_t Pc, const platform::HelperProto &H, unsigned R, State &S);
  MaybeDiag constStrArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                        const State &S);
  void helperFillsStack(State &S, const Reg &Buf, uint64_t Size);
  MaybeDiag releaseArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                       State &S, HelperArgs &Args);
  MaybeDiag callbackArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                        State &S, HelperArgs &Args);
  MaybeDiag spinLockArg(uint32_t Pc, const platform::HelperProto &H, unsigned R, State &S);
  /// The state in which the callback `Args.Callback` starts, from the
  /// caller's state `S` at helper call `Pc` (its arguments checked).
  MaybeDiag enterCallback(uint32_t Pc, const State &S, const HelperArgs &Args);
  MaybeDiag tailCallHoldsNoRef(uint32_t Pc, const platform::HelperProto &H,
                               const State &S);
  void releaseRef(State &S, uint32_t Ref);
  Reg mapLookupResult(const HelperArgs &Args, bool KeyMayElideNull);
  Reg allocResult(uint32_t Pc, State &S, uint64_t Bytes);
  void movePacket(State &S);
  MaybeDiag localCall(uint32_t Pc, const Insn &I, State &S);
  MaybeDiag exitInsn(uint32_t Pc, State &S, bool &Ended, uint32_t &NextPc);
  MaybeDiag callbackExit(uint32_t Pc, State &S, uint32_t &NextPc);
  /// A kfunc call (Iterators.cpp): the open-coded iterators' new, next and
  /// destroy; next forks the path of the next turn into `Forks`.
  MaybeDiag kfuncCall(Path &P, int32_t Id, std::vector<Path> &Forks);
  /// A dynptr kfunc (Dynptrs.cpp): bpf_dynptr_from_xdp, a slice, _clone,
  /// _copy, _memset or a query.
  MaybeDiag dynptrKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K);
  /// ebpf-gpu's ebpf_gpu_match (MatchKfunc.cpp): the context, a scalar
  /// offset and a pattern map; an int result.
  /// ebpf_gpu_match_all too: then also a bitmap on the stack, 8-aligned,
  /// written for its constant size (r4, r5).
  MaybeDiag matchKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K);
  /// The XDP RX metadata kfuncs (RxMetadata.cpp): the context, then the
  /// memory they fill.
  MaybeDiag rxMetadataKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K);
  MaybeDiag pullDataKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K);
  /// A context kfunc's arguments read, r1 the context as the program got
  /// it (RxMetadata.cpp).
  MaybeDiag kfuncContextArgs(uint32_t Pc, const State &S, const platform::KfuncProto &K);
  /// ebpf-gpu's ebpf_gpu_classify (ClassifyKfunc.cpp): features on the
  /// stack, their constant size and a model map; an int result.
  MaybeDiag classifyKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K);
  /// Argument `R` of ebpf-gpu's kfunc `K` as a reference to a map of
  /// `Type` (an ebpf-gpu map type, `What` its kind in messages: "pattern",
  /// "model"; `TypeName` its BPF_MAP_TYPE_ name) (MatchKfunc.cpp).
  MaybeDiag ebpfgpuMapArg(uint32_t Pc, const State &S, const platform::KfuncProto &K, unsigned R,
                          uint32_t Type, const char *What, const char *TypeName);
  /// Register `R` (named `Arg` in messages) as a stack pointer where a
  /// dynptr may live; its byte from the frame's bottom in `At`.
  MaybeDiag dynptrObject(uint32_t Pc, State &S, unsigned R, const std::string &Arg,
                         unsigned &At);
  /// Register `R` as a pointer to an initialised dynptr (a kfunc's or an
  /// ArgCheck::Dynptr argument); its id in `Id`.
  MaybeDiag dynptrArg(uint32_t Pc, State &S, unsigned R, const std::string &Arg, uint32_t &Id);
  /// Destroys the dynptrs of `F` that bytes [Lo, Hi) (from the frame's
  /// bottom) overlap, and their slices, as a store over them does.
  void destroyDynptrs(State &S, Frame &F, int64_t Lo, int64_t Hi);
  /// Whether r1 points to an active iterator (at an iterator's next: a
  /// loop head).
  bool iterActiveAt(const State &S) const;
  /// The kernel's widen_imprecise_scalars: `Q`, the next turn at the
  /// iterator's next at `Pc`, against the previous turn's checkpoint there.
  void widenImprecise(State &Q, uint32_t Pc);
  /// What the first reference `S` holds is, and what was not done to it
  /// (with "the", or else "a").
  std::string unreleased(const State &S, bool Definite) const;
  void branch(uint32_t Pc, const Insn &I, State &S, std::optional<State> &Taken,
              std::optional<State> &NotTaken);
  bool refineScalar(State &S, unsigned R, uint8_t Op, const Reg &Other,
                    bool Is32);
  void setLinked(State &S, uint32_t Id, const Reg &Value);
  void nullCheck(State &S, uint32_t Id, bool IsNull);
  uint32_t freshId() { return ++LastId; }
  uint32_t record(Path &P);
  void propagatePrecision(uint32_t Node, PreciseSet M);
  void markPrecise(const State &S, unsigned R);
  /// The path being executed reads `Slots` of frame `Frame`: the
  /// checkpoints it passed since they were last written whole learn that
  /// they are live there.
  void markStackRead(unsigned Frame, uint64_t Slots);
  /// Stack slots [Lo, Hi) bytes (from the frame's bottom) as a slot mask.
  static uint64_t slotMask(int64_t Lo, int64_t Hi);
  Frame &frameOf(State &S, const Reg &Stack) { return S.Frames[Stack.Aux]; }
  std::string regName(unsigned R) const { return "r" + std::to_string(R); }
  bool isPruneable(uint32_t Pc) const { return PrunePoint.count(Pc) != 0; }
  void finishPath(Checkpoint *C) {
    for (; C && --C->Branches == 0; C = C->Parent) {
    }
  }

  const object::ProgramSpec &Prog;
  const std::vector<Insn> &Insns;
  std::vector<object::MapSpec> Maps;
  std::map<size_t, uint32_t> InnerIndex;
  const Options &Opts;
  std::set<uint32_t> PrunePoint;
  /// Helper calls that call a callback (bpf_loop): loop heads, where a state
  /// still being explored covers the next turn's.
  std::set<uint32_t> CallbackSites;
  /// Iterators' next calls: loop heads, as the kernel's is_iter_next_insn.
  std::set<uint32_t> IterNextSites;
  /// Set while a loop head's pruning marks everything precise (not
  /// Checkpoint::Decided).
  bool LoopMarking = false;
  /// Set by a helper call with a callback: the path that enters it, which
  /// step() forks.
  std::optional<State> CallbackEntry;
  /// Registers live before each instruction (bit per register).
  std::vector<uint16_t> LiveIn;
  /// The kind of base each load was first seen with, the context kept once
  /// seen (load(): one instruction reads the context always or never).
  std::vector<Kind> LoadBase;
  std::deque<Checkpoint> Checkpoints;
  std::map<uint32_t, std::vector<Checkpoint *>> StatesAt;
  std::vector<Checkpoint *> CheckpointList;
  /// Every executed instruction of every path (precision tracking).
  std::deque<TraceNode> Trace;
  /// The node of the instruction being executed, and its path.
  uint32_t CurNode = NoNode;
  Path *CurPath = nullptr;
  uint32_t LastId = 0;
  /// Instructions that read, on some path, stack bytes not written before
  /// (Result::UninitStackReads).
  std::set<uint32_t> UninitStackReads;
  Result Res;
};

} // namespace ebpfgpu::verifier::detail

#endif // EBPF_GPU_VERIFIER_LIB_VERIFIERENGINE_H

// SPDX-License-Identifier: Apache-2.0
//
// Private to the verifier: the abstract values of registers and stack
// slots, the state of a path (call frames, proven packet ranges), state
// coverage for pruning, and scalar interval arithmetic.

#ifndef EBPF_GPU_VERIFIER_ABSTRACTSTATE_H
#define EBPF_GPU_VERIFIER_ABSTRACTSTATE_H

#include "Tnum.h"

#include "ebpf-gpu/ISA/Insn.h"

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ebpfgpu::verifier {

enum class Kind : uint8_t {
  NotInit,
  Scalar,
  Ctx,            ///< the context; Off is the field offset
  Stack,          ///< frame Aux's stack; offset Off + [SMin, SMax] from its top
  Packet,         ///< data + variable part (identity Id, bounds [SMin, SMax]) + Off
  PacketEnd,      ///< data_end
  PacketMeta,     ///< data_meta + Off
  MapPtr,         ///< map Aux
  MapValue,       ///< value of map Aux, at Off + [SMin, SMax]
  MapValueOrNull, ///< as MapValue, or null; Id links copies for the null check
  MapPtrOrNull,   ///< an inner map from a map-of-maps lookup, or null
  RawMem,         ///< raw platform: the input memory, at Off + [SMin, SMax]
  AllocMem,       ///< a reserved ring buffer record of Aux bytes, at Off; Ref is
                  ///< the reference the program must release
  AllocMemOrNull, ///< as AllocMem, or null; Id links copies for the null check
  FuncPtr,        ///< a subprogram's address (lddw of a code address): its first pc in
                  ///< Aux; only a callback argument (bpf_loop) takes it
  Iter,           ///< an open-coded iterator (bpf_iter_num), only ever spilled: the
                  ///< stack slot's content; Aux IterActive or IterDrained, Ref the
                  ///< reference bpf_iter_num_destroy releases, UMin the turns
                  ///< begun (the kernel's iter.depth: not compared by covers(),
                  ///< but two turns are never the same state, so the same
                  ///< state at two turns is no infinite loop)
  IterElem,       ///< bpf_iter_num_next's result: read-only memory of Aux bytes, at Off
  MapKey,         ///< a key of map Aux, at Off + [SMin, SMax]: read-only (the kernel's
                  ///< PTR_TO_MAP_KEY, bpf_for_each_map_elem's callback's r2)
  Dynptr,         ///< a struct bpf_dynptr over the packet (bpf_dynptr_from_xdp), only
                  ///< ever spilled, in two slots: Off 0 in the first, 8 in the
                  ///< second; Id names it (the slices made from it carry it in Ref)
  DynptrSlice,    ///< bpf_dynptr_slice(_rdwr)'s result: the packet's bytes, Aux (see
                  ///< sliceSize) of them, at Off + [SMin, SMax]; writable where Aux
                  ///< has SliceWritable (the kernel's PTR_TO_MEM | DYNPTR_TYPE_XDP,
                  ///< MEM_RDONLY for bpf_dynptr_slice); Ref the dynptr's Id
  DynptrSliceOrNull, ///< as DynptrSlice, or null; Id links copies for the null check
};

/// Kind::DynptrSlice's Aux: the size, and whether the slice is writable.
constexpr uint32_t SliceWritable = 1u << 31;
inline uint32_t sliceSize(uint32_t Aux) { return Aux & ~SliceWritable; }

/// Kind::Iter's states, as the kernel's BPF_ITER_STATE_ACTIVE / _DRAINED.
constexpr uint32_t IterActive = 1, IterDrained = 2;

const char *kindName(Kind K);

/// Deepest chain of bpf-to-bpf calls (frames), as the kernel's.
constexpr unsigned MaxCallDepth = 8;

constexpr uint64_t U64Max = std::numeric_limits<uint64_t>::max();
constexpr int64_t S64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t S64Max = std::numeric_limits<int64_t>::max();

/// A register's abstract value. For scalars [UMin, UMax] and [SMin, SMax]
/// bound the value, [U32Min, U32Max] and [S32Min, S32Max] its low 32 bits
/// (as the kernel tracks them for 32-bit operations and JMP32), and T its
/// known bits; normalize() keeps them consistent. For pointers [SMin, SMax]
/// bounds the variable part of the offset (the rest unused) and Off is the
/// fixed part.
struct Reg {
  Kind K = Kind::NotInit;
  uint64_t UMin = 0, UMax = 0;
  int64_t SMin = 0, SMax = 0;
  uint32_t U32Min = 0, U32Max = 0;
  int32_t S32Min = 0, S32Max = 0;
  Tnum T = Tnum::known(0);
  int64_t Off = 0;
  uint32_t Id = 0;
  uint32_t Aux = 0;
  /// Allocated memory: the reference (State::Refs) it belongs to.
  uint32_t Ref = 0;

  static Reg scalar(uint64_t UMin, uint64_t UMax, int64_t SMin, int64_t SMax);
  static Reg constant(uint64_t V) { return scalar(V, V, int64_t(V), int64_t(V)); }
  static Reg unknown() { return scalar(0, U64Max, S64Min, S64Max); }
  static Reg pointer(Kind K, int64_t Off, uint32_t Aux = 0) {
    Reg R;
    R.K = K;
    R.Off = Off;
    R.Aux = Aux;
    return R;
  }

  bool isPointer() const { return K != Kind::NotInit && K != Kind::Scalar; }
  bool isConst() const { return K == Kind::Scalar && UMin == UMax; }
  bool hasVarOff() const { return SMin != 0 || SMax != 0; }
  bool operator==(const Reg &O) const = default;

  /// Tightens the bounds and known bits from each other; false when no
  /// value is left.
  bool normalize();
  std::string str() const;
};

/// One byte of a stack frame. Residue: a byte of a spilled pointer that a
/// narrower write (or a helper's output buffer) overwrote only in part, as
/// the kernel's STACK_MISC for a privileged loader: it may be written, but
/// reading it (as data, or as part of a pointer) is a pointer leak.
enum class Slot : uint8_t { Uninit, Data, Spill, Residue };

struct Frame {
  std::array<Slot, isa::MaxStackBytes> Bytes{};
  /// Known constant bytes (-1: unknown), for constant map keys.
  std::array<int16_t, isa::MaxStackBytes> Known;
  Frame() { Known.fill(-1); }
  /// Spilled registers by byte offset (from the frame's bottom, 8-aligned).
  std::map<unsigned, Reg> Spills;
  /// Caller side: where to return, and the caller's r6-r9 and r10.
  uint32_t ReturnPc = 0;
  std::array<Reg, 5> SavedRegs;
  /// A callback's frame (bpf_loop): its exit goes back to the helper call
  /// at ReturnPc, which runs again with the caller's r1-r4 kept here.
  bool Callback = false;
  std::array<Reg, 4> SavedArgs;
  /// The first pc of the function (recursion checks).
  uint32_t Entry = 0;
  /// Turns of a callback done by the bpf_loop this function is in (the
  /// kernel's callback_depth): the helper's nr_loops bounds them, and a
  /// state that has done more turns has fewer left.
  uint32_t Turns = 0;
  bool operator==(const Frame &O) const = default;
};

struct State {
  std::array<Reg, isa::NumRegs> Regs;
  std::vector<Frame> Frames;
  /// Proven readable bytes from data + variable part, by packet pointer id.
  std::map<uint32_t, int64_t> PacketRange;
  /// Proven readable bytes from data_meta.
  int64_t MetaRange = 0;
  /// References the program holds (reserved ring buffer records), by id,
  /// with the pc that acquired each: each must be released on every path.
  std::map<uint32_t, uint32_t> Refs;
  /// The bpf_spin_lock held (at most one, as the kernel's): the map whose
  /// value holds it and the id of the lookup that found the value (0: the
  /// map's one value, global data).
  struct HeldLock {
    uint32_t Map = 0, Id = 0;
    bool operator==(const HeldLock &O) const = default;
  };
  std::optional<HeldLock> Lock;
  /// Inside a bpf_rcu_read_lock-ed region (not nested, as the kernel's).
  bool Rcu = false;
  bool operator==(const State &O) const = default;
};

struct PreciseSet;

/// True when every concrete state `New` stands for is also one `Old` stands
/// for, in the sense that matters for safety: a continuation proven safe
/// from Old is safe from New.
/// `LiveRegs` (bit per register) are the registers the continuation may
/// read before writing them; the others do not matter. Scalars (registers
/// and spilled) that are not in `Precise` matter only as scalars: their
/// bounds decided nothing in Old's continuation (nullptr: all precise).
/// Stack slots not in `LiveSlots` (bit per 8-byte slot, per frame) are
/// written whole by Old's continuation before it reads them, and do not
/// matter (nullptr: all live).
bool covers(const State &Old, const State &New, uint16_t LiveRegs = 0xffff,
            const PreciseSet *Precise = nullptr,
            const std::array<uint64_t, MaxCallDepth> *LiveSlots = nullptr);

/// Scalar arithmetic on bounds. Each returns an over-approximation.
Reg scalarAlu(uint8_t Op, const Reg &D, const Reg &S, bool Is64, int16_t Off);
/// Truncates a 64-bit scalar to its low 32 bits (zero-extended).
Reg truncate32(const Reg &R);
/// A scalar after BPF_END of width `W` (16, 32, 64): with `Swap` its low W
/// bits byte-swapped (the known bits move with their bytes), without, only
/// its low W bits kept (a to-little-endian conversion on this little-endian
/// machine), zero-extended either way.
Reg byteSwap(const Reg &D, unsigned W, bool Swap);

/// Jump conditions for refineScalar: the JMP opcodes' operations, and the
/// negation of JSET.
constexpr uint8_t NotJset = 0xe0;

/// Narrows scalar `V` to the values for which "V Op O" holds, on the full
/// 64 bits or (Is32) on the low halves. False when none does.
bool refineScalarBounds(Reg &V, uint8_t Op, const Reg &O, bool Is32);

std::string stateStr(const State &S);

} // namespace ebpfgpu::verifier

#endif // EBPF_GPU_VERIFIER_ABSTRACTSTATE_H

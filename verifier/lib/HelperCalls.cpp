// SPDX-License-Identifier: Apache-2.0
//
// The verifier's helper calls: one generic checker reads the helper's row
// of the platform's table (argument obligations, the maps it takes, its
// result, its effect) and hands what is not a line of checking to the small
// functions below, each named after the kind of argument, result or effect
// it models. No check is chosen by a helper's id or name.
//
// The rules that are more than an argument's type, each chosen by a column
// of the row and kept here alone:
//   - map/helper pairing: the row's map families (mapArg);
//   - a constant key in range makes an array lookup non-null: the result
//     MapValueOrNullByKey (mapMemArg remembers the key, mapLookupResult);
//   - references: AllocMemOrNull makes one, ReleaseAlloc releases it and
//     every copy (allocResult, releaseArg, releaseRef);
//   - HelperEffect::TailCall: no reference may be held across it
//     (tailCallHoldsNoRef);
//   - HelperEffect::MovesPacket: every packet pointer goes stale
//     (movePacket), dynptr slices with them;
//   - HelperEffect::StoresPacket: the packet is written (WritesPacket);
//   - HelperEffect::ChangesMap: not on a BPF_F_RDONLY_PROG map (mapArg);
//   - no packet memory for a row without PacketAccess, a constant string in
//     .rodata for ConstStr (sizedMemArg, constStrArg);
//   - FormatStr is parsed (FormatString.h) and its conversions size the
//     FormatData after it: a u64 each, a pointer the verifier tracks where
//     the conversion reads memory (formatStrArg, formatDataArg: FormatArgs.cpp);
//   - Callback: the helper call is a loop head whose body is the callback,
//     entered on a path of its own (callbackArg, enterCallback; its exit:
//     Verifier::callbackExit).

#include "VerifierEngine.h"

#include "ebpf-gpu/ISA/Disassembler.h"

#include <algorithm>
#include <cassert>
#include <sstream>

namespace ebpfgpu::verifier::detail {

namespace {

/// Why helper `H` may not take map `M` (empty when it may): its row names
/// the families of map it takes.
std::string mapHelperMismatch(const object::MapSpec &M,
                              const platform::HelperProto &H) {
  if (std::any_of(H.Maps.begin(), H.Maps.end(), [&](platform::MapFamily F) {
        return platform::mapInFamily(M.Type, F);
      }))
    return "";
  return "bpf_" + H.Name + " cannot use map '" + M.Name + "' (" +
         platform::mapTypeName(M.Type) + ")";
}

} // namespace

std::string argName(const platform::HelperProto &H, unsigned R) {
  return "bpf_" + H.Name + " argument " + std::to_string(R) + " (r" +
         std::to_string(R) + ")";
}

MaybeDiag Verifier::helperCall(uint32_t Pc, int32_t Id, State &S) {
  const platform::HelperProto *H = Opts.Platform->helper(Id);
  if (!H)
    return fail(Pc, platform::unsupportedHelper(*Opts.Platform, Id),
                "known_helper(" + std::to_string(Id) + ")");
  if (H->GplOnly && Opts.License && !isGplCompatible(*Opts.License))
    return fail(Pc,
                "bpf_" + H->Name + " is GPL-only; the program's license '" +
                    *Opts.License + "' is not GPL-compatible",
                "gpl_compatible(license)");
  // As the kernel's: inside a bpf_spin_lock-ed region only the unlock.
  if (S.Lock && !std::count(H->Checks.begin(), H->Checks.end(), platform::ArgCheck::SpinUnlock))
    return fail(Pc, "function calls are not allowed while holding a lock (bpf_" + H->Name +
                        " inside a bpf_spin_lock-ed region)",
                "no_call(locked)");
  HelperArgs Args;
  for (size_t A = 0; A < H->Checks.size(); ++A)
    if (auto E = helperArg(Pc, *H, A, S, Args))
      return E;
  if (H->Effect == platform::HelperEffect::TailCall) {
    if (auto E = tailCallHoldsNoRef(Pc, *H, S))
      return E;
    if (std::any_of(S.Frames.begin(), S.Frames.end(), [](const Frame &F) { return F.Callback; }))
      return fail(Pc, "bpf_" + H->Name + " inside a callback is not supported",
                  "no_tail_call(callback)");
    if (S.Rcu)
      return fail(Pc, "tail_call cannot be used inside bpf_rcu_read_lock-ed region",
                  "rcu_unlocked(tail_call)");
  }
  if (Args.Callback) {
    if (auto E = enterCallback(Pc, S, Args))
      return E;
    S.Frames.back().Turns = 0; // after the call, the loop is over
  }
  for (unsigned R = 1; R <= 5; ++R)
    S.Regs[R] = Reg();
  if (Args.Released)
    releaseRef(S, Args.Released);
  switch (H->Result) {
  case platform::RetCheck::Scalar:
    S.Regs[0] = Reg::unknown();
    break;
  case platform::RetCheck::MapValueOrNull:
  case platform::RetCheck::MapValueOrNullByKey:
    S.Regs[0] = mapLookupResult(
        Args, H->Result == platform::RetCheck::MapValueOrNullByKey);
    break;
  case platform::RetCheck::AllocMemOrNull:
    S.Regs[0] = allocResult(Pc, S, Args.AllocBytes);
    break;
  case platform::RetCheck::DynptrMemOrNull:
    // A writable slice of the dynptr (an XDP dynptr is never read-only),
    // gone with it or with the packet, as bpf_dynptr_slice_rdwr's.
    S.Regs[0] = Reg::pointer(Kind::DynptrSliceOrNull, 0,
                             uint32_t(std::min<uint64_t>(Args.AllocBytes, MaxSlice)) |
                                 SliceWritable);
    S.Regs[0].Id = freshId();
    S.Regs[0].Ref = Args.DynptrId;
    Res.WritesPacket = true;
    break;
  }
  if (H->Effect == platform::HelperEffect::MovesPacket)
    movePacket(S);
  if (H->Effect == platform::HelperEffect::StoresPacket)
    Res.WritesPacket = true;
  return std::nullopt;
}

/// Argument `A` (0-based) of `H` against its row's ArgCheck.
MaybeDiag Verifier::helperArg(uint32_t Pc, const platform::HelperProto &H,
                              size_t A, State &S, HelperArgs &Args) {
  unsigned R = unsigned(A + 1);
  std::string Arg = argName(H, R);
  // Variadic: may be unwritten (bpf_printk with fewer arguments).
  if (H.Checks[A] == platform::ArgCheck::Unused)
    return std::nullopt;
  if (auto E = readReg(Pc, S, R))
    return E;
  const Reg &V = S.Regs[R];
  switch (H.Checks[A]) {
  case platform::ArgCheck::Anything:
  case platform::ArgCheck::Unused:
    break;
  case platform::ArgCheck::Scalar:
    if (V.K != Kind::Scalar)
      return fail(Pc, Arg + " must be a scalar, is a " + kindName(V.K),
                  "type(" + regName(R) + ") == scalar");
    break;
  case platform::ArgCheck::Ctx:
    if (V.K != Kind::Ctx || V.Off != 0)
      return fail(Pc,
                  Arg + " must be the context pointer, is a " +
                      std::string(kindName(V.K)),
                  "type(" + regName(R) + ") == ctx");
    break;
  case platform::ArgCheck::MapPtr:
    return mapArg(Pc, H, R, S, Args);
  case platform::ArgCheck::MapKey:
  case platform::ArgCheck::MapValue:
  case platform::ArgCheck::MapValueOut:
    return mapMemArg(Pc, H, R, S, Args);
  case platform::ArgCheck::Mem:
  case platform::ArgCheck::UninitMem:
  case platform::ArgCheck::InOutMem:
    return sizedMemArg(Pc, H, R, S);
  case platform::ArgCheck::AllocSize:
    markPrecise(S, R);
    if (V.K != Kind::Scalar || !V.isConst())
      return fail(Pc, Arg + " must be a known constant size, is " + V.str(),
                  "constant(" + regName(R) + ")");
    Args.AllocBytes = V.UMin;
    break;
  case platform::ArgCheck::ReleaseAlloc:
    return releaseArg(Pc, H, R, S, Args);
  case platform::ArgCheck::InOutU32:
  case platform::ArgCheck::OutFixedMem:
    return fixedOutArg(Pc, H, R, S);
  case platform::ArgCheck::ConstStr:
    return constStrArg(Pc, H, R, S);
  case platform::ArgCheck::FormatStr:
    return formatStrArg(Pc, H, R, S, Args);
  case platform::ArgCheck::FormatData:
    return formatDataArg(Pc, H, R, S, Args);
  case platform::ArgCheck::FixedMem:
    return fixedMemArg(Pc, H, R, S);
  case platform::ArgCheck::Callback:
    return callbackArg(Pc, H, R, S, Args);
  case platform::ArgCheck::SpinLock:
  case platform::ArgCheck::SpinUnlock:
    return spinLockArg(Pc, H, R, S);
  case platform::ArgCheck::Dynptr:
    return dynptrArg(Pc, S, R, Arg, Args.DynptrId);
  case platform::ArgCheck::CallbackCtx:
    // The callback's accesses through it are checked as its own.
    if (V.K == Kind::Stack)
      break;
    markPrecise(S, R);
    if (!V.isConst() || V.UMin != 0)
      return fail(Pc, Arg + " must be a stack pointer or null, is " + V.str(),
                  "type(" + regName(R) + ") == stack|null");
    break;
  case platform::ArgCheck::ConstSize:
  case platform::ArgCheck::ConstSizeOrZero:
    if (V.K != Kind::Scalar)
      return fail(Pc,
                  Arg + " must be a size, is a " + std::string(kindName(V.K)),
                  "type(" + regName(R) + ") == scalar");
    break;
  }
  return std::nullopt;
}

/// MapPtr: a map reference, of a family the helper takes.
MaybeDiag Verifier::mapArg(uint32_t Pc, const platform::HelperProto &H,
                           unsigned R, State &S, HelperArgs &Args) {
  const Reg &V = S.Regs[R];
  if (V.K != Kind::MapPtr)
    return fail(Pc,
                argName(H, R) + " must be a map reference, is a " +
                    std::string(kindName(V.K)),
                "type(" + regName(R) + ") == map");
  Args.Map = &Maps[V.Aux];
  if (std::string Why = mapHelperMismatch(*Args.Map, H); !Why.empty())
    return fail(Pc, Why, "map_func_compatible(" + regName(R) + ")");
  // The kernel's record_func_map ("write into map forbidden"); a map's
  // values the program reads are kept read-only by access().
  if (H.Effect == platform::HelperEffect::ChangesMap &&
      (Args.Map->Flags & platform::MapFlagReadOnlyProg))
    return fail(Pc, "bpf_" + H.Name + " cannot change read-only map '" + Args.Map->Name + "'",
                "writable(" + regName(R) + ")");
  return std::nullopt;
}

/// MapKey, MapValue: readable memory of the size of the key or value of the
/// map an earlier argument named. A 4-byte key whose bytes are known on the
/// stack is remembered: an array lookup with it in range cannot fail.
/// MapValueOut: writable memory of the value's size, which the helper fills
/// (its bytes need not be written before).
MaybeDiag Verifier::mapMemArg(uint32_t Pc, const platform::HelperProto &H,
                              unsigned R, State &S, HelperArgs &Args) {
  const Reg &V = S.Regs[R];
  std::string Arg = argName(H, R);
  bool IsKey = H.Checks[R - 1] == platform::ArgCheck::MapKey;
  if (!Args.Map)
    return fail(Pc, Arg + " has no map to size it", "internal");
  unsigned Size = IsKey ? Args.Map->KeySize : Args.Map->ValueSize;
  if (V.K != Kind::Stack && V.K != Kind::MapValue && V.K != Kind::Packet &&
      V.K != Kind::MapKey)
    return fail(Pc,
                Arg + " must point to memory, is a " +
                    std::string(kindName(V.K)),
                "type(" + regName(R) + ") == mem");
  if (!H.PacketAccess && V.K == Kind::Packet)
    return fail(Pc, Arg + ": helper access to the packet is not allowed (bpf_" + H.Name +
                        " takes no packet memory, as the kernel's)",
                "type(" + regName(R) + ") != packet");
  if (H.Checks[R - 1] == platform::ArgCheck::MapValueOut) {
    if (auto E = access(Pc, S, R, 0, Size, /*Write=*/true, "helper access")) {
      E->Reason = Arg + ": " + E->Reason;
      return E;
    }
    if (V.K == Kind::Stack)
      helperFillsStack(S, V, Size);
    return std::nullopt;
  }
  // Keys and values may hold struct padding the program never wrote, as
  // the kernel allows; the runtime zeroes every frame, so it reads zeros.
  if (auto E = access(Pc, S, R, 0, Size, false, "helper read")) {
    E->Reason = Arg + ": " + E->Reason;
    return E;
  }
  if (auto E = spilledPointerRead(Pc, S, R, 0, Size, Arg))
    return E;
  if (IsKey && Size == 4 && V.K == Kind::Stack && !V.hasVarOff()) {
    const Frame &F = frameOf(S, V);
    unsigned At = unsigned(V.Off + int64_t(isa::MaxStackBytes));
    uint64_t K = 0;
    bool Known = true;
    for (unsigned X = 0; X < 4; ++X) {
      if (F.Known[At + X] < 0)
        Known = false;
      else
        K |= uint64_t(F.Known[At + X]) << (8 * X);
    }
    if (Known) {
      Args.KeyConst = K;
      Args.KeyFrame = V.Aux;
      Args.KeyAt = At;
    }
  }
  return std::nullopt;
}

/// Mem, UninitMem, InOutMem: memory the helper reads, fills or rewrites,
/// whose size is the next argument. Without `CheckSpills` the caller
/// checks the pointers spilled in it (FormatData).
MaybeDiag Verifier::sizedMemArg(uint32_t Pc, const platform::HelperProto &H,
                                unsigned R, State &S, bool CheckSpills) {
  const Reg &V = S.Regs[R];
  std::string Arg = argName(H, R);
  size_t A = R - 1;
  bool Uninit = H.Checks[A] == platform::ArgCheck::UninitMem;
  bool InOut = H.Checks[A] == platform::ArgCheck::InOutMem;
  const Reg &SizeReg = S.Regs[R + 1];
  markPrecise(S, R + 1);
  if (SizeReg.K != Kind::Scalar)
    return fail(Pc,
                argName(H, R + 1) + " must be a size, is a " +
                    kindName(SizeReg.K),
                "type(" + regName(R + 1) + ") == scalar");
  bool ZeroOk = A + 1 < H.Checks.size() &&
                H.Checks[A + 1] == platform::ArgCheck::ConstSizeOrZero;
  if (SizeReg.UMax > 0xffff || (!ZeroOk && SizeReg.UMin == 0))
    return fail(Pc,
                argName(H, R + 1) + " must be a size " +
                    (ZeroOk ? "" : "above 0 ") + "with a known bound, is " +
                    SizeReg.str(),
                "bounded(" + regName(R + 1) + ")");
  if (SizeReg.UMax == 0)
    return std::nullopt;
  if (V.K != Kind::Stack && V.K != Kind::MapValue && V.K != Kind::Packet &&
      V.K != Kind::PacketMeta && V.K != Kind::AllocMem && V.K != Kind::MapKey &&
      V.K != Kind::DynptrSlice)
    return fail(Pc,
                Arg + " must point to memory, is a " +
                    std::string(kindName(V.K)),
                "type(" + regName(R) + ") == mem");
  if (!H.PacketAccess &&
      (V.K == Kind::Packet || V.K == Kind::PacketMeta || V.K == Kind::DynptrSlice))
    return fail(Pc, Arg + ": helper access to the packet is not allowed (bpf_" + H.Name +
                        " takes no packet memory, as the kernel's)",
                "type(" + regName(R) + ") != packet");
  // As the kernel's (no pkt_access): the helper rewrites it in place.
  if (InOut && V.K != Kind::Stack && V.K != Kind::MapValue)
    return fail(Pc,
                Arg + " must point to the stack or a map value, is a " +
                    std::string(kindName(V.K)),
                "type(" + regName(R) + ") == stack|map_value");
  if (auto E = access(Pc, S, R, 0, unsigned(SizeReg.UMax), /*Write=*/Uninit,
                      "helper access")) {
    E->Reason = Arg + ": " + E->Reason;
    return E;
  }
  if (!Uninit && CheckSpills)
    if (auto E = spilledPointerRead(Pc, S, R, 0, SizeReg.UMax, Arg))
      return E;
  // A buffer the helper reads and rewrites must be writable too.
  if (InOut)
    if (auto E = access(Pc, S, R, 0, unsigned(SizeReg.UMax), true,
                        "helper access")) {
      E->Reason = Arg + ": " + E->Reason;
      return E;
    }
  if ((Uninit || InOut) && V.K == Kind::Stack)
    helperFillsStack(S, V, SizeReg.UMax);
  return std::nullopt;
}

/// InOutU32: a u32 the helper reads and rewrites. As the kernel's fixed-size
/// memory argument that the helper writes (no raw mode): readable (stack
/// bytes never written included, as the kernel allows a privileged loader:
/// the runtime zeroes every frame, so the helper reads zeros), writable,
/// aligned to 4, and not the packet (the helper has no packet access).
/// OutFixedMem: the same of the row's size, written only (raw mode: the
/// kernel's MEM_UNINIT), aligned to its size. Pointer offsets carry no
/// known bits here, so a variable offset, which the kernel takes where its
/// known bits are aligned, is refused.
MaybeDiag Verifier::fixedOutArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                                State &S) {
  const Reg &V = S.Regs[R];
  std::string Arg = argName(H, R);
  bool InOut = H.Checks[R - 1] == platform::ArgCheck::InOutU32;
  unsigned Size = InOut ? 4 : H.MemSizes[R - 1];
  assert(Size && (Size & (Size - 1)) == 0 && "OutFixedMem without a power-of-two size");
  std::string What = InOut ? "a u32" : std::to_string(Size) + " bytes";
  if (V.K != Kind::Stack && V.K != Kind::MapValue && V.K != Kind::AllocMem)
    return fail(Pc,
                Arg + " must point to " + What + " on the stack, in a map value or in a record, is a " +
                    std::string(kindName(V.K)),
                "type(" + regName(R) + ") == stack|map_value|ringbuf_mem");
  if ((uint64_t(V.Off) & (Size - 1)) != 0 || V.hasVarOff())
    return fail(Pc,
                Arg + " must be " + std::to_string(Size) + "-byte aligned at a constant offset, is " +
                    V.str(),
                "aligned(" + regName(R) + ", " + std::to_string(Size) + ")");
  for (bool Write : {false, true}) {
    if (!Write && !InOut)
      continue;
    if (auto E = access(Pc, S, R, 0, Size, Write, "helper access")) {
      E->Reason = Arg + ": " + E->Reason;
      return E;
    }
  }
  if (InOut)
    if (auto E = spilledPointerRead(Pc, S, R, 0, Size, Arg))
      return E;
  if (V.K == Kind::Stack)
    helperFillsStack(S, V, Size);
  return std::nullopt;
}

/// ConstStr: as the kernel's constant string argument, a pointer at a
/// constant offset into the value of a read-only global data map (.rodata:
/// the kernel takes a frozen BPF_F_RDONLY_PROG map, which libbpf makes of
/// .rodata alone), whose bytes from there hold a NUL. Its bytes are the
/// object's, fixed before the program runs, so the helper never reads past
/// the value.
MaybeDiag Verifier::constStrArg(uint32_t Pc, const platform::HelperProto &H,
                                unsigned R, const State &S) {
  const Reg &V = S.Regs[R];
  std::string Arg = argName(H, R);
  if (V.K != Kind::MapValue)
    return fail(Pc,
                Arg + " must point to a string in a read-only map value, is a " +
                    std::string(kindName(V.K)),
                "type(" + regName(R) + ") == map_value");
  const object::MapSpec &M = Maps[V.Aux];
  if (!constantGlobalData(M))
    return fail(Pc,
                Arg + " does not point to a read-only map: '" + M.Name +
                    "' may change while the program runs (only .rodata's strings are constant)",
                "readonly_map(" + regName(R) + ")");
  if (V.hasVarOff() || V.Off < 0 || uint64_t(V.Off) >= M.ValueSize)
    return fail(Pc, Arg + " is not a constant address in '" + M.Name + "': " + V.str(),
                "constant_offset(" + regName(R) + ")");
  auto From = M.InitialValue.begin() + std::min<size_t>(size_t(V.Off), M.InitialValue.size());
  if (std::find(From, M.InitialValue.end(), uint8_t(0)) == M.InitialValue.end())
    return fail(Pc,
                Arg + ": the string at offset " + std::to_string(V.Off) + " of '" + M.Name +
                    "' is not zero-terminated",
                "nul_terminated(" + regName(R) + ")");
  return std::nullopt;
}

/// FixedMem: readable memory of the row's size for the argument (the
/// kernel's fixed-size memory argument): the packet, a map value, the
/// stack (bytes never written included, as the kernel allows root: the
/// runtime zeroes every frame).
MaybeDiag Verifier::fixedMemArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                                State &S) {
  const Reg &V = S.Regs[R];
  std::string Arg = argName(H, R);
  assert(R - 1 < H.MemSizes.size() && H.MemSizes[R - 1] && "FixedMem without its size");
  unsigned Size = H.MemSizes[R - 1];
  if (V.K != Kind::Stack && V.K != Kind::MapValue && V.K != Kind::Packet &&
      V.K != Kind::PacketMeta && V.K != Kind::AllocMem && V.K != Kind::MapKey)
    return fail(Pc,
                Arg + " must point to " + std::to_string(Size) + " bytes of memory, is a " +
                    std::string(kindName(V.K)),
                "type(" + regName(R) + ") == mem");
  if (!H.PacketAccess && (V.K == Kind::Packet || V.K == Kind::PacketMeta))
    return fail(Pc, Arg + ": helper access to the packet is not allowed (bpf_" + H.Name +
                        " takes no packet memory, as the kernel's)",
                "type(" + regName(R) + ") != packet");
  if (auto E = access(Pc, S, R, 0, Size, false, "helper access")) {
    E->Reason = Arg + ": " + E->Reason;
    return E;
  }
  return spilledPointerRead(Pc, S, R, 0, Size, Arg);
}

/// The helper fills up to `Size` bytes of the stack buffer `Buf` points to:
/// its bytes are data of unknown value.
void Verifier::helperFillsStack(State &S, const Reg &Buf, uint64_t Size) {
  Frame &F = frameOf(S, Buf);
  int64_t Lo = Buf.Off + Buf.SMin + int64_t(isa::MaxStackBytes);
  int64_t Hi =
      Buf.Off + Buf.SMax + int64_t(isa::MaxStackBytes) + int64_t(Size);
  // A helper may write fewer bytes, or none when it fails: the
  // pointers it may leave in part stay unreadable.
  leaveResidue(F, Lo, Hi, /*Exact=*/false);
  for (int64_t X = Lo; X < Hi; ++X) {
    if (F.Bytes[size_t(X)] == Slot::Residue)
      continue;
    F.Bytes[size_t(X)] = Slot::Data;
    F.Known[size_t(X)] = -1;
  }
  for (auto It = F.Spills.begin(); It != F.Spills.end();)
    It = (int64_t(It->first) < Hi && Lo < int64_t(It->first) + 8)
             ? F.Spills.erase(It)
             : std::next(It);
}

/// ReleaseAlloc: a reserved record, checked for null, at its start; the
/// call releases its reference.
MaybeDiag Verifier::releaseArg(uint32_t Pc, const platform::HelperProto &H,
                               unsigned R, State &S, HelperArgs &Args) {
  const Reg &V = S.Regs[R];
  std::string Arg = argName(H, R);
  if (V.K == Kind::AllocMemOrNull) {
    // The helper that made it: the row whose result is such a record.
    const std::vector<platform::HelperProto> &All = Opts.Platform->helpers();
    auto Maker = std::find_if(All.begin(), All.end(), [](const platform::HelperProto &P) {
      return P.Result == platform::RetCheck::AllocMemOrNull;
    });
    assert(Maker != All.end() && "a record without the helper that reserves it");
    return fail(Pc, Arg + " may be null: check the record of bpf_" + Maker->Name + " first",
                "not_null(" + regName(R) + ")");
  }
  if (V.K != Kind::AllocMem)
    return fail(Pc,
                Arg + " must be a reserved ring buffer record, is a " +
                    std::string(kindName(V.K)),
                "type(" + regName(R) + ") == ringbuf_mem");
  if (V.Off != 0 || V.hasVarOff())
    return fail(Pc,
                Arg + " must point to the start of the record, not offset " +
                    std::to_string(V.Off),
                "offset(" + regName(R) + ") == 0");
  Args.Released = V.Ref;
  return std::nullopt;
}

/// SpinLock, SpinUnlock: the struct bpf_spin_lock of a map value, at its
/// offset exactly (the kernel's process_spin_lock, whose messages these
/// are); the lock taken (none is held: helperCall refuses every call but
/// the unlock while one is), the one held released.
MaybeDiag Verifier::spinLockArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                                State &S) {
  const Reg &V = S.Regs[R];
  std::string Rn = regName(R);
  if (V.K != Kind::MapValue)
    return fail(Pc, argName(H, R) + " must point to a map value's struct bpf_spin_lock, is a " +
                        std::string(kindName(V.K)),
                "type(" + Rn + ") == map_value");
  const object::MapSpec &M = Maps[V.Aux];
  if (V.hasVarOff())
    return fail(Pc, Rn + " doesn't have constant offset. bpf_spin_lock has to be at the "
                         "constant offset",
                "const_offset(" + Rn + ")");
  if (M.SpinLockOff < 0)
    return fail(Pc, "map '" + M.Name + "' has no valid bpf_spin_lock",
                "spin_lock(" + Rn + ")");
  if (V.Off != M.SpinLockOff)
    return fail(Pc, "off " + std::to_string(V.Off) +
                        " doesn't point to 'struct bpf_spin_lock' that is at " +
                        std::to_string(M.SpinLockOff),
                "spin_lock(" + Rn + ")");
  State::HeldLock L{V.Aux, V.Id};
  if (std::count(H.Checks.begin(), H.Checks.end(), platform::ArgCheck::SpinLock)) {
    // A second lock is a helper call while one is held (helperCall), as in
    // the kernel, whose call check comes first too.
    assert(!S.Lock);
    S.Lock = L;
    return std::nullopt;
  }
  if (!S.Lock)
    return fail(Pc, "bpf_spin_unlock without taking a lock", "locked(" + Rn + ")");
  if (!(*S.Lock == L))
    return fail(Pc, "bpf_spin_unlock of different lock", "locked(" + Rn + ")");
  S.Lock.reset();
  return std::nullopt;
}

/// Callback: a subprogram's address, not the address of a function the
/// path is in (no recursion).
MaybeDiag Verifier::callbackArg(uint32_t Pc, const platform::HelperProto &H, unsigned R,
                                State &S, HelperArgs &Args) {
  const Reg &V = S.Regs[R];
  if (V.K != Kind::FuncPtr)
    return fail(Pc,
                argName(H, R) + " must be a function's address (a static function), is a " +
                    std::string(kindName(V.K)),
                "type(" + regName(R) + ") == func");
  for (const Frame &F : S.Frames)
    if (F.Entry == V.Aux)
      return fail(Pc, "recursive call to the function at pc " + std::to_string(V.Aux) +
                          " (bpf_" + H.Name + "'s callback) is not allowed",
                  "no_recursion");
  Args.Callback = V.Aux;
  return std::nullopt;
}

/// The path that runs the callback's next turn: a frame of its own, r1 the
/// index (below the kernel's BPF_MAX_LOOPS, 1 << 23), r2 the callback
/// argument (the helper's r3), as the kernel's set_loop_callback_state. The
/// caller's r1-r4 are kept for the call to run again after each turn. None
/// once the turns done reach nr_loops's bound (r1, a u32; as the kernel's
/// callback_depth against r1's umax): the callback cannot run again.
/// A helper that takes a map (bpf_for_each_map_elem) calls it with r1 the
/// map, r2 a key (read-only), r3 its value (of the value size; this CPU's
/// in a per-CPU map) and r4 the callback argument (the helper's r3), as the
/// kernel's set_map_elem_callback_state; its turns have no bound but the
/// states' convergence, as the kernel's.
MaybeDiag Verifier::enterCallback(uint32_t Pc, const State &S, const HelperArgs &Args) {
  if (S.Frames.size() >= MaxCallDepth)
    return fail(Pc, "call depth exceeds " + std::to_string(MaxCallDepth) + " frames",
                "call_depth");
  constexpr uint64_t MaxLoops = uint64_t(1) << 23;
  const bool OfMap = Args.Map != nullptr;
  if (!OfMap) {
    markPrecise(S, 1);
    if (S.Frames.back().Turns >= std::min<uint64_t>(S.Regs[1].U32Max, MaxLoops))
      return std::nullopt;
  }
  State C = S;
  Frame Callee;
  Callee.ReturnPc = Pc;
  Callee.Callback = true;
  Callee.Entry = *Args.Callback;
  for (unsigned R = 1; R <= 4; ++R)
    Callee.SavedArgs[R - 1] = S.Regs[R];
  for (unsigned R = 6; R <= 10; ++R)
    Callee.SavedRegs[R - 6] = S.Regs[R];
  C.Frames.push_back(std::move(Callee));
  C.Regs = {};
  if (OfMap) {
    uint32_t Map = S.Regs[1].Aux;
    C.Regs[1] = Reg::pointer(Kind::MapPtr, 0, Map);
    C.Regs[2] = Reg::pointer(Kind::MapKey, 0, Map);
    C.Regs[3] = Reg::pointer(Kind::MapValue, 0, Map);
    C.Regs[4] = S.Regs[3];
  } else {
    C.Regs[1] = Reg::scalar(0, MaxLoops - 1, 0, int64_t(MaxLoops - 1));
    C.Regs[2] = S.Regs[3];
  }
  C.Regs[isa::FramePointer] = Reg::pointer(Kind::Stack, 0, uint32_t(C.Frames.size() - 1));
  CallbackEntry = std::move(C);
  return std::nullopt;
}

/// HelperEffect::TailCall: the program it jumps to never returns here, so
/// a reference held across it would leak.
MaybeDiag Verifier::tailCallHoldsNoRef(uint32_t Pc,
                                       const platform::HelperProto &H,
                                       const State &S) {
  if (S.Refs.empty())
    return std::nullopt;
  return fail(
      Pc,
      "bpf_" + H.Name + " while " + unreleased(S, false) + " (the reference would leak)",
      "released(ref " + std::to_string(S.Refs.begin()->first) + ")");
}

/// The reference `Ref` is released: every copy of the record's pointer
/// dies with it.
void Verifier::releaseRef(State &S, uint32_t Ref) {
  S.Refs.erase(Ref);
  auto Kill = [&](Reg &R) {
    if ((R.K == Kind::AllocMem || R.K == Kind::AllocMemOrNull) && R.Ref == Ref)
      R = Reg::unknown();
  };
  for (Reg &R : S.Regs)
    Kill(R);
  for (Frame &F : S.Frames) {
    for (auto &[Off, R] : F.Spills)
      Kill(R);
    for (Reg &R : F.SavedRegs)
      Kill(R);
    for (Reg &R : F.SavedArgs)
      Kill(R);
  }
}

/// RetCheck::MapValueOrNull(ByKey): a value of the map looked up, or null;
/// an inner map where the map is a map of maps. `KeyMayElideNull`: the
/// row's result is MapValueOrNullByKey.
Reg Verifier::mapLookupResult(const HelperArgs &Args, bool KeyMayElideNull) {
  size_t Index = size_t(Args.Map - Maps.data());
  Reg R0 = Reg::pointer(Kind::MapValueOrNull, 0, uint32_t(Index));
  // As the kernel: an array lookup with a constant in-range key cannot fail.
  if ((Args.Map->Type == EBPFGPU_MAP_ARRAY ||
       Args.Map->Type == EBPFGPU_MAP_PERCPU_ARRAY) &&
      Args.KeyConst && KeyMayElideNull) {
    // The key's bytes decide whether the result may be null.
    PreciseSet M;
    M.addBytes(Args.KeyFrame, Args.KeyAt, 4);
    propagatePrecision(CurNode, M);
    if (*Args.KeyConst < Args.Map->MaxEntries)
      R0.K = Kind::MapValue;
  }
  if (auto It = InnerIndex.find(Index); It != InnerIndex.end())
    R0 = Reg::pointer(Kind::MapPtrOrNull, 0, It->second);
  R0.Id = freshId();
  return R0;
}

/// RetCheck::AllocMemOrNull: a record of `Bytes` bytes, or null, and a
/// reference the program must release on every path.
Reg Verifier::allocResult(uint32_t Pc, State &S, uint64_t Bytes) {
  Reg R0 = Reg::pointer(Kind::AllocMemOrNull, 0,
                        uint32_t(std::min<uint64_t>(Bytes, UINT32_MAX)));
  R0.Id = freshId();
  R0.Ref = freshId();
  S.Refs[R0.Ref] = Pc;
  return R0;
}

/// HelperEffect::MovesPacket: the packet moved, so every packet pointer
/// must be reloaded from ctx. The old ones become unreadable, not numbers:
/// their value is an address (as the kernel does for unprivileged
/// programs; rich-programs seeds 34 and 37 read a stale spilled one back as
/// a scalar).
void Verifier::movePacket(State &S) {
  Res.WritesPacket = true;
  auto Drop = [](Reg &R) {
    if (R.K == Kind::Packet || R.K == Kind::PacketEnd ||
        R.K == Kind::PacketMeta || R.K == Kind::DynptrSlice ||
        R.K == Kind::DynptrSliceOrNull)
      R = Reg();
  };
  for (Reg &R : S.Regs)
    Drop(R);
  for (Frame &F : S.Frames) {
    for (auto &[Off, R] : F.Spills)
      Drop(R);
    for (Reg &R : F.SavedRegs)
      Drop(R);
    for (Reg &R : F.SavedArgs)
      Drop(R);
  }
  S.PacketRange.clear();
  S.MetaRange = 0;
}

} // namespace ebpfgpu::verifier::detail

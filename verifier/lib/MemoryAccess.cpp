// SPDX-License-Identifier: Apache-2.0
//
// The verifier's memory accesses: loads, stores and atomics through the
// stack, map values, the packet, ring buffer records and raw memory, each
// checked against its region's bounds and the stack's initialisation, and
// the pointer-leak rules (no pointer stored into memory the program or
// user space can read as data, no spilled pointer's bytes read as data).

#include "VerifierEngine.h"

#include <algorithm>

namespace ebpfgpu::verifier::detail {

using isa::Insn;

namespace {

/// Values the program may read but not write: .rodata, and the targets
/// of redirect maps.
bool programReadOnly(const object::MapSpec &M) {
  return (M.Flags & platform::MapFlagReadOnlyProg) || isRedirectMap(M.Type);
}

/// Values the program may write but not read: BPF_F_WRONLY_PROG maps. As
/// the kernel's check_map_access_type, every read through a value pointer
/// is refused: loads, atomics (which read before they write) and helpers'
/// read arguments; the lookup that gives the pointer is not.
bool programWriteOnly(const object::MapSpec &M) {
  return M.Flags & platform::MapFlagWriteOnlyProg;
}

/// A spilled pointer, or one a packet-moving helper made stale (not
/// initialised: its bytes are still an address).
bool holdsAddress(const Reg &R) { return R.isPointer() || R.K == Kind::NotInit; }
std::string spilledName(const Reg &R) {
  return R.K == Kind::NotInit ? "stale packet pointer" : kindName(R.K);
}

std::string hexOff(int64_t V) { return (V < 0 ? "-" : "+") + std::to_string(V < 0 ? -V : V); }

/// The value a load of `Size` bytes at constant offset `Off` reads from
/// global data the program cannot change (.rodata: libbpf freezes it after
/// writing its initial bytes, and the kernel's check_mem_access then reads
/// loads from it as known scalars, so a `const volatile` loop bound or
/// index is a constant). Here its bytes are the object's (or those written
/// before load), and nothing changes them after: the operator's updates are
/// refused and the compiler folds the same loads. Sign-extended for a
/// sign-extending load; nothing for any other map.
std::optional<uint64_t> readOnlyConstant(const object::MapSpec &M, int64_t Off, unsigned Size,
                                         bool Signed) {
  if (!constantGlobalData(M) || Off < 0 || uint64_t(Off) + Size > M.ValueSize)
    return std::nullopt;
  uint64_t V = 0;
  for (unsigned K = 0; K < Size; ++K) {
    size_t At = size_t(Off) + K;
    uint64_t Byte = At < M.InitialValue.size() ? M.InitialValue[At] : 0;
    V |= Byte << (8 * K);
  }
  if (Signed && Size < 8) {
    uint64_t SignBit = uint64_t(1) << (Size * 8 - 1);
    V = (V ^ SignBit) - SignBit;
  }
  return V;
}

} // namespace

MaybeDiag Verifier::access(uint32_t Pc, State &S, unsigned BaseReg, int64_t InsnOff,
                           unsigned Size, bool Write, const char *What) {
  const Reg &B = S.Regs[BaseReg];
  std::string Rn = regName(BaseReg);
  std::string Dir = Write ? "write" : "read";
  std::string W = std::to_string(Size);
  // The bytes a stack, map value, memory or record access may touch. Only
  // those pointers carry variable offsets checked against a size; a
  // scalar's bounds (up to S64Max) must not enter the sum, which is
  // refused where it would leave int64 (found by fuzz_verifier: UBSan).
  int64_t Lo = 0, Hi = 0;
  if (B.K == Kind::Stack || B.K == Kind::MapValue || B.K == Kind::RawMem ||
      B.K == Kind::AllocMem || B.K == Kind::IterElem || B.K == Kind::MapKey ||
      B.K == Kind::DynptrSlice) {
    int64_t At;
    if (__builtin_add_overflow(B.Off, InsnOff, &At) || __builtin_add_overflow(At, B.SMin, &Lo) ||
        __builtin_add_overflow(At, B.SMax, &Hi) || Hi > S64Max - int64_t(Size))
      return fail(Pc, Dir + " through " + Rn + " at an offset out of range",
                  "valid_access(" + Rn + ".offset" + hexOff(InsnOff) + ", width=" + W + ") for " +
                      Dir);
  }
  switch (B.K) {
  case Kind::Packet:
    return packetAccess(Pc, S, B, Rn, InsnOff, Size, Write);
  case Kind::PacketMeta: {
    int64_t At = B.Off + InsnOff;
    if (At < 0 || At + int64_t(Size) > S.MetaRange)
      return fail(Pc, std::string("metadata ") + Dir + " of " + W + " bytes at offset " +
                          std::to_string(At) + " not proven within the metadata (have " +
                          std::to_string(S.MetaRange) + ")",
                  "valid_access(meta, width=" + W + ")");
    Res.WritesPacket |= Write;
    return std::nullopt;
  }
  case Kind::Stack:
    return stackAccess(Pc, S, B, Lo, Hi, Size, Write);
  case Kind::MapValue:
  case Kind::RawMem:
    return mapValueAccess(Pc, B, Rn, InsnOff, Lo, Hi, Size, Write);
  case Kind::AllocMem: {
    if (Lo < 0 || Hi + int64_t(Size) > int64_t(B.Aux))
      return fail(Pc, "ring buffer record " + Dir + " of " + W + " bytes at offset " +
                          std::to_string(Lo) + (Lo != Hi ? ".." + std::to_string(Hi) : "") +
                          " is outside the " + std::to_string(B.Aux) + "-byte record",
                  "valid_access(" + Rn + ".offset" + hexOff(InsnOff) + ", width=" + W + ") for " + Dir);
    return std::nullopt;
  }
  case Kind::IterElem: {
    if (Write)
      return fail(Pc, "write of " + W + " bytes through " + Rn +
                          ", an iterator's element: it is read-only",
                  "writable(" + Rn + ")");
    if (Lo < 0 || Hi + int64_t(Size) > int64_t(B.Aux))
      return fail(Pc, "iterator element read of " + W + " bytes at offset " + std::to_string(Lo) +
                          (Lo != Hi ? ".." + std::to_string(Hi) : "") + " is outside the " +
                          std::to_string(B.Aux) + "-byte element",
                  "valid_access(" + Rn + ".offset" + hexOff(InsnOff) + ", width=" + W + ") for " +
                      Dir);
    return std::nullopt;
  }
  case Kind::DynptrSlice:
    return dynptrSliceAccess(Pc, B, Rn, InsnOff, Lo, Hi, Size, Write);
  case Kind::DynptrSliceOrNull:
    return fail(Pc, Rn + " may be null: dynptr slice " + Dir + " without a null check",
                "not_null(" + Rn + ")");
  case Kind::MapKey:
    return mapKeyAccess(Pc, B, Rn, InsnOff, Lo, Hi, Size, Write);
  case Kind::AllocMemOrNull:
    return fail(Pc, Rn + " may be null: ring buffer record " + Dir + " without a null check",
                "not_null(" + Rn + ")");
  case Kind::MapValueOrNull:
  case Kind::MapPtrOrNull:
    return fail(Pc, Rn + " may be null: map value " + Dir + " without a null check",
                "not_null(" + Rn + ")");
  case Kind::Ctx:
    return fail(Pc, std::string("invalid context access: ") + What + " through " + Rn,
                "valid_access(ctx)");
  case Kind::NotInit:
    return fail(Pc, Rn + " is read before it is written", "initialized(" + Rn + ")");
  default:
    return fail(Pc, Dir + " through " + Rn + ", which is a " + kindName(B.K) + ", not a pointer to memory",
                "valid_access(" + Rn + ")");
  }
}

/// Kind::Packet: bytes [Off + InsnOff, + Size) past the packet pointer `B`, within the
/// range its checks against data_end proved.
MaybeDiag Verifier::packetAccess(uint32_t Pc, const State &S, const Reg &B, const std::string &Rn,
                                 int64_t InsnOff, unsigned Size, bool Write) {
  std::string Dir = Write ? "write" : "read";
  std::string W = std::to_string(Size);
  if (B.SMin < 0)
    return fail(Pc, std::string("packet ") + Dir + " through " + Rn +
                        ", whose variable offset may be negative (" +
                        std::to_string(B.SMin) + ".." + std::to_string(B.SMax) + ")",
                "nonnegative(" + Rn + ".offset)");
  auto It = S.PacketRange.find(B.Id);
  int64_t Have = It == S.PacketRange.end() ? 0 : It->second;
  int64_t At = B.Off + InsnOff;
  if (At < 0 || At + int64_t(Size) > Have)
    return fail(Pc, std::string("packet ") + Dir + " of " + W + " bytes at offset " +
                        std::to_string(At) + (B.Id ? " (after a variable offset)" : "") +
                        " not proven within packet (have " + std::to_string(Have) + ")",
                "valid_access(" + Rn + ".offset" + hexOff(InsnOff) + ", width=" + W + ") for " + Dir);
  Res.WritesPacket |= Write;
  return std::nullopt;
}

/// Kind::MapValue and Kind::RawMem: bytes [Lo, Hi + Size) within the value
/// or the input memory, as the map allows (xskmap, read- or write-only, the
/// spin lock).
MaybeDiag Verifier::mapValueAccess(uint32_t Pc, const Reg &B, const std::string &Rn,
                                   int64_t InsnOff, int64_t Lo, int64_t Hi, unsigned Size,
                                   bool Write) {
  std::string Dir = Write ? "write" : "read";
  std::string W = std::to_string(Size);
  // An xskmap's lookup is the kernel's PTR_TO_XDP_SOCK, which the program
  // may null-check and compare, not write (check_mem_access); the kernel
  // lets it read the 4-byte queue_id at offset 0 (struct bpf_xdp_sock),
  // which has no meaning here yet (the consumer's binding is the
  // runtime's), so every read is refused, with the kernel's words.
  if (B.K == Kind::MapValue && Maps[B.Aux].Type == EBPFGPU_MAP_XSKMAP) {
    int64_t Off = B.Off + InsnOff;
    if (Write)
      return fail(Pc, Rn + " cannot write into xdp_sock", "writable(" + Rn + ")");
    return fail(Pc, Rn + " invalid xdp_sock access off=" + std::to_string(Off) + " size=" + W +
                        (Off == 0 && Size == 4
                             ? " (the kernel's queue_id: not available off the kernel)"
                             : ""),
                "no_access(xdp_sock)");
  }
  uint64_t Limit = B.K == Kind::RawMem ? Opts.RawMemSize : Maps[B.Aux].ValueSize;
  std::string Obj = B.K == Kind::RawMem ? "input memory"
                                        : "the " + std::to_string(Limit) + "-byte value of map '" +
                                              Maps[B.Aux].Name + "'";
  if (Lo < 0 || Hi + int64_t(Size) > int64_t(Limit))
    return fail(Pc, std::string(B.K == Kind::RawMem ? "memory " : "map value ") + Dir + " of " +
                        W + " bytes at offset " + std::to_string(Lo) +
                        (Lo != Hi ? ".." + std::to_string(Hi) : "") + " is outside " + Obj,
                "valid_access(" + Rn + ".offset" + hexOff(InsnOff) + ", width=" + W + ") for " + Dir);
  if (Write && B.K == Kind::MapValue && programReadOnly(Maps[B.Aux]))
    return fail(Pc, "write to read-only map '" + Maps[B.Aux].Name + "'", "writable(" + Rn + ")");
  if (!Write && B.K == Kind::MapValue && programWriteOnly(Maps[B.Aux]))
    return fail(Pc, "read from write-only map '" + Maps[B.Aux].Name + "'",
                "readable(" + Rn + ")");
  // Only bpf_spin_lock and bpf_spin_unlock touch the lock (the kernel's
  // check_map_access, for loads, stores and helpers alike).
  if (int32_t L = B.K == Kind::MapValue ? Maps[B.Aux].SpinLockOff : -1;
      L >= 0 && Lo < L + 4 && L < Hi + int64_t(Size))
    return fail(Pc, "bpf_spin_lock cannot be accessed directly by load/store (" + Dir +
                        " of " + W + " bytes at offset " + std::to_string(Lo) +
                        " of the value of map '" + Maps[B.Aux].Name + "')",
                "no_access(bpf_spin_lock)");
  return std::nullopt;
}

/// Kind::DynptrSlice: bytes [Lo, Hi + Size) within the slice, written only
/// through a writable one.
MaybeDiag Verifier::dynptrSliceAccess(uint32_t Pc, const Reg &B, const std::string &Rn,
                                      int64_t InsnOff, int64_t Lo, int64_t Hi, unsigned Size,
                                      bool Write) {
  std::string Dir = Write ? "write" : "read";
  std::string W = std::to_string(Size);
  uint32_t Limit = sliceSize(B.Aux);
  if (Write && !(B.Aux & SliceWritable))
    return fail(Pc, "write of " + W + " bytes through " + Rn +
                        ", a slice of bpf_dynptr_slice: it is read-only (bpf_dynptr_slice_rdwr "
                        "gives a writable one)",
                "writable(" + Rn + ")");
  if (Lo < 0 || Hi + int64_t(Size) > int64_t(Limit))
    return fail(Pc, "dynptr slice " + Dir + " of " + W + " bytes at offset " +
                        std::to_string(Lo) + (Lo != Hi ? ".." + std::to_string(Hi) : "") +
                        " is outside the " + std::to_string(Limit) + "-byte slice",
                "valid_access(" + Rn + ".offset" + hexOff(InsnOff) + ", width=" + W + ") for " +
                    Dir);
  Res.WritesPacket |= Write;
  return std::nullopt;
}

/// Kind::MapKey: bytes [Lo, Hi + Size) of the key a callback is given, read
/// only.
MaybeDiag Verifier::mapKeyAccess(uint32_t Pc, const Reg &B, const std::string &Rn,
                                 int64_t InsnOff, int64_t Lo, int64_t Hi, unsigned Size,
                                 bool Write) {
  std::string Dir = Write ? "write" : "read";
  std::string W = std::to_string(Size);
  // The kernel's wording (check_mem_access): a callback reads the key of
  // the element it is given, never changes it.
  if (Write)
    return fail(Pc, "write to change key " + Rn + " not allowed: bpf_for_each_map_elem's "
                    "callback may only read the key of map '" + Maps[B.Aux].Name + "'",
                "writable(" + Rn + ")");
  uint64_t Limit = Maps[B.Aux].KeySize;
  if (Lo < 0 || Hi + int64_t(Size) > int64_t(Limit))
    return fail(Pc, "map key " + Dir + " of " + W + " bytes at offset " + std::to_string(Lo) +
                        (Lo != Hi ? ".." + std::to_string(Hi) : "") + " is outside the " +
                        std::to_string(Limit) + "-byte key of map '" + Maps[B.Aux].Name + "'",
                "valid_access(" + Rn + ".offset" + hexOff(InsnOff) + ", width=" + W + ") for " +
                    Dir);
  return std::nullopt;
}

/// Kind::Stack: bytes [Lo, Hi + Size) of the frame `B` points to, within
/// it, no iterator's or dynptr's. A read of bytes not written before is
/// noted (UninitStackReads).
MaybeDiag Verifier::stackAccess(uint32_t Pc, State &S, const Reg &B, int64_t Lo, int64_t Hi,
                                unsigned Size, bool Write) {
  std::string Dir = Write ? "write" : "read";
  std::string W = std::to_string(Size);
  if (Lo < -int64_t(isa::MaxStackBytes) || Hi + int64_t(Size) > 0)
    return fail(Pc, "stack " + Dir + " of " + W + " bytes at r10" + hexOff(Lo) +
                        " is outside the 512-byte frame",
                "valid_access(stack, off=" + std::to_string(Lo) + ", width=" + W + ")");
  Frame &F = frameOf(S, B);
  unsigned First = unsigned(Lo + int64_t(isa::MaxStackBytes));
  unsigned Last = unsigned(Hi + int64_t(isa::MaxStackBytes)) + Size;
  // Only the iterator kfuncs read or write an iterator's bytes.
  for (const auto &[At, Spilled] : F.Spills)
    if (Spilled.K == Kind::Iter && At < Last && First < At + 8)
      return fail(Pc, "stack " + Dir + " of " + W + " bytes at r10" + hexOff(Lo) +
                          " touches the iterator at r10" +
                          hexOff(int64_t(At) - int64_t(isa::MaxStackBytes)),
                  "iterator(stack[" + std::to_string(int64_t(At) - int64_t(isa::MaxStackBytes)) +
                      "])");
  // Nor a dynptr's: a store over one destroys it first (store()), so
  // what is left is a load, an atomic or a helper's buffer, which the
  // kernel refuses ("potential write to dynptr ... disallowed").
  for (const auto &[At, Spilled] : F.Spills)
    if (Spilled.K == Kind::Dynptr && At < Last && First < At + 8)
      return fail(Pc, "stack " + Dir + " of " + W + " bytes at r10" + hexOff(Lo) +
                          " touches the dynptr at r10" +
                          hexOff(int64_t(At) - Spilled.Off - int64_t(isa::MaxStackBytes)) +
                          ": only the dynptr kfuncs and helpers may",
                  "dynptr(stack[" +
                      std::to_string(int64_t(At) - Spilled.Off - int64_t(isa::MaxStackBytes)) +
                      "])");
  if (Write)
    return std::nullopt;
  markStackRead(B.Aux, slotMask(First, Last));
  // Bytes never written read as the kernel lets a privileged loader read
  // them (allow_uninit_stack): an unknown value. Here they are zero (the
  // lifter zeroes every frame), in the kernel whatever its stack held:
  // the result lists where, so that a comparison with the kernel knows.
  for (unsigned I = First; I < Last; ++I)
    if (F.Bytes[I] == Slot::Uninit) {
      UninitStackReads.insert(Pc);
      break;
    }
  return std::nullopt;
}

MaybeDiag Verifier::spilledPointerRead(uint32_t Pc, State &S, unsigned BaseReg, int64_t Off,
                                       uint64_t Size, const std::string &What, bool WholeFill) {
  const Reg &B = S.Regs[BaseReg];
  if (B.K != Kind::Stack)
    return std::nullopt;
  const Frame &F = frameOf(S, B);
  int64_t Lo = B.Off + Off + B.SMin + int64_t(isa::MaxStackBytes);
  int64_t Hi = B.Off + Off + B.SMax + int64_t(isa::MaxStackBytes) + int64_t(Size);
  for (const auto &[At, Spilled] : F.Spills)
    if (!WholeFill && holdsAddress(Spilled) && int64_t(At) < Hi && Lo < int64_t(At) + 8)
      return fail(Pc, "pointer leak: " + What + " reads the " + spilledName(Spilled) +
                          " spilled at r10" + hexOff(int64_t(At) - int64_t(isa::MaxStackBytes)) +
                          " as data",
                  "no_pointer_leak(stack[" +
                      std::to_string(int64_t(At) - int64_t(isa::MaxStackBytes)) + "])");
  for (int64_t X = std::max<int64_t>(Lo, 0); X < Hi && X < int64_t(isa::MaxStackBytes); ++X)
    if (F.Bytes[size_t(X)] == Slot::Residue)
      return fail(Pc, "pointer leak: " + What + " reads r10" +
                          hexOff(X - int64_t(isa::MaxStackBytes)) +
                          ", a byte that a write over part of a spilled pointer left behind",
                  "no_pointer_leak(stack[" + std::to_string(X - int64_t(isa::MaxStackBytes)) +
                      "])");
  return std::nullopt;
}

void Verifier::leaveResidue(Frame &F, int64_t Lo, int64_t Hi, bool Exact) {
  for (const auto &[At, Spilled] : F.Spills) {
    int64_t Start = int64_t(At), End = Start + 8;
    if (!holdsAddress(Spilled) || Hi <= Start || End <= Lo)
      continue;
    for (int64_t X = Start; X < End; ++X)
      if (!Exact || X < Lo || Hi <= X) {
        F.Bytes[size_t(X)] = Slot::Residue;
        F.Known[size_t(X)] = -1;
      }
  }
}

MaybeDiag Verifier::load(uint32_t Pc, const Insn &I, State &S) {
  unsigned Size = isa::accessBytes(I.size());
  const Reg B = S.Regs[I.Src];
  if (auto E = readReg(Pc, S, I.Src))
    return E;
  bool Signed = I.mode() == isa::ModeMemSX;
  Reg Result = Size == 8 ? Reg::unknown()
               : Signed  ? Reg::scalar(0, U64Max, -(int64_t(1) << (Size * 8 - 1)),
                                      (int64_t(1) << (Size * 8 - 1)) - 1)
                         : Reg::scalar(0, (uint64_t(1) << (Size * 8)) - 1, 0,
                                      int64_t((uint64_t(1) << (Size * 8)) - 1));
  // A load reads the context on every path that reaches it or on none: the
  // kernel rewrites context loads per instruction and refuses one that
  // reads the context on one path and other memory on another (a
  // subprogram called with the context and with a stack pointer), and the
  // compiler lowers each load by what its base is.
  // (A base that is no pointer is refused below, as such.)
  Kind &Seen = LoadBase[Pc];
  if (B.isPointer()) {
    if (Seen != Kind::NotInit && Seen != B.K && (Seen == Kind::Ctx || B.K == Kind::Ctx))
      return fail(Pc, "same insn cannot be used with different pointers: " + regName(I.Src) +
                          " is a " + kindName(B.K) + " here and a " + kindName(Seen) +
                          " on another path",
                  "same_base(" + regName(I.Src) + ")");
    if (Seen == Kind::NotInit || B.K == Kind::Ctx)
      Seen = B.K;
  }
  if (B.K == Kind::Ctx) {
    if (B.SMin || B.SMax)
      return fail(Pc, "variable offset into the context", "valid_access(ctx)");
    if (Opts.Platform->hasContext()) {
      int64_t Field = B.Off + I.Off;
      const platform::ContextField *F = Opts.Platform->contextField(Field, Size);
      if (!F || Signed)
        return fail(Pc, "invalid context access: read of " + std::to_string(Size) +
                            " bytes at offset " + std::to_string(Field),
                    "valid_access(ctx, off=" + std::to_string(Field) + ", width=" +
                        std::to_string(Size) + ")");
      // The kernel refuses it too: only a program run from a devmap entry
      // has an egress device.
      if (F->DevmapOnly && !platform::isDevmapSection(Prog.Section))
        return fail(Pc,
                    "invalid context access: " + F->Name +
                        " is readable only in devmap programs (section xdp/devmap or "
                        "xdp.frags/devmap, the attach type BPF_XDP_DEVMAP), not in section '" +
                        Prog.Section + "'",
                    "valid_access(ctx, off=" + std::to_string(Field) + ", width=" +
                        std::to_string(Size) + ")");
      if (F->Name == "data")
        Result = Reg::pointer(Kind::Packet, 0);
      else if (F->Name == "data_end")
        Result = Reg::pointer(Kind::PacketEnd, 0);
      else if (F->Name == "data_meta")
        Result = Reg::pointer(Kind::PacketMeta, 0);
      S.Regs[I.Dst] = Result;
      return std::nullopt;
    }
  }
  if (auto E = access(Pc, S, I.Src, I.Off, Size, false, "read"))
    return E;
  // A whole spilled pointer fills as the pointer; any other read of its
  // bytes would make them a scalar.
  bool WholeFill = B.K == Kind::Stack && !B.hasVarOff() && Size == 8 &&
                   (B.Off + I.Off) % 8 == 0;
  if (auto E = spilledPointerRead(Pc, S, I.Src, I.Off, Size,
                                  "a " + std::to_string(Size) + "-byte read", WholeFill))
    return E;
  if (B.K == Kind::Stack && !B.hasVarOff()) {
    Frame &F = frameOf(S, B);
    unsigned At = unsigned(B.Off + I.Off + int64_t(isa::MaxStackBytes));
    auto It = F.Spills.find(At & ~7u);
    if (It != F.Spills.end()) {
      if (Size == 8 && At % 8 == 0)
        Result = It->second;
      else if (It->second.isConst() && !Signed) {
        uint64_t V = It->second.UMin >> (8 * (At % 8));
        Result = Reg::constant(Size == 8 ? V : V & ((uint64_t(1) << (Size * 8)) - 1));
      }
    }
  }
  if (B.K == Kind::MapValue && !B.hasVarOff())
    if (std::optional<uint64_t> V = readOnlyConstant(Maps[B.Aux], B.Off + I.Off, Size, Signed))
      Result = Reg::constant(*V);
  S.Regs[I.Dst] = Result;
  return std::nullopt;
}

MaybeDiag Verifier::store(uint32_t Pc, const Insn &I, State &S) {
  unsigned Size = isa::accessBytes(I.size());
  if (auto E = readReg(Pc, S, I.Dst))
    return E;
  Reg Value = Reg::constant(uint64_t(int64_t(I.Imm)));
  if (I.cls() == isa::STX) {
    if (auto E = readReg(Pc, S, I.Src))
      return E;
    Value = S.Regs[I.Src];
  }
  const Reg B = S.Regs[I.Dst];
  if (B.K == Kind::Ctx)
    return fail(Pc, "the context is read-only: write of " + std::to_string(Size) +
                        " bytes at offset " + std::to_string(B.Off + I.Off),
                "valid_access(ctx, off=" + std::to_string(B.Off + I.Off) + ") for write");
  // A store over a dynptr's bytes destroys it, as the kernel's
  // destroy_if_dynptr_stack_slot (an XDP dynptr holds no reference):
  // using it afterwards is refused. Only bytes a store may reach (bounds
  // checked by access() below; a frame's bytes either way).
  if (B.K == Kind::Stack && B.Aux < S.Frames.size()) {
    int64_t At;
    if (!__builtin_add_overflow(B.Off, int64_t(I.Off), &At) && B.SMin > -(int64_t(1) << 40) &&
        B.SMax < (int64_t(1) << 40))
      destroyDynptrs(S, frameOf(S, B), At + B.SMin + int64_t(isa::MaxStackBytes),
                     At + B.SMax + int64_t(isa::MaxStackBytes) + int64_t(Size));
  }
  if (auto E = access(Pc, S, I.Dst, I.Off, Size, true, "write"))
    return E;
  if (B.K != Kind::Stack) {
    if (Value.isPointer())
      return fail(Pc, "pointer leak: " + regName(I.Src) + " (" + kindName(Value.K) +
                          ") stored into " +
                          (B.K == Kind::MapValue ? "a map value"
                           : B.K == Kind::RawMem ? "memory"
                                                 : "the packet"),
                  "no_pointer_leak(" + regName(I.Src) + ")");
    return std::nullopt;
  }
  Frame &F = frameOf(S, B);
  int64_t Lo = B.Off + I.Off + B.SMin + int64_t(isa::MaxStackBytes);
  int64_t Hi = B.Off + I.Off + B.SMax + int64_t(isa::MaxStackBytes) + int64_t(Size);
  // A write over part of a spilled pointer is accepted, as the kernel
  // accepts it from a privileged loader; what it leaves of the pointer may
  // not be read. A write at a variable offset may miss any byte.
  leaveResidue(F, Lo, Hi, !B.hasVarOff());
  for (auto It = F.Spills.begin(); It != F.Spills.end();) {
    if (int64_t(It->first) < Hi && Lo < int64_t(It->first) + 8)
      It = F.Spills.erase(It);
    else
      ++It;
  }
  if (Size == 8 && Lo % 8 == 0 && !B.hasVarOff())
    CurPath->Written[B.Aux] |= uint64_t(1) << (Lo / 8);
  bool Spill = Size == 8 && Lo % 8 == 0 && !B.hasVarOff() &&
               (Value.isPointer() || Value.K == Kind::Scalar);
  for (int64_t X = Lo; X < Hi; ++X) {
    if (B.hasVarOff() && F.Bytes[size_t(X)] == Slot::Residue)
      continue;
    F.Bytes[size_t(X)] = Spill ? Slot::Spill : Slot::Data;
    F.Known[size_t(X)] = (Value.isConst() && !B.hasVarOff())
                             ? int16_t((Value.UMin >> (8 * (X - Lo))) & 0xff)
                             : int16_t(-1);
  }
  if (Spill)
    F.Spills[unsigned(Lo)] = Value;
  else if (Value.isPointer())
    return fail(Pc, "partial spill of a pointer (" + regName(I.Src) + ") to the stack",
                "no_pointer_leak(" + regName(I.Src) + ")");
  return std::nullopt;
}

MaybeDiag Verifier::atomic(uint32_t Pc, const Insn &I, State &S) {
  unsigned Size = isa::accessBytes(I.size());
  if (auto E = readReg(Pc, S, I.Dst))
    return E;
  if (auto E = readReg(Pc, S, I.Src))
    return E;
  const Reg B = S.Regs[I.Dst];
  if (S.Regs[I.Src].isPointer())
    return fail(Pc, "atomic operation with a pointer operand (" + regName(I.Src) + ")",
                "no_pointer_leak(" + regName(I.Src) + ")");
  if (B.K != Kind::Stack && B.K != Kind::MapValue && B.K != Kind::RawMem)
    return fail(Pc, "atomic operation on " + std::string(kindName(B.K)) + " memory (" +
                        regName(I.Dst) + ") is not allowed",
                "atomic_target(" + regName(I.Dst) + ")");
  if (I.Imm == isa::AtomicCmpXchg)
    if (auto E = readReg(Pc, S, 0))
      return E;
  if (auto E = access(Pc, S, I.Dst, I.Off, Size, false, "atomic"))
    return E;
  if (auto E = access(Pc, S, I.Dst, I.Off, Size, true, "atomic"))
    return E;
  // The operation reads the old bytes as data (and fetches return them).
  if (auto E = spilledPointerRead(Pc, S, I.Dst, I.Off, Size, "an atomic operation"))
    return E;
  if (B.K == Kind::Stack) {
    Frame &F = frameOf(S, B);
    unsigned At = unsigned(B.Off + I.Off + int64_t(isa::MaxStackBytes));
    F.Spills.erase(At & ~7u);
    for (unsigned X = At; X < At + Size && X < isa::MaxStackBytes; ++X)
      F.Known[X] = -1;
  }
  Reg Old = Size == 8 ? Reg::unknown() : Reg::scalar(0, 0xffffffffull, 0, 0xffffffffll);
  if (I.Imm == isa::AtomicCmpXchg)
    S.Regs[0] = Old;
  else if (I.Imm & isa::AtomicFetch)
    S.Regs[I.Src] = Old;
  return std::nullopt;
}

} // namespace ebpfgpu::verifier::detail

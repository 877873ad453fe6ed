// SPDX-License-Identifier: Apache-2.0
//
// The verifier's helper calls: each helper's argument obligations (as the
// platform's prototypes state them), the pairing of special maps with
// their helpers, and the value a call leaves in r0.

#include "VerifierEngine.h"

#include "ebpf-gpu/ISA/Disassembler.h"

#include <sstream>

namespace ebpfgpu::verifier::detail {

namespace {

/// Why a helper may not take this map (empty when it may), as the kernel
/// pairs them: special maps serve only their own helpers, and those
/// helpers only them.
std::string mapHelperMismatch(const object::MapSpec &M,
                              const std::string &Helper) {
  auto Bad = [&] {
    return "bpf_" + Helper + " cannot use map '" + M.Name + "' (" +
           object::mapTypeName(M.Type) + ")";
  };
  bool Generic = Helper == "map_lookup_elem" || Helper == "map_update_elem" ||
                 Helper == "map_delete_elem";
  if (Helper == "tail_call")
    return M.Type == MapProgArray ? "" : Bad();
  if (Helper == "redirect_map")
    return isRedirectMap(M.Type) ? "" : Bad();
  if (Helper == "perf_event_output")
    return M.Type == MapPerfEventArray ? "" : Bad();
  if (Helper == "ringbuf_output" || Helper == "ringbuf_reserve")
    return M.Type == MapRingbuf ? "" : Bad();
  switch (M.Type) {
  case MapProgArray:
  case MapPerfEventArray:
  case MapRingbuf:
    return Bad();
  case MapDevmap:
  case MapDevmapHash:
  case MapCpumap:
  case MapXskmap:
  case object::MapTypeArrayOfMaps:
  case object::MapTypeHashOfMaps:
    // Programs may look these up, never change them.
    return Helper == "map_lookup_elem" ? "" : Bad();
  default:
    return Generic ? "" : Bad();
  }
}

} // namespace

MaybeDiag Verifier::helperCall(uint32_t Pc, int32_t Id, State &S) {
  const platform::HelperProto *H = Opts.Platform->helper(Id);
  if (!H)
    return fail(Pc,
                "helper function " + std::to_string(Id) +
                    " is not available for " + Opts.Platform->name() +
                    " programs",
                "known_helper(" + std::to_string(Id) + ")");
  std::string Name = "bpf_" + H->Name;
  if (H->GplOnly && Opts.License && !isGplCompatible(*Opts.License))
    return fail(Pc,
                Name + " is GPL-only; the program's license '" + *Opts.License +
                    "' is not GPL-compatible",
                "gpl_compatible(license)");
  const object::MapSpec *Map = nullptr;
  uint64_t AllocBytes = 0;          // AllocSize: the size to allocate
  uint32_t Released = 0;            // ReleaseAlloc: the reference released
  std::optional<uint64_t> KeyConst; // a 4-byte key known on the stack
  unsigned KeyFrame = 0, KeyAt = 0;
  for (size_t A = 0; A < H->Checks.size(); ++A) {
    unsigned R = unsigned(A + 1);
    std::string Arg =
        Name + " argument " + std::to_string(R) + " (" + regName(R) + ")";
    if (H->Checks[A] == platform::ArgCheck::Unused)
      continue; // variadic: may be unwritten (bpf_printk with fewer arguments)
    if (auto E = readReg(Pc, S, R))
      return E;
    const Reg &V = S.Regs[R];
    switch (H->Checks[A]) {
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
      if (V.K != Kind::MapPtr)
        return fail(Pc,
                    Arg + " must be a map reference, is a " +
                        std::string(kindName(V.K)),
                    "type(" + regName(R) + ") == map");
      Map = &Maps[V.Aux];
      if (std::string Why = mapHelperMismatch(*Map, H->Name); !Why.empty())
        return fail(Pc, Why, "map_func_compatible(" + regName(R) + ")");
      break;
    case platform::ArgCheck::MapKey:
    case platform::ArgCheck::MapValue: {
      if (!Map)
        return fail(Pc, Arg + " has no map to size it", "internal");
      unsigned Size = H->Checks[A] == platform::ArgCheck::MapKey
                          ? Map->KeySize
                          : Map->ValueSize;
      if (V.K != Kind::Stack && V.K != Kind::MapValue && V.K != Kind::Packet)
        return fail(Pc,
                    Arg + " must point to memory, is a " +
                        std::string(kindName(V.K)),
                    "type(" + regName(R) + ") == mem");
      // Keys and values may hold struct padding the program never wrote, as
      // the kernel allows; the runtime zeroes every frame, so it reads zeros.
      if (auto E = access(Pc, S, R, 0, Size, false, "helper read",
                          /*AllowUninitStack=*/true)) {
        E->Reason = Arg + ": " + E->Reason;
        return E;
      }
      if (auto E = spilledPointerRead(Pc, S, R, 0, Size, Arg))
        return E;
      if (H->Checks[A] == platform::ArgCheck::MapKey && Size == 4 &&
          V.K == Kind::Stack && !V.hasVarOff()) {
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
          KeyConst = K;
          KeyFrame = V.Aux;
          KeyAt = At;
        }
      }
      break;
    }
    case platform::ArgCheck::Mem:
    case platform::ArgCheck::UninitMem:
    case platform::ArgCheck::InOutMem: {
      bool Uninit = H->Checks[A] == platform::ArgCheck::UninitMem;
      bool InOut = H->Checks[A] == platform::ArgCheck::InOutMem;
      const Reg &SizeReg = S.Regs[R + 1];
      markPrecise(S, R + 1);
      if (SizeReg.K != Kind::Scalar)
        return fail(Pc,
                    Name + " argument " + std::to_string(R + 1) + " (" +
                        regName(R + 1) + ") must be a size, is a " +
                        kindName(SizeReg.K),
                    "type(" + regName(R + 1) + ") == scalar");
      bool ZeroOk = A + 1 < H->Checks.size() &&
                    H->Checks[A + 1] == platform::ArgCheck::ConstSizeOrZero;
      if (SizeReg.UMax > 0xffff || (!ZeroOk && SizeReg.UMin == 0))
        return fail(Pc,
                    Name + " argument " + std::to_string(R + 1) + " (" +
                        regName(R + 1) + ") must be a size " +
                        (ZeroOk ? "" : "above 0 ") + "with a known bound, is " +
                        SizeReg.str(),
                    "bounded(" + regName(R + 1) + ")");
      if (SizeReg.UMax == 0)
        break;
      if (V.K != Kind::Stack && V.K != Kind::MapValue && V.K != Kind::Packet &&
          V.K != Kind::PacketMeta && V.K != Kind::AllocMem)
        return fail(Pc,
                    Arg + " must point to memory, is a " +
                        std::string(kindName(V.K)),
                    "type(" + regName(R) + ") == mem");
      // As the kernel's (no pkt_access): the helper rewrites it in place.
      if (InOut && V.K != Kind::Stack && V.K != Kind::MapValue)
        return fail(Pc,
                    Arg + " must point to the stack or a map value, is a " +
                        std::string(kindName(V.K)),
                    "type(" + regName(R) + ") == stack|map_value");
      if (auto E = access(Pc, S, R, 0, unsigned(SizeReg.UMax), Uninit,
                          "helper access")) {
        E->Reason = Arg + ": " + E->Reason;
        return E;
      }
      if (!Uninit)
        if (auto E = spilledPointerRead(Pc, S, R, 0, SizeReg.UMax, Arg))
          return E;
      // A buffer the helper reads and rewrites must be writable too.
      if (InOut)
        if (auto E = access(Pc, S, R, 0, unsigned(SizeReg.UMax), true,
                            "helper access")) {
          E->Reason = Arg + ": " + E->Reason;
          return E;
        }
      if ((Uninit || InOut) && V.K == Kind::Stack) {
        // The helper fills the buffer: its bytes are data of unknown value.
        Frame &F = frameOf(S, V);
        int64_t Lo = V.Off + V.SMin + int64_t(isa::MaxStackBytes);
        int64_t Hi = V.Off + V.SMax + int64_t(isa::MaxStackBytes) +
                     int64_t(SizeReg.UMax);
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
      break;
    }
    case platform::ArgCheck::AllocSize:
      markPrecise(S, R);
      if (V.K != Kind::Scalar || !V.isConst())
        return fail(Pc, Arg + " must be a known constant size, is " + V.str(),
                    "constant(" + regName(R) + ")");
      AllocBytes = V.UMin;
      break;
    case platform::ArgCheck::ReleaseAlloc:
      if (V.K == Kind::AllocMemOrNull)
        return fail(Pc,
                    Arg + " may be null: check the record of " +
                        std::string("bpf_ringbuf_reserve") + " first",
                    "not_null(" + regName(R) + ")");
      if (V.K != Kind::AllocMem)
        return fail(Pc,
                    Arg + " must be a reserved ring buffer record, is a " +
                        std::string(kindName(V.K)),
                    "type(" + regName(R) + ") == ringbuf_mem");
      if (V.Off != 0 || V.hasVarOff())
        return fail(Pc,
                    Arg +
                        " must point to the start of the record, not offset " +
                        std::to_string(V.Off),
                    "offset(" + regName(R) + ") == 0");
      Released = V.Ref;
      break;
    case platform::ArgCheck::ConstSize:
    case platform::ArgCheck::ConstSizeOrZero:
      if (V.K != Kind::Scalar)
        return fail(Pc,
                    Arg + " must be a size, is a " + std::string(kindName(V.K)),
                    "type(" + regName(R) + ") == scalar");
      break;
    }
  }
  bool ChangesPacket =
      H->Name == "xdp_adjust_head" || H->Name == "xdp_adjust_tail" ||
      H->Name == "xdp_adjust_meta" || H->Name == "xdp_store_bytes";
  if (H->Name == "tail_call" && !S.Refs.empty())
    return fail(
        Pc,
        "bpf_tail_call while a ring buffer record reserved at pc " +
            std::to_string(S.Refs.begin()->second) +
            " is neither submitted nor discarded (the reference would leak)",
        "released(ref " + std::to_string(S.Refs.begin()->first) + ")");
  for (unsigned R = 1; R <= 5; ++R)
    S.Regs[R] = Reg();
  if (Released) {
    // Every copy of the record's pointer dies with it.
    S.Refs.erase(Released);
    auto Kill = [&](Reg &R) {
      if ((R.K == Kind::AllocMem || R.K == Kind::AllocMemOrNull) &&
          R.Ref == Released)
        R = Reg::unknown();
    };
    for (Reg &R : S.Regs)
      Kill(R);
    for (Frame &F : S.Frames) {
      for (auto &[Off, R] : F.Spills)
        Kill(R);
      for (Reg &R : F.SavedRegs)
        Kill(R);
    }
  }
  if (H->Result == platform::RetCheck::AllocMemOrNull) {
    Reg R0 = Reg::pointer(Kind::AllocMemOrNull, 0,
                          uint32_t(std::min<uint64_t>(AllocBytes, UINT32_MAX)));
    R0.Id = freshId();
    R0.Ref = freshId();
    S.Refs[R0.Ref] = Pc;
    S.Regs[0] = R0;
  } else if (H->Result == platform::RetCheck::MapValueOrNull) {
    size_t Index = size_t(Map - Maps.data());
    Reg R0 = Reg::pointer(Kind::MapValueOrNull, 0, uint32_t(Index));
    // As the kernel: an array lookup with a constant in-range key cannot fail.
    if ((Map->Type == object::MapTypeArray ||
         Map->Type == object::MapTypePercpuArray) &&
        KeyConst) {
      // The key's bytes decide whether the result may be null.
      PreciseSet M;
      M.addBytes(KeyFrame, KeyAt, 4);
      propagatePrecision(CurNode, M);
      if (*KeyConst < Map->MaxEntries)
        R0.K = Kind::MapValue;
    }
    if (auto It = InnerIndex.find(Index); It != InnerIndex.end())
      R0 = Reg::pointer(Kind::MapPtrOrNull, 0, It->second);
    R0.Id = freshId();
    S.Regs[0] = R0;
  } else {
    S.Regs[0] = Reg::unknown();
  }
  if (ChangesPacket) {
    Res.WritesPacket = true;
    // The packet moved: every packet pointer must be reloaded from ctx.
    // The old ones become unreadable, not numbers: their value is an
    // address (as the kernel does for unprivileged programs; rich-programs
    // seeds 34 and 37 read a stale spilled one back as a scalar).
    auto Drop = [](Reg &R) {
      if (R.K == Kind::Packet || R.K == Kind::PacketEnd ||
          R.K == Kind::PacketMeta)
        R = Reg();
    };
    for (Reg &R : S.Regs)
      Drop(R);
    for (Frame &F : S.Frames) {
      for (auto &[Off, R] : F.Spills)
        Drop(R);
      for (Reg &R : F.SavedRegs)
        Drop(R);
    }
    S.PacketRange.clear();
    S.MetaRange = 0;
  }
  return std::nullopt;
}

} // namespace ebpfgpu::verifier::detail

// SPDX-License-Identifier: Apache-2.0
//
// The verifier's format-string helper arguments (bpf_snprintf's, the row's
// ArgCheck::FormatStr and FormatData): the constant format is parsed as the
// kernel's check_bpf_snprintf_call parses it (FormatString.h), and each of
// its conversions sizes one u64 of the data argument after it: data, or a
// pointer the verifier tracks to what the conversion reads.

#include "VerifierEngine.h"

#include "ebpf-gpu/ISA/Disassembler.h"

#include <algorithm>

namespace ebpfgpu::verifier::detail {

/// FormatStr: a constant string (as ConstStr) that is a format of
/// bpf_bprintf_prepare's rules; its conversions are kept for the FormatData
/// argument, as the kernel's check_bpf_snprintf_call parses the constant.
MaybeDiag Verifier::formatStrArg(uint32_t Pc, const platform::HelperProto &H,
                                 unsigned R, State &S, HelperArgs &Args) {
  if (auto E = constStrArg(Pc, H, R, S))
    return E;
  // A size after the format (bpf_trace_vprintk's fmt_size): the kernel's
  // memory and size pair, within the map value.
  if (R < H.Checks.size() && H.Checks[R] == platform::ArgCheck::ConstSize)
    if (auto E = sizedMemArg(Pc, H, R, S))
      return E;
  const Reg &V = S.Regs[R];
  FormatParse P = parseFormat(Maps[V.Aux].InitialValue, size_t(V.Off));
  if (!P.Error.empty())
    return fail(Pc, argName(H, R) + ": invalid format string: " + P.Error,
                "format(" + regName(R) + ")");
  Args.Format = std::move(P.Args);
  return std::nullopt;
}

/// FormatData: the format's arguments, u64s in readable memory whose size,
/// the next argument, is a constant multiple of 8 with a u64 for each
/// conversion at least (the kernel's check_bpf_snprintf_call; more are
/// allowed and unused). Where a conversion reads memory through its u64
/// the u64 must be a pointer the verifier tracks, on the stack at a
/// constant offset, to what the conversion reads (formatPointer); every
/// other u64 is data, no pointer (the kernel lets a privileged program
/// print addresses; here they would be the runtime's, and are refused as
/// any pointer leak is).
MaybeDiag Verifier::formatDataArg(uint32_t Pc, const platform::HelperProto &H,
                                  unsigned R, State &S, const HelperArgs &Args) {
  const Reg &Len = S.Regs[R + 1];
  markPrecise(S, R + 1);
  if (Len.K != Kind::Scalar || !Len.isConst())
    return fail(Pc, argName(H, R + 1) + " must be a known constant size, is " + Len.str(),
                "constant(" + regName(R + 1) + ")");
  uint64_t Words = Len.UMin / 8;
  if (Len.UMin % 8)
    return fail(Pc,
                argName(H, R + 1) + ": " + std::to_string(Len.UMin) +
                    " bytes of arguments is not a multiple of 8 (each is a u64)",
                "multiple_of_8(" + regName(R + 1) + ")");
  if (Args.Format.size() > Words)
    return fail(Pc,
                "bpf_" + H.Name + ": the format has " + std::to_string(Args.Format.size()) +
                    " conversions but " + argName(H, R) + " holds " + std::to_string(Words) +
                    " u64s",
                "conversions(r" + std::to_string(R - 1) + ") <= " + regName(R + 1) + " / 8");
  if (auto E = sizedMemArg(Pc, H, R, S, /*CheckSpills=*/false))
    return E;
  const Reg &V = S.Regs[R];
  std::string Arg = argName(H, R);
  for (uint64_t W = 0; W < Words; ++W) {
    bool Reads = W < Args.Format.size() && Args.Format[W] != FormatArg::Number &&
                 Args.Format[W] != FormatArg::Char;
    if (!Reads) {
      if (auto E = spilledPointerRead(Pc, S, R, int64_t(8 * W), 8, Arg))
        return E;
      continue;
    }
    std::string What = Arg + ": u64 " + std::to_string(W) + " (for " +
                       formatArgName(Args.Format[W]) + ")";
    if (V.K != Kind::Stack || V.hasVarOff())
      return fail(Pc,
                  What + " must be a pointer the verifier tracks: the u64s must be on the "
                         "stack at a constant offset, is " + V.str(),
                  "tracked_pointer(" + regName(R) + "[" + std::to_string(W) + "])");
    const Frame &F = frameOf(S, V);
    auto It = F.Spills.find(unsigned(V.Off + int64_t(8 * W) + int64_t(isa::MaxStackBytes)));
    if (It == F.Spills.end() || !It->second.isPointer())
      return fail(Pc, What + " is not a pointer stored there whole",
                  "tracked_pointer(" + regName(R) + "[" + std::to_string(W) + "])");
    if (auto E = formatPointer(Pc, What, Args.Format[W], It->second, S))
      return E;
  }
  return std::nullopt;
}

/// A pointer a conversion reads through, as the kernel's probe reads but
/// proven here: %pI4 and %pI6 read 4 and 16 bytes of memory it may read
/// (the packet, the stack, a map value); %s and %pks a string whose end the
/// verifier sees: a NUL of .rodata at a constant offset, or a byte of the
/// stack known to be 0 with readable bytes up to it. The runtime reads up
/// to the first NUL, which is there or before.
MaybeDiag Verifier::formatPointer(uint32_t Pc, const std::string &What, FormatArg A,
                                  const Reg &P, const State &S) {
  State T = S;
  T.Regs[0] = P;
  auto Read = [&](unsigned Size) -> MaybeDiag {
    if (auto E = access(Pc, T, 0, 0, Size, false, "helper read")) {
      E->Reason = What + ": " + E->Reason;
      return E;
    }
    return spilledPointerRead(Pc, T, 0, 0, Size, What);
  };
  if (A == FormatArg::Ip4 || A == FormatArg::Ip6)
    return Read(A == FormatArg::Ip4 ? 4 : 16);
  if (P.K == Kind::MapValue && !P.hasVarOff()) {
    const object::MapSpec &M = Maps[P.Aux];
    if (constantGlobalData(M) && P.Off >= 0 && uint64_t(P.Off) < M.InitialValue.size()) {
      auto From = M.InitialValue.begin() + P.Off;
      if (std::find(From, M.InitialValue.end(), uint8_t(0)) != M.InitialValue.end())
        return std::nullopt;
    }
  } else if (P.K == Kind::Stack && !P.hasVarOff() && P.Off < 0) {
    const Frame &F = S.Frames[P.Aux];
    for (int64_t X = P.Off + int64_t(isa::MaxStackBytes); X < int64_t(isa::MaxStackBytes); ++X)
      if (F.Known[size_t(X)] == 0)
        return Read(unsigned(X - P.Off - int64_t(isa::MaxStackBytes) + 1));
  }
  return fail(Pc,
              What + " reads a string whose end the verifier cannot see: it must point to a "
                     "constant string of .rodata, or to stack bytes ending in a known NUL, is " +
                  P.str(),
              "nul_terminated(string)");
}

} // namespace ebpfgpu::verifier::detail

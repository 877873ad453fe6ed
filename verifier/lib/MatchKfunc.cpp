// SPDX-License-Identifier: Apache-2.0
//
// The verifier's view of ebpf-gpu's own kfunc ebpf_gpu_match(ctx, offset,
// patterns) (docs/KFUNCS.md): the context pointer as the program got it,
// an offset that is any scalar (the runtime checks it against the packet's
// length, so a variable payload offset needs no bounds proof), and a
// reference to a pattern map, the only thing that takes one. It reads the
// packet through the context and writes nothing the program can see; its
// result is an int, sign-extended: a rule id (0 to 2^31 - 1) or -ENOENT or
// -EINVAL. ebpf_gpu_match_all(ctx, offset, patterns, bitmap, bitmap__sz)
// takes the same three, then a bitmap of u64 words on the program's stack
// (8-aligned: the runtime writes whole words) that it writes for
// bitmap__sz bytes (a constant, as the kernel's `__sz` arguments are, 8 to
// EBPFGPU_PATTERNS_MAX_BITMAP); its result is the number of distinct rules
// found, at most the bitmap's bits, or -E2BIG or -EINVAL.

#include "VerifierEngine.h"

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Platform/MapShape.h"

namespace ebpfgpu::verifier::detail {

MaybeDiag Verifier::matchKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K) {
  auto ArgOf = [&](unsigned R) {
    return K.Name + " argument " + std::to_string(R) + " (r" + std::to_string(R) + ")";
  };
  const bool All = K.Role == platform::KfuncRole::PatternMatchAll;
  if (auto E = kfuncContextArgs(Pc, S, K))
    return E;
  if (S.Regs[2].K != Kind::Scalar)
    return fail(Pc,
                ArgOf(2) + ", the offset in the packet, must be a scalar, is a " +
                    kindName(S.Regs[2].K),
                "type(r2) == scalar");
  if (auto E = ebpfgpuMapArg(Pc, S, K, 3, EBPFGPU_MAP_PATTERNS, "pattern",
                             "BPF_MAP_TYPE_EBPF_GPU_PATTERNS"))
    return E;
  constexpr int64_t Einval = 22; // the most negative result
  int64_t Max = INT32_MAX;
  if (All) {
    const Reg &Bitmap = S.Regs[4];
    if (Bitmap.K != Kind::Stack || Bitmap.hasVarOff() || Bitmap.Off % 8 != 0)
      return fail(Pc,
                  ArgOf(4) + ", the bitmap, must point to the stack at a constant 8-aligned "
                             "offset, is " + Bitmap.str(),
                  "type(r4) == stack && r4.off % 8 == 0");
    const Reg &Size = S.Regs[5];
    markPrecise(S, 5);
    if (Size.K != Kind::Scalar || !Size.isConst())
      return fail(Pc, ArgOf(5) + ", bitmap__sz, must be a constant size, is " + Size.str(),
                  "constant(r5)");
    constexpr uint64_t MaxBytes = EBPFGPU_PATTERNS_MAX_BITMAP;
    if (Size.UMin == 0 || Size.UMin % 8 || Size.UMin > MaxBytes)
      return fail(Pc,
                  ArgOf(5) + ", bitmap__sz, must be a whole number of u64 words, 8 to " +
                      std::to_string(MaxBytes) + " bytes, is " + std::to_string(Size.UMin),
                  "r5 % 8 == 0 && 8 <= r5 <= " + std::to_string(MaxBytes));
    if (auto E = access(Pc, S, 4, 0, unsigned(Size.UMin), /*Write=*/true, "kfunc access")) {
      E->Reason = ArgOf(4) + ": " + E->Reason;
      return E;
    }
    helperFillsStack(S, Bitmap, Size.UMin);
    Max = int64_t(Size.UMin) * 8; // a distinct rule a bit
  }
  Reg R0 = Reg::scalar(0, UINT64_MAX, -Einval, Max);
  if (All) {
    // An int sign-extended: its low 32 bits hold the same range, which a
    // program's 32-bit check of the int narrows.
    R0.S32Min = -Einval;
    R0.S32Max = int32_t(Max);
    R0.normalize();
  }
  S.Regs[0] = R0;
  for (unsigned R = 1; R <= 5; ++R)
    S.Regs[R] = Reg();
  return std::nullopt;
}

MaybeDiag Verifier::ebpfgpuMapArg(uint32_t Pc, const State &S, const platform::KfuncProto &K,
                                  unsigned R, uint32_t Type, const char *What,
                                  const char *TypeName) {
  const std::string Arg =
      K.Name + " argument " + std::to_string(R) + " (r" + std::to_string(R) + ")";
  const std::string Name = "r" + std::to_string(R);
  const Reg &Map = S.Regs[R];
  if (Map.K != Kind::MapPtr)
    return fail(Pc, Arg + " must be a " + What + " map reference, is a " + kindName(Map.K),
                "type(" + Name + ") == map");
  const object::MapSpec &M = Maps[Map.Aux];
  if (M.Type != Type)
    return fail(Pc,
                Arg + " must be a " + What + " map (" + TypeName + "), is map '" + M.Name +
                    "' (" + platform::mapTypeName(M.Type) + ")",
                "map_func_compatible(" + Name + ")");
  return std::nullopt;
}

} // namespace ebpfgpu::verifier::detail

// SPDX-License-Identifier: Apache-2.0
//
// The verifier's view of ebpf-gpu's own kfunc ebpf_gpu_classify(features,
// features__sz, model) (docs/KFUNCS.md): a feature vector on the program's
// stack, readable for features__sz bytes (a constant, a whole number of
// int32 features, at most the model ABI's EBPFGPU_MODEL_MAX_FEATURES, as
// the kernel's `__sz` arguments are a constant-bounded size of the pointer
// before them), and a reference to a model map, the only thing that takes
// one. It reads the features and the map and writes nothing the program
// can see; its result is an int, sign-extended: a class, 0 to
// EBPFGPU_MODEL_MAX_CLASSES - 1 (the loader refuses models with more), or
// -EINVAL.

#include "VerifierEngine.h"

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Platform/MapShape.h"

namespace ebpfgpu::verifier::detail {

MaybeDiag Verifier::classifyKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K) {
  auto ArgOf = [&](unsigned R) {
    return K.Name + " argument " + std::to_string(R) + " (r" + std::to_string(R) + ")";
  };
  for (unsigned R = 1; R <= 3; ++R)
    if (auto E = readReg(Pc, S, R))
      return E;
  const Reg &Features = S.Regs[1];
  if (Features.K != Kind::Stack)
    return fail(Pc,
                ArgOf(1) + ", the features, must point to the stack, is a " +
                    kindName(Features.K),
                "type(r1) == stack");
  const Reg &Size = S.Regs[2];
  markPrecise(S, 2);
  if (Size.K != Kind::Scalar || !Size.isConst())
    return fail(Pc,
                ArgOf(2) + ", features__sz, must be a constant size, is " + Size.str(),
                "constant(r2)");
  constexpr uint64_t MaxBytes = 4 * EBPFGPU_MODEL_MAX_FEATURES;
  if (Size.UMin == 0 || Size.UMin % 4 || Size.UMin > MaxBytes)
    return fail(Pc,
                ArgOf(2) + ", features__sz, must be a whole number of int32 features, 4 to " +
                    std::to_string(MaxBytes) + " bytes, is " + std::to_string(Size.UMin),
                "r2 % 4 == 0 && 4 <= r2 <= " + std::to_string(MaxBytes));
  if (auto E = access(Pc, S, 1, 0, unsigned(Size.UMin), false, "kfunc access")) {
    E->Reason = ArgOf(1) + ": " + E->Reason;
    return E;
  }
  if (auto E = spilledPointerRead(Pc, S, 1, 0, Size.UMin, ArgOf(1)))
    return E;
  if (auto E = ebpfgpuMapArg(Pc, S, K, 3, EBPFGPU_MAP_MODEL, "model", "BPF_MAP_TYPE_EBPF_GPU_MODEL"))
    return E;
  constexpr int64_t Einval = 22; // the only negative result
  Reg R0 = Reg::scalar(0, UINT64_MAX, -Einval, EBPFGPU_MODEL_MAX_CLASSES - 1);
  // An int sign-extended: its low 32 bits hold the same range, which a
  // program's 32-bit check of the int (`if (c < 0)`) narrows.
  R0.S32Min = -Einval;
  R0.S32Max = EBPFGPU_MODEL_MAX_CLASSES - 1;
  R0.normalize();
  S.Regs[0] = R0;
  for (unsigned R = 1; R <= 5; ++R)
    S.Regs[R] = Reg();
  return std::nullopt;
}

} // namespace ebpfgpu::verifier::detail

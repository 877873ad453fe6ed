// SPDX-License-Identifier: Apache-2.0
//
// The verifier's view of ebpf-gpu's own kfunc ebpf_gpu_match(ctx, offset,
// patterns) (docs/KFUNCS.md): the context pointer as the program got it,
// an offset that is any scalar (the runtime checks it against the packet's
// length, so a variable payload offset needs no bounds proof), and a
// reference to a pattern map, the only thing that takes one. It reads the
// packet through the context and writes nothing the program can see; its
// result is an int, sign-extended: a rule id (0 to 2^31 - 1) or -ENOENT or
// -EINVAL.

#include "VerifierEngine.h"

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Platform/MapShape.h"

namespace ebpfgpu::verifier::detail {

MaybeDiag Verifier::matchKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K) {
  auto ArgOf = [&](unsigned R) {
    return K.Name + " argument " + std::to_string(R) + " (r" + std::to_string(R) + ")";
  };
  for (unsigned R = 1; R <= 3; ++R)
    if (auto E = readReg(Pc, S, R))
      return E;
  const Reg &Ctx = S.Regs[1];
  if (Ctx.K != Kind::Ctx || Ctx.Off != 0)
    return fail(Pc, ArgOf(1) + " must be the context pointer, is " + Ctx.str(),
                "type(r1) == ctx");
  if (S.Regs[2].K != Kind::Scalar)
    return fail(Pc,
                ArgOf(2) + ", the offset in the packet, must be a scalar, is a " +
                    kindName(S.Regs[2].K),
                "type(r2) == scalar");
  if (auto E = ebpfgpuMapArg(Pc, S, K, 3, EBPFGPU_MAP_PATTERNS, "pattern",
                             "BPF_MAP_TYPE_EBPF_GPU_PATTERNS"))
    return E;
  constexpr int64_t Einval = 22; // the most negative result
  S.Regs[0] = Reg::scalar(0, UINT64_MAX, -Einval, INT32_MAX);
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

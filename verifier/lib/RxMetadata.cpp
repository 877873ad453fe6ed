// SPDX-License-Identifier: Apache-2.0
//
// The verifier's view of the XDP kfuncs that take the context: the RX
// metadata kfuncs (the kernel's bpf_xdp_metadata_rx_timestamp, _rx_hash
// and _rx_vlan_tag), and bpf_xdp_pull_data (below). For the first: the context
// pointer as the program got it, then one or two pointers to the scalars
// the kfunc fills (u64; u32 and enum xdp_rss_hash_type; __be16 and u16),
// checked as the kernel's check_mem_reg checks a pointer-to-scalar kfunc
// argument: memory of that size the program may both read and write
// (stack, a map value, the packet or its metadata, a ring buffer record),
// never null. The result is an int, 0 or -errno, zero-extended in r0 as
// the kernel's kfunc results are (the bpf_iter_num and dynptr kfuncs').

#include "VerifierEngine.h"

namespace ebpfgpu::verifier::detail {

MaybeDiag Verifier::kfuncContextArgs(uint32_t Pc, const State &S,
                                     const platform::KfuncProto &K) {
  for (unsigned R = 1; R <= K.NumArgs; ++R)
    if (auto E = readReg(Pc, S, R))
      return E;
  const Reg &Ctx = S.Regs[1];
  if (Ctx.K != Kind::Ctx || Ctx.Off != 0)
    return fail(Pc, K.Name + " argument 1 (r1) must be the context pointer, is " + Ctx.str(),
                "type(r1) == ctx");
  return std::nullopt;
}

MaybeDiag Verifier::rxMetadataKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K) {
  auto ArgOf = [&](unsigned R) {
    return K.Name + " argument " + std::to_string(R) + " (r" + std::to_string(R) + ")";
  };
  if (auto E = kfuncContextArgs(Pc, S, K))
    return E;
  for (unsigned R = 2; R <= K.NumArgs; ++R) {
    const Reg &V = S.Regs[R];
    unsigned Size = K.OutSizes[R - 2];
    if (V.K != Kind::Stack && V.K != Kind::MapValue && V.K != Kind::Packet &&
        V.K != Kind::PacketMeta && V.K != Kind::AllocMem)
      return fail(Pc,
                  ArgOf(R) + " must point to " + std::to_string(Size) +
                      " bytes of memory the kfunc writes, is " + V.str(),
                  "type(r" + std::to_string(R) + ") == mem");
    // The kernel checks a read and a write of the bytes; as root it lets
    // the read see uninitialised stack, and the kfunc may write them.
    if (auto E = access(Pc, S, R, 0, Size, /*Write=*/true, "kfunc access")) {
      E->Reason = ArgOf(R) + ": " + E->Reason;
      return E;
    }
    if (V.K == Kind::Stack)
      helperFillsStack(S, V, Size);
  }
  Res.ReadsRxMetadata = true;
  S.Regs[0] = Reg::scalar(0, UINT32_MAX, 0, UINT32_MAX);
  for (unsigned R = 1; R <= 5; ++R)
    S.Regs[R] = Reg();
  return std::nullopt;
}

/// bpf_xdp_pull_data(ctx, len): the context as the program got it and a
/// scalar. The kernel lists it among the kfuncs that change packet data
/// (it may move the linear part to make room), so every packet pointer
/// goes stale as after bpf_xdp_adjust_head. The result is an int, 0 or
/// -EINVAL, zero-extended.
MaybeDiag Verifier::pullDataKfunc(uint32_t Pc, State &S, const platform::KfuncProto &K) {
  if (auto E = kfuncContextArgs(Pc, S, K))
    return E;
  if (S.Regs[2].K != Kind::Scalar)
    return fail(Pc, K.Name + " argument 2 (r2) must be a scalar, is a " + kindName(S.Regs[2].K),
                "type(r2) == scalar");
  movePacket(S);
  S.Regs[0] = Reg::scalar(0, UINT32_MAX, 0, UINT32_MAX);
  for (unsigned R = 1; R <= 5; ++R)
    S.Regs[R] = Reg();
  return std::nullopt;
}

} // namespace ebpfgpu::verifier::detail

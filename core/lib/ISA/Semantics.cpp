// SPDX-License-Identifier: Apache-2.0
//
// Exact ALU semantics (RFC 9669) for constant folding.

#include "ebpf-gpu/ISA/Semantics.h"

namespace ebpfgpu::isa {

uint64_t evalAlu(uint8_t Op, uint64_t A, uint64_t B, bool Is64, int16_t Off) {
  if (!Is64) {
    A = uint32_t(A);
    B = uint32_t(B);
  }
  unsigned Bits = Is64 ? 64 : 32;
  auto Sx = [&](uint64_t V) { return Is64 ? int64_t(V) : int64_t(int32_t(uint32_t(V))); };
  uint64_t R = 0;
  switch (Op) {
  case isa::Add: R = A + B; break;
  case isa::Sub: R = A - B; break;
  case isa::Mul: R = A * B; break;
  case isa::Or: R = A | B; break;
  case isa::And: R = A & B; break;
  case isa::Xor: R = A ^ B; break;
  case isa::Lsh: R = A << (B & (Bits - 1)); break;
  case isa::Rsh: R = (Is64 ? A : uint32_t(A)) >> (B & (Bits - 1)); break;
  case isa::Arsh: R = uint64_t(Sx(A) >> (B & (Bits - 1))); break;
  case isa::Neg: R = 0 - A; break;
  case isa::Mov:
    if (Off == 0)
      R = B;
    else if (Off == 8)
      R = uint64_t(int64_t(int8_t(B)));
    else if (Off == 16)
      R = uint64_t(int64_t(int16_t(B)));
    else
      R = uint64_t(int64_t(int32_t(B)));
    break;
  case isa::Div:
    if (Off == 1) {
      int64_t SA = Sx(A), SB = Sx(B);
      R = SB == 0 ? 0 : SB == -1 ? uint64_t(0 - uint64_t(SA)) : uint64_t(SA / SB);
    } else {
      R = B == 0 ? 0 : A / B;
    }
    break;
  case isa::Mod:
    if (Off == 1) {
      int64_t SA = Sx(A), SB = Sx(B);
      R = SB == 0 ? uint64_t(SA) : SB == -1 ? 0 : uint64_t(SA % SB);
    } else {
      R = B == 0 ? A : A % B;
    }
    break;
  default:
    break;
  }
  return Is64 ? R : uint32_t(R);
}

} // namespace ebpfgpu::isa

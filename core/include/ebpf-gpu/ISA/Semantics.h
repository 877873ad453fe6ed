// SPDX-License-Identifier: Apache-2.0
//
// What ALU instructions compute, exactly as RFC 9669 defines it (32-bit
// results zero-extended, shifts masked, x/0 = 0, x%0 = x, INT_MIN/-1 =
// INT_MIN, sign-extending moves), for the analyses that fold constants:
// the lifter's provenance analysis and the verifier.

#ifndef EBPF_GPU_ISA_SEMANTICS_H
#define EBPF_GPU_ISA_SEMANTICS_H

#include "ebpf-gpu/ISA/Insn.h"

#include <cstdint>

namespace ebpfgpu::isa {

/// Result of ALU operation `Op` (Add..Arsh, Neg, Mov; not End) on `A`
/// (destination) and `B` (source), with the instruction's offset field
/// `Off` (signed division, sign-extending move).
uint64_t evalAlu(uint8_t Op, uint64_t A, uint64_t B, bool Is64, int16_t Off);

} // namespace ebpfgpu::isa

#endif // EBPF_GPU_ISA_SEMANTICS_H

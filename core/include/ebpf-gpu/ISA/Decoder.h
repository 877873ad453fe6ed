// SPDX-License-Identifier: Apache-2.0
//
// Turns raw eBPF bytes into checked instructions. Every encoding RFC 9669
// leaves undefined is refused here (unknown opcodes, non-zero reserved
// fields, a half LDDW, jumps that leave the program or land inside an LDDW),
// so later stages see only well-formed instructions.

#ifndef EBPF_GPU_ISA_DECODER_H
#define EBPF_GPU_ISA_DECODER_H

#include "ebpf-gpu/ISA/Insn.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ebpfgpu::isa {

/// Reads one 8-byte slot without checking it.
Insn readSlot(const uint8_t *Bytes);

/// Decodes and checks a whole program (little-endian). The result has one
/// entry per 8-byte slot. Errors read "pc N: <reason>".
Expected<std::vector<Insn>> decodeProgram(const uint8_t *Bytes, size_t Size);

/// Checks already-read slots (e.g. after relocation), as decodeProgram does.
MaybeError checkProgram(std::vector<Insn> &Insns);

} // namespace ebpfgpu::isa

#endif // EBPF_GPU_ISA_DECODER_H

// SPDX-License-Identifier: Apache-2.0
//
// Prints instructions in the C-like syntax of the kernel verifier log and
// llvm-objdump (`r0 = *(u32 *)(r1 + 4)`, `if w1 > 5 goto +3`), so output can
// be compared with the tools BPF developers already read.

#ifndef EBPF_GPU_ISA_DISASSEMBLER_H
#define EBPF_GPU_ISA_DISASSEMBLER_H

#include "ebpf-gpu/ISA/Insn.h"

#include <functional>
#include <string>

namespace ebpfgpu::isa {

/// Optional names for operands the instruction only numbers.
struct DisasmNames {
  /// Name of helper `Id`, or empty when unknown.
  std::function<std::string(int32_t Id)> Helper;
  /// Name of the map an LDDW refers to (by the value of its imm), or empty.
  std::function<std::string(int32_t MapIndex)> Map;
};

/// One instruction as text, without pc or trailing newline. Pc is needed to
/// print absolute jump targets next to relative ones.
std::string disassemble(const Insn &I, size_t Pc,
                        const DisasmNames *Names = nullptr);

} // namespace ebpfgpu::isa

#endif // EBPF_GPU_ISA_DISASSEMBLER_H

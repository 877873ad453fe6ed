// SPDX-License-Identifier: Apache-2.0
//
// Warp collectives on a value every lane holds alike, folded in the
// optimised GPU module (compiler/lib/Gpu/WarpUniform.cpp).

#ifndef EBPF_GPU_COMPILER_WARPUNIFORM_H
#define EBPF_GPU_COMPILER_WARPUNIFORM_H

#include "llvm/IR/Module.h"

namespace llvm {
class TargetMachine;
}

namespace ebpfgpu::compiler {

/// Folds `match.any.sync(mask, V)` to `mask` and `match.all.sync(mask, V)`
/// to `{mask, true}` where V is the same in every lane (a constant, a
/// kernel parameter, constant memory at such an address, and arithmetic
/// on those), then simplifies the functions it changed. Returns how many
/// collectives it folded.
unsigned foldUniformWarpMatches(llvm::Module &M, llvm::TargetMachine *TM);

} // namespace ebpfgpu::compiler

#endif // EBPF_GPU_COMPILER_WARPUNIFORM_H

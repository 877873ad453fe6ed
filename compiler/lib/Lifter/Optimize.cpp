// SPDX-License-Identifier: Apache-2.0
//
// LLVM's standard optimisation pipeline over a lifted module (host).

#include "ebpf-gpu/Compiler/Lifter.h"

#include "PointerFold.h"

namespace ebpfgpu::compiler {

void optimizeModule(llvm::Module &M, unsigned OptLevel) {
  runOptimizationPipeline(M, OptLevel, nullptr);
}

} // namespace ebpfgpu::compiler

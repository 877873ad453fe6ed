// SPDX-License-Identifier: Apache-2.0
//
// LLVM's standard optimisation pipeline over a lifted module.

#include "ebpf-gpu/Compiler/Lifter.h"

#include "llvm/Passes/PassBuilder.h"

namespace ebpfgpu::compiler {

void optimizeModule(llvm::Module &M, unsigned OptLevel) {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  llvm::OptimizationLevel Level = llvm::OptimizationLevel::O0;
  switch (OptLevel) {
  case 0:
    break;
  case 1:
    Level = llvm::OptimizationLevel::O1;
    break;
  case 2:
    Level = llvm::OptimizationLevel::O2;
    break;
  default:
    Level = llvm::OptimizationLevel::O3;
    break;
  }
  llvm::ModulePassManager MPM = OptLevel == 0
                                    ? PB.buildO0DefaultPipeline(Level)
                                    : PB.buildPerModuleDefaultPipeline(Level);
  MPM.run(M, MAM);
}

} // namespace ebpfgpu::compiler

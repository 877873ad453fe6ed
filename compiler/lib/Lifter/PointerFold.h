// SPDX-License-Identifier: Apache-2.0
//
// Private to the compiler: the pass that turns the lifter's integer pointer
// arithmetic back into pointer arithmetic where the base is known.

#ifndef EBPF_GPU_LIFTER_POINTERFOLD_H
#define EBPF_GPU_LIFTER_POINTERFOLD_H

#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"

namespace llvm {
class TargetMachine;
}

namespace ebpfgpu::compiler {

/// eBPF registers are integers, so the lifter addresses memory through
/// `inttoptr`. Once inlining exposes `inttoptr(ptrtoint(P) + X)`, this pass
/// rewrites it to `getelementptr i8, P, X`: eBPF pointer arithmetic never
/// leaves the object it started in (the verifier's rule), so P's provenance
/// is the right one. With the stack frame no longer escaping through
/// integers, SROA can keep it in registers (no GPU local memory).
class PointerFoldPass : public llvm::PassInfoMixin<PointerFoldPass> {
public:
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

/// The new pass manager's four analysis managers, registered with a pass
/// builder for `TM` (may be null) and linked to one another: what running
/// any pass pipeline on a module takes.
struct PassSetup {
  llvm::LoopAnalysisManager LAM;
  llvm::FunctionAnalysisManager FAM;
  llvm::CGSCCAnalysisManager CGAM;
  llvm::ModuleAnalysisManager MAM;
  llvm::PassBuilder PB;
  explicit PassSetup(llvm::TargetMachine *TM);
};

/// Runs the standard pipeline at `OptLevel`, then PointerFoldPass, then the
/// pipeline again where the fold changed anything. `TM` may be null.
void runOptimizationPipeline(llvm::Module &M, unsigned OptLevel, llvm::TargetMachine *TM);

} // namespace ebpfgpu::compiler

#endif // EBPF_GPU_LIFTER_POINTERFOLD_H

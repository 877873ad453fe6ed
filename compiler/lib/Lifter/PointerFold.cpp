// SPDX-License-Identifier: Apache-2.0
//
// inttoptr(ptrtoint(P) + X) -> getelementptr i8, P, X (see PointerFold.h),
// and the optimisation pipeline that uses it.

#include "PointerFold.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"

namespace ebpfgpu::compiler {

using namespace llvm::PatternMatch;

namespace {

/// Splits V into a pointer P and an integer offset such that
/// V == ptrtoint(P) + offset; returns null when V does not have that form.
llvm::Value *findBase(llvm::Value *V, llvm::SmallVectorImpl<llvm::Value *> &Offsets,
                      unsigned Depth = 0) {
  if (Depth > 8)
    return nullptr;
  llvm::Value *P;
  if (match(V, m_PtrToInt(m_Value(P))))
    return P;
  llvm::Value *A, *B;
  if (match(V, m_Add(m_Value(A), m_Value(B)))) {
    if (llvm::Value *Base = findBase(A, Offsets, Depth + 1)) {
      Offsets.push_back(B);
      return Base;
    }
    if (llvm::Value *Base = findBase(B, Offsets, Depth + 1)) {
      Offsets.push_back(A);
      return Base;
    }
  }
  return nullptr;
}

} // namespace

llvm::PreservedAnalyses PointerFoldPass::run(llvm::Function &F, llvm::FunctionAnalysisManager &) {
  bool Changed = false;
  for (llvm::BasicBlock &BB : F) {
    for (llvm::Instruction &I : llvm::make_early_inc_range(BB)) {
      auto *ITP = llvm::dyn_cast<llvm::IntToPtrInst>(&I);
      if (!ITP)
        continue;
      llvm::SmallVector<llvm::Value *, 4> Offsets;
      llvm::Value *Base = findBase(ITP->getOperand(0), Offsets);
      if (!Base || ITP->getOperand(0)->getType()->getIntegerBitWidth() != 64)
        continue;
      llvm::IRBuilder<> B(ITP);
      llvm::Value *Ptr = Base;
      for (llvm::Value *Off : Offsets)
        Ptr = B.CreateGEP(B.getInt8Ty(), Ptr, Off);
      if (Ptr->getType() != ITP->getType())
        Ptr = B.CreateAddrSpaceCast(Ptr, ITP->getType());
      ITP->replaceAllUsesWith(Ptr);
      ITP->eraseFromParent();
      Changed = true;
    }
  }
  return Changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

PassSetup::PassSetup(llvm::TargetMachine *TM) : PB(TM) {
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
}

void runOptimizationPipeline(llvm::Module &M, unsigned OptLevel, llvm::TargetMachine *TM) {
  auto RunOnce = [&](bool Fold) {
    PassSetup P(TM);
    llvm::PassBuilder &PB = P.PB;
    llvm::ModuleAnalysisManager &MAM = P.MAM;
    llvm::ModulePassManager MPM;
    if (Fold) {
      MPM.addPass(llvm::createModuleToFunctionPassAdaptor(PointerFoldPass()));
    } else if (OptLevel == 0) {
      MPM = PB.buildO0DefaultPipeline(llvm::OptimizationLevel::O0);
    } else {
      MPM = PB.buildPerModuleDefaultPipeline(OptLevel == 1   ? llvm::OptimizationLevel::O1
                                             : OptLevel == 2 ? llvm::OptimizationLevel::O2
                                                             : llvm::OptimizationLevel::O3);
    }
    llvm::PreservedAnalyses PA = MPM.run(M, MAM);
    return !PA.areAllPreserved();
  };
  RunOnce(false);
  if (OptLevel > 0 && RunOnce(true))
    RunOnce(false);
}

} // namespace ebpfgpu::compiler

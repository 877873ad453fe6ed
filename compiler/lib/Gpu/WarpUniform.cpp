// SPDX-License-Identifier: Apache-2.0
//
// The warp-combined adds of the map library (DeviceHelpers.c:
// ebpfgpu_warp_combine, under the block-combined adds of BlockAdds.inc)
// ask the warp which lanes add to the same address (`match.any.sync`) and
// whether they add the same amount (`match.all.sync`). A program's counter
// at a constant index (`count(2)` of xdp_tcp_mss, the rate limiter's
// pass and drop counts) adds at an address every lane computes alike, from
// its map's header in constant memory, and most add the constant 1: both
// answers are then the lanes that ask. LLVM cannot know that (a collective
// is opaque to it), and ptxas wraps each under divergence in a COLLECTIVE
// region that the warp leaves together (round 12 of bench/NOTES.md: 17% of
// xdp_tcp_mss's samples at its ENDCOLLECTIVE). Folding them leaves the
// lowest lane adding popcount(mask) times the amount, with no collective.
//
// Sound by the intrinsics' definition: the lanes of `mask` execute the
// call together (the library passes `activemask`), so a value that is the
// same in every lane matches in all of them. "The same in every lane" is
// decided here conservatively, not by LLVM's uniformity analysis (which
// takes any load from a uniform address as uniform, though memory that
// other threads write may differ between lanes' reads): constants, the
// kernel's parameters, loads from constant memory (which no thread writes)
// at such addresses, the header-address moves of pinMapHeaders, and
// integer, pointer and address-space arithmetic on those.

#include "ebpf-gpu/Compiler/WarpUniform.h"

#include "../Lifter/PointerFold.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/ADCE.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"

#include <set>

namespace ebpfgpu::compiler {

namespace {

/// NVPTX's constant memory: no thread of a kernel writes it.
constexpr unsigned ConstantSpace = 4;

bool inConstantSpace(const llvm::Value *P) {
  for (unsigned Depth = 0; Depth < 16; ++Depth) {
    if (P->getType()->isPointerTy() && P->getType()->getPointerAddressSpace() == ConstantSpace)
      return true;
    if (auto *Cast = llvm::dyn_cast<llvm::AddrSpaceCastInst>(P))
      P = Cast->getOperand(0);
    else if (auto *Gep = llvm::dyn_cast<llvm::GetElementPtrInst>(P))
      P = Gep->getPointerOperand();
    else
      return false;
  }
  return false;
}

/// What the two walks below found so far, so that a value many others
/// share is walked once (a walk that stopped at its depth limit says
/// "no", which only folds less).
struct Walks {
  llvm::DenseMap<const llvm::Value *, bool> Invariant;
  llvm::DenseMap<std::pair<const llvm::Value *, const llvm::Value *>, bool> Same;
};

/// Whether `A` and `B` compute the same value by the same steps from the
/// same constants (two copies of one header field's load, which
/// pinMapHeaders keeps apart on purpose).
bool sameComputation(const llvm::Value *A, const llvm::Value *B, Walks &W, unsigned Depth = 0) {
  if (A == B)
    return true;
  if (Depth > 24 || A->getType() != B->getType())
    return false;
  auto [It, New] = W.Same.try_emplace({A, B}, false);
  if (!New)
    return It->second;
  auto *IA = llvm::dyn_cast<llvm::Instruction>(A);
  auto *IB = llvm::dyn_cast<llvm::Instruction>(B);
  if (!IA || !IB || !IA->isSameOperationAs(IB) || IA->getNumOperands() != IB->getNumOperands() ||
      llvm::isa<llvm::PHINode>(IA))
    return false;
  for (unsigned K = 0; K < IA->getNumOperands(); ++K)
    if (!sameComputation(IA->getOperand(K), IB->getOperand(K), W, Depth + 1))
      return false;
  return W.Same[{A, B}] = true;
}

bool laneInvariantStep(const llvm::Value *V, Walks &W, unsigned Depth);

/// Whether `V` is the same in every lane that computes it.
bool laneInvariant(const llvm::Value *V, Walks &W, unsigned Depth = 0) {
  if (Depth > 24)
    return false;
  auto It = W.Invariant.find(V);
  if (It != W.Invariant.end())
    return It->second;
  bool Same = laneInvariantStep(V, W, Depth);
  W.Invariant[V] = Same;
  return Same;
}

bool laneInvariantStep(const llvm::Value *V, Walks &W, unsigned Depth) {
  if (llvm::isa<llvm::Constant>(V))
    return true;
  if (auto *A = llvm::dyn_cast<llvm::Argument>(V))
    return A->getParent()->getCallingConv() == llvm::CallingConv::PTX_Kernel;
  auto *I = llvm::dyn_cast<llvm::Instruction>(V);
  if (!I)
    return false;
  if (auto *L = llvm::dyn_cast<llvm::LoadInst>(I))
    return L->isSimple() && inConstantSpace(L->getPointerOperand()) &&
           laneInvariant(L->getPointerOperand(), W, Depth + 1);
  if (auto *Call = llvm::dyn_cast<llvm::CallInst>(I)) {
    // pinMapHeaders' `mov.u64` of a header's symbol.
    auto *Asm = llvm::dyn_cast<llvm::InlineAsm>(Call->getCalledOperand());
    return Asm && Asm->getAsmString() == "mov.u64 $0, $1;" && Call->arg_size() == 1 &&
           llvm::isa<llvm::Constant>(Call->getArgOperand(0));
  }
  // Lanes may reach a join from different blocks: only where every block
  // brings the same computation.
  if (auto *Phi = llvm::dyn_cast<llvm::PHINode>(I)) {
    for (const llvm::Value *In : Phi->incoming_values())
      if (!sameComputation(In, Phi->getIncomingValue(0), W))
        return false;
    return laneInvariant(Phi->getIncomingValue(0), W, Depth + 1);
  }
  if (llvm::isa<llvm::CastInst>(I) || llvm::isa<llvm::BinaryOperator>(I) ||
      llvm::isa<llvm::GetElementPtrInst>(I) || llvm::isa<llvm::CmpInst>(I)) {
    for (const llvm::Value *Op : I->operands())
      if (!laneInvariant(Op, W, Depth + 1))
        return false;
    return true;
  }
  return false;
}

} // namespace

unsigned foldUniformWarpMatches(llvm::Module &M, llvm::TargetMachine *TM) {
  unsigned Folded = 0;
  std::set<llvm::Function *> Changed;
  Walks W;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : llvm::make_early_inc_range(BB)) {
        auto *Call = llvm::dyn_cast<llvm::IntrinsicInst>(&I);
        if (!Call)
          continue;
        llvm::Intrinsic::ID Id = Call->getIntrinsicID();
        bool Any = Id == llvm::Intrinsic::nvvm_match_any_sync_i32 ||
                   Id == llvm::Intrinsic::nvvm_match_any_sync_i64;
        bool All = Id == llvm::Intrinsic::nvvm_match_all_sync_i32p ||
                   Id == llvm::Intrinsic::nvvm_match_all_sync_i64p;
        if ((!Any && !All) || !laneInvariant(Call->getArgOperand(1), W))
          continue;
        llvm::Value *Mask = Call->getArgOperand(0);
        llvm::Value *Result = Mask;
        if (All) {
          llvm::Value *Pair = llvm::PoisonValue::get(Call->getType());
          Pair = llvm::InsertValueInst::Create(Pair, Mask, {0}, "", Call);
          Result = llvm::InsertValueInst::Create(
              Pair, llvm::ConstantInt::getTrue(M.getContext()), {1}, "", Call);
        }
        Call->replaceAllUsesWith(Result);
        Call->eraseFromParent();
        Changed.insert(&F);
        ++Folded;
      }
  if (Changed.empty())
    return 0;
  // The branches on the answers, and the shuffles of a sum no lane needs
  // any more, go.
  PassSetup P(TM);
  llvm::FunctionPassManager FPM;
  FPM.addPass(llvm::InstCombinePass());
  FPM.addPass(llvm::SimplifyCFGPass());
  FPM.addPass(llvm::ADCEPass());
  for (llvm::Function *F : Changed)
    FPM.run(*F, P.FAM);
  return Folded;
}

} // namespace ebpfgpu::compiler

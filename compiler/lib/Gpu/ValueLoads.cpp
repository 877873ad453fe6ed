// SPDX-License-Identifier: Apache-2.0
//
// The program's loads from shared hashed maps' values, after the optimiser
// (hoistAndStrengthenValueLoads, Lifter.h). A load from a map that
// programs write in place must be strong (volatile: past the L1 cache, or
// it may see a value another multiprocessor has since changed), and LLVM
// neither moves nor merges volatile loads. Kept plain through the
// optimiser, behind a mark on their base pointer, they are forwarded,
// merged and partly redundant ones completed like any other load; what
// LLVM does not do is issue a load before a branch when both arms need it,
// because it only hoists code that starts both arms alike. xdp_rate_limit
// reads its bucket's refill time, branches on it, and reads its tokens in
// both arms: two round trips to L2 one after the other, where one would
// do. Here such a load moves to the earliest point that every path from it
// reaches the load with no write in between that may change the bytes
// (MemorySSA: a store through the same value at another offset does not;
// an atomic stronger than monotonic, a fence or a call that may write
// memory does), so issuing it there reads what the program would have
// read. For a relaxed (volatile) load on the GPU, reading earlier with
// nothing ordered in between is one of the orders another thread's write
// could have met anyway. Only then are the loads of maps that need it made
// volatile, and the marks removed.

#include "ebpf-gpu/Compiler/Lifter.h"

#include "../Lifter/PointerFold.h"

#include "llvm/Analysis/Loads.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/MemorySSA.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace ebpfgpu::compiler {

namespace {

llvm::CallInst *asMark(llvm::Value *V) {
  auto *C = llvm::dyn_cast<llvm::CallInst>(V);
  llvm::Function *F = C ? C->getCalledFunction() : nullptr;
  return F && F->getName() == MapValueMarkFn ? C : nullptr;
}

/// Loads of the same bytes (mark, offset, type) that could all be issued
/// at one point.
struct Group {
  std::vector<llvm::LoadInst *> Loads;
  llvm::Align Alignment{8};
};

/// Whether every path leaving `From` (which holds no load of the group) reaches a block of `Holding`,
/// staying among the blocks `From` dominates and never coming back to it.
bool everyPathReaches(llvm::BasicBlock *From, const std::set<llvm::BasicBlock *> &Holding,
                      llvm::DominatorTree &DT) {
  // The least fixpoint of "this block holds a load, or it has successors
  // and all of them reach one": loops reach one only through an exit.
  std::map<llvm::BasicBlock *, bool> Reaches;
  auto Get = [&](llvm::BasicBlock *B) {
    if (Holding.count(B))
      return true;
    auto It = Reaches.find(B);
    return It != Reaches.end() && It->second;
  };
  std::vector<llvm::BasicBlock *> Region;
  for (llvm::BasicBlock &B : *From->getParent())
    if (&B != From && DT.dominates(From, &B) && !Holding.count(&B))
      Region.push_back(&B);
  auto Judge = [&](llvm::BasicBlock *B) {
    if (llvm::succ_empty(B))
      return false;
    for (llvm::BasicBlock *S : llvm::successors(B))
      if (S == From || !DT.dominates(From, S) || !Get(S))
        return false;
    return true;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (llvm::BasicBlock *B : Region)
      if (!Reaches[B] && Judge(B)) {
        Reaches[B] = true;
        Changed = true;
      }
  }
  return Judge(From);
}

/// The instruction before which `L` could be issued instead, by its mark
/// and its clobbering access, or null.
llvm::Instruction *hoistPoint(llvm::LoadInst *L, llvm::CallInst *Mark, llvm::MemorySSA &MSSA,
                              llvm::DominatorTree &DT, llvm::LoopInfo &LI) {
  llvm::MemoryAccess *Clob = MSSA.getWalker()->getClobberingMemoryAccess(L);
  llvm::Instruction *Before = Mark->getNextNode();
  if (!MSSA.isLiveOnEntryDef(Clob)) {
    if (auto *UD = llvm::dyn_cast<llvm::MemoryUseOrDef>(Clob)) {
      llvm::Instruction *CI = UD->getMemoryInst();
      if (DT.dominates(Mark, CI)) {
        if (CI->isTerminator())
          return nullptr;
        Before = CI->getNextNode();
      } else if (!DT.dominates(CI, Mark)) {
        return nullptr;
      }
    } else {
      llvm::BasicBlock *X = llvm::cast<llvm::MemoryPhi>(Clob)->getBlock();
      if (X != Mark->getParent()) {
        if (DT.dominates(Mark->getParent(), X))
          Before = &*X->getFirstInsertionPt();
        else if (!DT.dominates(X, Mark->getParent()))
          return nullptr;
      }
    }
  }
  if (Before->getParent() == L->getParent() ||
      LI.getLoopFor(Before->getParent()) != LI.getLoopFor(L->getParent()))
    return nullptr;
  return Before;
}

unsigned hoistValueLoads(llvm::Function &F, llvm::FunctionAnalysisManager &FAM) {
  auto &DT = FAM.getResult<llvm::DominatorTreeAnalysis>(F);
  auto &LI = FAM.getResult<llvm::LoopAnalysis>(F);
  auto &MSSA = FAM.getResult<llvm::MemorySSAAnalysis>(F).getMSSA();
  const llvm::DataLayout &DL = F.getDataLayout();
  // By hoisting point, mark, offset and type.
  std::map<std::tuple<llvm::Instruction *, llvm::Value *, int64_t, llvm::Type *>, Group> Groups;
  for (llvm::BasicBlock &B : F)
    for (llvm::Instruction &I : B) {
      auto *L = llvm::dyn_cast<llvm::LoadInst>(&I);
      if (!L || !L->isSimple())
        continue;
      int64_t Off = 0;
      llvm::CallInst *Mark = asMark(
          llvm::GetPointerBaseWithConstantOffset(L->getPointerOperand(), Off, DL));
      if (!Mark)
        continue;
      llvm::Instruction *At = hoistPoint(L, Mark, MSSA, DT, LI); // insert before
      // Its bytes must be readable there: the mark's dereferenceable bytes.
      if (!At || !llvm::isDereferenceableAndAlignedPointer(L->getPointerOperand(), L->getType(),
                                                           L->getAlign(), DL, At, nullptr, &DT))
        continue;
      Group &G = Groups[{At, Mark, Off, L->getType()}];
      G.Loads.push_back(L);
      G.Alignment = std::min(G.Alignment, L->getAlign());
    }
  unsigned Hoisted = 0;
  for (auto &[Key, G] : Groups) {
    auto [At, Mark, Off, Ty] = Key;
    std::set<llvm::BasicBlock *> Holding;
    for (llvm::LoadInst *L : G.Loads)
      Holding.insert(L->getParent());
    // Only loads every path performs: issuing one earlier then adds no
    // traffic, only overlap.
    llvm::BasicBlock *From = At->getParent();
    if (!everyPathReaches(From, Holding, DT))
      continue;
    llvm::IRBuilder<> B(At);
    llvm::Value *Ptr = Off ? B.CreateInBoundsGEP(B.getInt8Ty(), Mark, B.getInt64(uint64_t(Off)))
                           : static_cast<llvm::Value *>(Mark);
    llvm::LoadInst *New = B.CreateAlignedLoad(Ty, Ptr, G.Alignment);
    for (llvm::LoadInst *L : G.Loads) {
      L->replaceAllUsesWith(New);
      L->eraseFromParent();
    }
    Hoisted += unsigned(G.Loads.size());
  }
  return Hoisted;
}

/// Every load and memory copy that reads through `Mark`, by the pointers
/// derived from it (casts, address arithmetic, merges; integers cast back).
void strengthenThrough(llvm::CallInst *Mark) {
  std::vector<llvm::Value *> Work{Mark};
  std::set<llvm::Value *> Seen{Mark};
  while (!Work.empty()) {
    llvm::Value *V = Work.back();
    Work.pop_back();
    for (llvm::User *U : V->users()) {
      if (auto *L = llvm::dyn_cast<llvm::LoadInst>(U)) {
        if (L->getPointerOperand() == V)
          L->setVolatile(true);
        continue;
      }
      if (auto *MT = llvm::dyn_cast<llvm::MemTransferInst>(U)) {
        if (MT->getRawSource() == V)
          MT->setVolatile(llvm::ConstantInt::getTrue(MT->getContext()));
        continue;
      }
      if (llvm::isa<llvm::GetElementPtrInst>(U) || llvm::isa<llvm::CastInst>(U) ||
          llvm::isa<llvm::PHINode>(U) || llvm::isa<llvm::SelectInst>(U) ||
          llvm::isa<llvm::BinaryOperator>(U))
        if (Seen.insert(U).second)
          Work.push_back(U);
    }
  }
}

} // namespace

unsigned hoistAndStrengthenValueLoads(llvm::Module &M) {
  llvm::Function *MarkFn = M.getFunction(MapValueMarkFn);
  if (!MarkFn)
    return 0;
  unsigned Hoisted = 0;
  {
    PassSetup P(nullptr);
    for (llvm::Function &F : M)
      if (!F.isDeclaration())
        Hoisted += hoistValueLoads(F, P.FAM);
  }
  std::vector<llvm::CallInst *> Marks;
  for (llvm::User *U : MarkFn->users())
    Marks.push_back(llvm::cast<llvm::CallInst>(U));
  for (llvm::CallInst *Mark : Marks) {
    auto *Shape = llvm::dyn_cast<llvm::GlobalVariable>(Mark->getArgOperand(1));
    auto *Fixed = llvm::dyn_cast<llvm::ConstantInt>(Mark->getArgOperand(2));
    if (valueLoadsMustBeStrong(Shape, Fixed && Fixed->isOne()))
      strengthenThrough(Mark);
    Mark->replaceAllUsesWith(Mark->getArgOperand(0));
    Mark->eraseFromParent();
  }
  MarkFn->eraseFromParent();
  return Hoisted;
}

} // namespace ebpfgpu::compiler

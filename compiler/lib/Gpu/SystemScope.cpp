// SPDX-License-Identifier: Apache-2.0
//
// System-scope atomics for maps that several GPUs share (SystemScope.h).
// LLVM 19's NVPTX back end ignores an atomic's syncscope and ordering: every
// atomicrmw and cmpxchg becomes `atom` (.gpu scope, relaxed), coherent
// among one GPU's threads only, so two GPUs adding to one counter over
// peer memory could lose updates. This pass, run on the optimised module,
// writes each as the same operation in inline PTX with `.sys`: the ordering
// stays what the .gpu build has (relaxed; the map library's fences,
// acquires and releases are its own PTX, at system scope in its second
// build), only the scope widens. Rewriting the IR, not the PTX text: the
// atomics are found by type, not by pattern.

#include "SystemScope.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"

#include <string>
#include <vector>

namespace ebpfgpu::compiler {

namespace {

/// NVPTX's address spaces an atomic may use: generic (0), global (1) and
/// shared (3, one block's: .gpu scope is already wider than its threads).
constexpr unsigned GenericSpace = 0, GlobalSpace = 1, SharedSpace = 3;

/// The PTX operation of `Op` on `Bits`-bit integers ("add.u32"), or empty.
std::string ptxOperation(llvm::AtomicRMWInst::BinOp Op, unsigned Bits) {
  const std::string W = std::to_string(Bits);
  switch (Op) {
  case llvm::AtomicRMWInst::Xchg: return "exch.b" + W;
  case llvm::AtomicRMWInst::Add: return "add.u" + W;
  case llvm::AtomicRMWInst::Sub: return "add.u" + W; // of the negated operand
  case llvm::AtomicRMWInst::And: return "and.b" + W;
  case llvm::AtomicRMWInst::Or: return "or.b" + W;
  case llvm::AtomicRMWInst::Xor: return "xor.b" + W;
  case llvm::AtomicRMWInst::Max: return "max.s" + W;
  case llvm::AtomicRMWInst::Min: return "min.s" + W;
  case llvm::AtomicRMWInst::UMax: return "max.u" + W;
  case llvm::AtomicRMWInst::UMin: return "min.u" + W;
  default: return "";
  }
}

llvm::Error unsupported(const llvm::Instruction &I, const std::string &Why) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  I.print(OS);
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "an atomic with no system-scope form (" + Why + "):" + OS.str() +
                                     " in " + I.getFunction()->getName().str());
}

} // namespace

llvm::Error useSystemScopeAtomics(llvm::Module &M) {
  std::vector<llvm::Instruction *> Atomics;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB)
        if (llvm::isa<llvm::AtomicRMWInst, llvm::AtomicCmpXchgInst>(I))
          Atomics.push_back(&I);
  for (llvm::Instruction *I : Atomics) {
    auto *Rmw = llvm::dyn_cast<llvm::AtomicRMWInst>(I);
    auto *Cas = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(I);
    llvm::Value *Ptr = Rmw ? Rmw->getPointerOperand() : Cas->getPointerOperand();
    const unsigned Space = Ptr->getType()->getPointerAddressSpace();
    if (Space == SharedSpace)
      continue;
    if (Space != GenericSpace && Space != GlobalSpace)
      return unsupported(*I, "address space " + std::to_string(Space));
    llvm::Type *Ty = Rmw ? Rmw->getValOperand()->getType() : Cas->getNewValOperand()->getType();
    const unsigned Bits = Ty->isIntegerTy() ? Ty->getIntegerBitWidth() : 0;
    if (Bits != 32 && Bits != 64)
      return unsupported(*I, "not a 32- or 64-bit integer");
    const std::string Reg = Bits == 32 ? "r" : "l";
    const std::string At = std::string("atom.sys") + (Space == GlobalSpace ? ".global." : ".");
    llvm::IRBuilder<> B(I);
    if (Rmw) {
      std::string Op = ptxOperation(Rmw->getOperation(), Bits);
      if (Op.empty())
        return unsupported(*I, std::string("operation ") +
                                   llvm::AtomicRMWInst::getOperationName(Rmw->getOperation())
                                       .str());
      llvm::Value *Val = Rmw->getValOperand();
      if (Rmw->getOperation() == llvm::AtomicRMWInst::Sub)
        Val = B.CreateNeg(Val);
      auto *Fn = llvm::FunctionType::get(Ty, {Ptr->getType(), Ty}, false);
      auto *Asm = llvm::InlineAsm::get(Fn, At + Op + " $0, [$1], $2;",
                                       "=" + Reg + ",l," + Reg + ",~{memory}", true);
      llvm::Value *Old = B.CreateCall(Fn, Asm, {Ptr, Val});
      I->replaceAllUsesWith(Old);
    } else {
      auto *Fn = llvm::FunctionType::get(Ty, {Ptr->getType(), Ty, Ty}, false);
      auto *Asm = llvm::InlineAsm::get(Fn, At + "cas.b" + std::to_string(Bits) +
                                               " $0, [$1], $2, $3;",
                                       "=" + Reg + ",l," + Reg + "," + Reg + ",~{memory}", true);
      llvm::Value *Cmp = Cas->getCompareOperand();
      llvm::Value *Old = B.CreateCall(Fn, Asm, {Ptr, Cmp, Cas->getNewValOperand()});
      // cmpxchg's { old, success }: a strong compare-and-swap succeeded
      // exactly when it found the expected value.
      llvm::Value *Pair = B.CreateInsertValue(llvm::PoisonValue::get(Cas->getType()), Old, 0);
      Pair = B.CreateInsertValue(Pair, B.CreateICmpEQ(Old, Cmp), 1);
      I->replaceAllUsesWith(Pair);
    }
    I->eraseFromParent();
  }
  return llvm::Error::success();
}

} // namespace ebpfgpu::compiler

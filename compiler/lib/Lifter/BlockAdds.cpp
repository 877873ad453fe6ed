// SPDX-License-Identifier: Apache-2.0
//
// Which adds the GPU sums a block at a time (compiler/lib/Runtime/
// BlockAdds.inc), decided once every function of a program is lifted:
// the accesses the FunctionLifters recorded (ProgramLifter::observe,
// WarpAdds, PerCpuAccesses, PerCpuLookups) and the calls retargeted.

#include "LifterImpl.h"
#include "Provenance.h"

#include "ebpf-gpu/Platform/MapAbi.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace ebpfgpu::compiler::detail {

using llvm::Type;
using llvm::Value;

/// Notes in `Maps` the map whose values `Base` points into; `Any` when it
/// may point into any map (a pointer of unknown origin). Context, stack and
/// packet pointers point into none.
static void noteMapOf(const AbsValue &Base, std::set<size_t> &Maps, bool &Any) {
  switch (Base.K) {
  case AbsValue::MapValue:
  case AbsValue::MapElem:
    Maps.insert(Base.Index);
    break;
  case AbsValue::Ctx:
  case AbsValue::Stack:
  case AbsValue::StackAny:
  case AbsValue::Packet:
    break;
  default:
    Any = true;
    break;
  }
}

void ProgramLifter::observe(const AbsValue &Base) {
  noteMapOf(Base, ObservedMaps, ObservesAnyMap);
}

void ProgramLifter::writeThrough(const AbsValue &Base) {
  noteMapOf(Base, ValueWrittenMaps, WritesAnyValue);
}

bool ProgramLifter::perCpuArrayValue(const AbsValue &Base) const {
  return Opts.WarpAtomicAdds && Base.K == AbsValue::MapElem && Base.Index < Maps.size() &&
         Maps[Base.Index].Type == EBPFGPU_MAP_PERCPU_ARRAY;
}

bool ProgramLifter::marksValues(const AbsValue &Base) const {
  if (!Opts.TagMapValueLoads || Base.K != AbsValue::MapElem || Base.Index >= Maps.size())
    return false;
  uint32_t Type = Maps[Base.Index].Type;
  return ebpfgpu_map_is_hashed(Type) && !ebpfgpu_map_is_percpu(Type) &&
         !ebpfgpu_map_is_outer(Type);
}

llvm::Value *ProgramLifter::markValuePointer(llvm::IRBuilder<> &B, llvm::Value *Ptr,
                                             const AbsValue &Base) {
  llvm::PointerType *PtrTy = memPtrTy();
  llvm::GlobalVariable *Shape = mapShapeGlobal(Base.Index);
  llvm::FunctionCallee Fn = M->getOrInsertFunction(
      MapValueMarkFn,
      llvm::FunctionType::get(PtrTy, {PtrTy, Shape->getType(), B.getInt1Ty()}, false));
  auto *F = llvm::cast<llvm::Function>(Fn.getCallee());
  // No memory, returns, throws nothing; not speculatable: the pointer is
  // known not null only where the program accesses it.
  F->setDoesNotAccessMemory();
  F->setWillReturn();
  F->setDoesNotThrow();
  llvm::CallInst *C = B.CreateCall(Fn, {Ptr, Shape, B.getFalse()});
  C->addRetAttr(llvm::Attribute::NonNull);
  uint64_t Size = Maps[Base.Index].ValueSize;
  if (Base.Value >= 0 && uint64_t(Base.Value) < Size) {
    C->addRetAttr(llvm::Attribute::getWithDereferenceableBytes(Ctx, Size - uint64_t(Base.Value)));
    // Values start 8-byte aligned (FunctionLifter::accessAlign).
    uint64_t A = 8;
    while (uint64_t(Base.Value) % A)
      A /= 2;
    C->addRetAttr(llvm::Attribute::getWithAlignment(Ctx, llvm::Align(A)));
  }
  return C;
}

namespace {

/// A pointer as the lifter computes it (FunctionLifter::address): the
/// register's value, plus a constant offset.
std::pair<Value *, uint64_t> pointerKey(Value *P) {
  if (auto *Cast = llvm::dyn_cast<llvm::IntToPtrInst>(P))
    P = Cast->getOperand(0);
  if (auto *Add = llvm::dyn_cast<llvm::BinaryOperator>(P))
    if (Add->getOpcode() == llvm::Instruction::Add)
      if (auto *C = llvm::dyn_cast<llvm::ConstantInt>(Add->getOperand(1)))
        return {Add->getOperand(0), C->getZExtValue()};
  return {P, 0};
}

/// A read-add-write of one value, in SSA form: `S` stores the low bits of
/// `L + Addend` where `L` loaded them, through zero-extensions and
/// truncations each used once, and nothing between the two writes memory.
struct ReadAddWrite {
  llvm::LoadInst *L = nullptr;
  llvm::StoreInst *S = nullptr;
  Value *Addend = nullptr;
  std::vector<llvm::Instruction *> Chain; ///< from the store's value back to L's user
};

std::optional<ReadAddWrite> matchReadAddWrite(llvm::StoreInst *S) {
  ReadAddWrite M;
  M.S = S;
  Value *V = S->getValueOperand();
  llvm::BinaryOperator *Add = nullptr;
  for (;;) {
    auto *I = llvm::dyn_cast<llvm::Instruction>(V);
    if (!I || !I->hasOneUse() || I->getParent() != S->getParent())
      return std::nullopt;
    if (auto *L = llvm::dyn_cast<llvm::LoadInst>(I)) {
      if (!Add)
        return std::nullopt;
      M.L = L;
      break;
    }
    M.Chain.push_back(I);
    if (llvm::isa<llvm::ZExtInst>(I) || llvm::isa<llvm::TruncInst>(I)) {
      V = I->getOperand(0);
      continue;
    }
    auto *B = llvm::dyn_cast<llvm::BinaryOperator>(I);
    if (!B || B->getOpcode() != llvm::Instruction::Add || Add)
      return std::nullopt;
    Add = B;
    // The operand that leads back to a load (through casts) is the value.
    auto LeadsToLoad = [](Value *X) {
      while (llvm::isa<llvm::ZExtInst>(X) || llvm::isa<llvm::TruncInst>(X))
        X = llvm::cast<llvm::Instruction>(X)->getOperand(0);
      return llvm::isa<llvm::LoadInst>(X);
    };
    unsigned Op = LeadsToLoad(B->getOperand(0)) ? 0 : 1;
    V = B->getOperand(Op);
    M.Addend = B->getOperand(1 - Op);
  }
  if (M.L->isVolatile() || S->isVolatile() || M.L->getType() != S->getValueOperand()->getType() ||
      pointerKey(M.L->getPointerOperand()) != pointerKey(S->getPointerOperand()))
    return std::nullopt;
  // Nothing between them writes memory (or the add would not be exact).
  for (llvm::Instruction *I = M.L->getNextNode(); I != S; I = I->getNextNode())
    if (!I || I->mayWriteToMemory())
      return std::nullopt;
  return M;
}

} // namespace

// Per-CPU adds summed per block: where every plain load and store of a
// per-CPU array's values is one half of an add written back (`st->packets
// += 1; st->bytes += len`, the only use of the values a stats map has),
// the block's packets add to one slice, chosen from the block's index
// (ebpfgpu_array_block_lookup_elem), through block-combined adds, where
// each packet otherwise waited for its block's claim of a group of CPUs to
// reach its own slice (CpuGroups.inc; xdp_l4lb on the H100: 9.6% of the
// warp samples polled for it). The kernel could have run all of a block's
// packets on one CPU, and another block's on the same CPU after them: what
// a slice ends up holding is a schedule the kernel allows, and the sum over
// CPUs, what users read, is the same. The conditions are block-combined
// adds' (retargetBlockAdds: nothing else reads the values before the
// batch ends, no atomic with a result, no tail call) and no other use of
// the map: no update or delete, no helper given the map or a value.
std::set<size_t> ProgramLifter::retargetPerCpuAdds() {
  std::set<size_t> Maps;
  if (Orders || ObservesAnyMap || WritesUnknownMap || UsesTailCalls)
    return Maps;
  for (const PerCpuUse &U : PerCpuLookups)
    Maps.insert(U.Map);
  for (const PerCpuUse &U : PerCpuAccesses)
    Maps.insert(U.Map);
  for (size_t I : ObservedMaps)
    Maps.erase(I);
  for (size_t I : WrittenMaps)
    Maps.erase(I);
  if (Maps.empty())
    return Maps;
  // Registers in SSA form, so that each add's value flow is explicit (the
  // optimiser would do the same first).
  for (llvm::Function *F : LlvmFuncs) {
    if (!F)
      continue;
    std::vector<llvm::AllocaInst *> Slots;
    for (llvm::Instruction &I : F->getEntryBlock())
      if (auto *A = llvm::dyn_cast<llvm::AllocaInst>(&I); A && llvm::isAllocaPromotable(A))
        Slots.push_back(A);
    llvm::DominatorTree DT(*F);
    llvm::PromoteMemToReg(Slots, DT);
    // A register's value merged where it is dead (a join no later
    // instruction reads it from), or cast for a result nothing reads (the
    // lifter's `w1 = 0` truncates r1 first), is no use of the value. Loads
    // stay: the accesses recorded above point at them.
    for (bool Erased = true; Erased;) {
      Erased = false;
      for (llvm::BasicBlock &BB : *F)
        for (llvm::Instruction &I : llvm::make_early_inc_range(BB))
          if (!llvm::isa<llvm::LoadInst>(I) && llvm::isInstructionTriviallyDead(&I)) {
            I.eraseFromParent();
            Erased = true;
          }
    }
  }
  std::vector<ReadAddWrite> Matched;
  std::set<llvm::Instruction *> Covered;
  for (const PerCpuUse &U : PerCpuAccesses)
    if (auto *S = llvm::dyn_cast<llvm::StoreInst>(U.I); S && Maps.count(U.Map))
      if (std::optional<ReadAddWrite> M = matchReadAddWrite(S)) {
        Covered.insert(M->L);
        Covered.insert(M->S);
        Matched.push_back(std::move(*M));
      }
  for (const PerCpuUse &U : PerCpuAccesses)
    if (!Covered.count(U.I))
      Maps.erase(U.Map);
  auto *Generic = llvm::PointerType::get(Ctx, 0);
  for (ReadAddWrite &M : Matched) {
    auto It = std::find_if(PerCpuAccesses.begin(), PerCpuAccesses.end(),
                           [&](const PerCpuUse &U) { return U.I == M.S; });
    if (!Maps.count(It->Map))
      continue;
    llvm::IRBuilder<> B(M.S);
    Type *Ty = M.S->getValueOperand()->getType();
    const bool Wide = Ty->isIntegerTy(64);
    llvm::FunctionCallee F = this->M->getOrInsertFunction(
        Wide ? "ebpfgpu_block_add_u64" : "ebpfgpu_block_add_u32",
        llvm::FunctionType::get(Type::getVoidTy(Ctx), {Generic, Ty}, false));
    B.CreateCall(F, {B.CreatePointerBitCastOrAddrSpaceCast(M.S->getPointerOperand(), Generic),
                     B.CreateZExtOrTrunc(M.Addend, Ty)});
    M.S->eraseFromParent();
    for (llvm::Instruction *I : M.Chain)
      I->eraseFromParent();
    M.L->eraseFromParent();
  }
  for (const PerCpuUse &U : PerCpuLookups)
    if (Maps.count(U.Map)) {
      auto *Call = llvm::cast<llvm::CallInst>(U.I);
      Call->setCalledFunction(
          M->getOrInsertFunction("ebpfgpu_array_block_lookup_elem", Call->getFunctionType()));
    }
  return Maps;
}

// Block-combined adds (DeviceHelpers.c, BlockAdds.inc): a block sums its
// threads' adds to an address in shared memory and adds each sum to memory
// once, when its packets are done, where a warp-combined add goes to L2
// once a warp (xdp_rate_limit's two counters: 4M packets, 125,000 atomics
// on two addresses at one L2 slice). The adds then land later in the batch
// than the kernel's would, which no part of the program can tell when it
// never reads, writes or hands on the array's values otherwise (the
// counters are the host's to read, after the batch), never names the
// array to a helper but bpf_map_lookup_elem, and never orders itself
// against other threads (no atomic with a result, no compare-and-swap, no
// tail call to a program that might): a thread in the batch that could
// have seen the sum earlier would have to read it. Arrays only: a hash
// element's add could land after a delete unlinked it.
// Per-CPU arrays too, where retargetPerCpuAdds made the block's adds go to
// one slice (`PerCpuMaps`).
void ProgramLifter::retargetBlockAdds(const std::set<size_t> &PerCpuMaps) {
  if (Orders || ObservesAnyMap || WritesUnknownMap || UsesTailCalls)
    return;
  for (WarpAdd &A : WarpAdds) {
    const AbsValue &V = A.Base;
    if ((V.K != AbsValue::MapElem && V.K != AbsValue::MapValue) || V.Index >= Maps.size() ||
        (Maps[V.Index].Type != EBPFGPU_MAP_ARRAY && !PerCpuMaps.count(V.Index)) ||
        ObservedMaps.count(V.Index) || WrittenMaps.count(V.Index))
      continue;
    const bool Wide = A.Call->getArgOperand(1)->getType()->isIntegerTy(64);
    A.Call->setCalledFunction(M->getOrInsertFunction(
        Wide ? "ebpfgpu_block_add_u64" : "ebpfgpu_block_add_u32", A.Call->getFunctionType()));
  }
}

} // namespace ebpfgpu::compiler::detail

// SPDX-License-Identifier: Apache-2.0
//
// Programs that tail-call each other, compiled as one unit: each program is
// lifted on its own, the modules are linked (maps and global data are one
// set of globals, as one object's maps are shared in the kernel), and a
// dispatcher runs the entry program and then each tail-call target in turn.
// A successful bpf_tail_call records its target in the context and the
// calling program returns at once (Lifter.cpp); the dispatcher's loop is
// what makes the call a jump, with a fresh stack, on the host and the GPU.

#include "ebpf-gpu/Compiler/Lifter.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstddef>
#include <set>

namespace ebpfgpu::compiler {

namespace {

/// Instructions of a program set past which its programs are not inlined
/// into the dispatcher.
constexpr size_t MaxInlinedSetInsns = 8192;

llvm::Error makeError(const std::string &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// `ebpfgpu_dispatch(ctx, r1..r5)`: runs `Entries[First]`, then the program
/// a tail call named, until one returns without one.
llvm::Function *addDispatcher(llvm::Module &M, const std::vector<llvm::Function *> &Entries,
                              size_t First) {
  llvm::LLVMContext &C = M.getContext();
  auto *I32 = llvm::Type::getInt32Ty(C);
  auto *I64 = llvm::Type::getInt64Ty(C);
  llvm::FunctionType *FnTy = Entries[0]->getFunctionType();
  auto *D = llvm::Function::Create(FnTy, llvm::GlobalValue::ExternalLinkage, "ebpfgpu_dispatch", M);
  D->addFnAttr(llvm::Attribute::NoUnwind);
  auto *Entry = llvm::BasicBlock::Create(C, "entry", D);
  auto *Loop = llvm::BasicBlock::Create(C, "loop", D);
  auto *Next = llvm::BasicBlock::Create(C, "next", D);
  auto *Bad = llvm::BasicBlock::Create(C, "no_such_program", D);
  llvm::IRBuilder<> B(Entry);
  llvm::Value *Ctx = D->getArg(0);
  llvm::Value *Target =
      B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Ctx, offsetof(ebpfgpu_xdp_ctx, tail_target));
  B.CreateBr(Loop);

  B.SetInsertPoint(Loop);
  llvm::PHINode *Id = B.CreatePHI(I32, 2, "program");
  Id->addIncoming(B.getInt32(uint32_t(First)), Entry);
  llvm::SwitchInst *Switch = B.CreateSwitch(Id, Bad, unsigned(Entries.size()));
  B.SetInsertPoint(Next);
  llvm::PHINode *R0 = B.CreatePHI(I64, unsigned(Entries.size()), "r0");
  std::vector<llvm::Value *> Args;
  for (llvm::Argument &A : D->args())
    Args.push_back(&A);
  for (size_t K = 0; K < Entries.size(); ++K) {
    auto *Case = llvm::BasicBlock::Create(C, "run." + Entries[K]->getName(), D, Next);
    Switch->addCase(B.getInt32(uint32_t(K)), Case);
    llvm::IRBuilder<> CB(Case);
    R0->addIncoming(CB.CreateCall(Entries[K], Args), Case);
    CB.CreateBr(Next);
  }
  llvm::Value *T = B.CreateLoad(I32, Target);
  auto *Done = llvm::BasicBlock::Create(C, "done", D);
  auto *Again = llvm::BasicBlock::Create(C, "tail_call", D);
  B.CreateCondBr(B.CreateICmpEQ(T, B.getInt32(0)), Done, Again);
  B.SetInsertPoint(Again);
  B.CreateStore(B.getInt32(0), Target);
  Id->addIncoming(B.CreateSub(T, B.getInt32(1)), Again);
  B.CreateBr(Loop);
  B.SetInsertPoint(Done);
  B.CreateRet(R0);
  // Ids come from program arrays the loader fills from this set: never
  // out of range; XDP_ABORTED if one were.
  B.SetInsertPoint(Bad);
  B.CreateRet(B.getInt64(0));
  return D;
}

} // namespace

ProgramSet programSetFor(const object::ObjectSpec &Obj, const object::ProgramSpec &Entry) {
  ProgramSet Set;
  bool ProgArrays = std::any_of(Obj.Maps.begin(), Obj.Maps.end(), [](const object::MapSpec &M) {
    return M.Type == EBPFGPU_MAP_PROG_ARRAY;
  });
  if (!ProgArrays) {
    Set.Programs = {&Entry};
    return Set;
  }
  for (const object::ProgramSpec &P : Obj.Programs) {
    if (&P == &Entry)
      Set.Entry = Set.Programs.size();
    Set.Programs.push_back(&P);
  }
  return Set;
}

llvm::Expected<std::vector<std::array<uint32_t, 3>>>
ProgramSet::programSlots(const std::vector<object::MapSpec> &Maps) const {
  std::vector<std::array<uint32_t, 3>> Out;
  for (size_t I = 0; I < Maps.size(); ++I) {
    for (const auto &[Slot, Name] : Maps[I].InitialPrograms) {
      auto It = std::find_if(Programs.begin(), Programs.end(),
                             [&](const object::ProgramSpec *P) { return P->Name == Name; });
      if (It == Programs.end())
        return makeError("program array '" + Maps[I].Name + "' slot " + std::to_string(Slot) +
                         " holds '" + Name + "', which is not a program of the object");
      Out.push_back({uint32_t(I), Slot, uint32_t(It - Programs.begin()) + 1});
    }
  }
  return Out;
}

llvm::Expected<std::vector<InnerMapTable>> innerMapTables(const std::vector<object::MapSpec> &Maps,
                                                          const std::vector<MapBinding> &Bound) {
  std::vector<InnerMapTable> Out;
  for (const MapBinding &B : Bound) {
    const object::MapSpec &M = Maps[B.MapIndex];
    if (B.ObjectGlobal.empty() || M.Inner.empty())
      continue;
    InnerMapTable T;
    T.Outer = B.MapIndex;
    for (size_t I : object::innerMapCandidates(Maps, B.MapIndex))
      T.Names.push_back(Maps[I].Name);
    for (const auto &[Slot, Name] : M.InitialMaps) {
      auto It = std::find(T.Names.begin(), T.Names.end(), Name);
      if (It == T.Names.end())
        return makeError("map of maps '" + M.Name + "' slot " + std::to_string(Slot) +
                         " holds '" + Name + "', which does not fit its inner map definition");
      T.Slots.push_back({Slot, uint32_t(It - T.Names.begin()) + 1});
    }
    Out.push_back(std::move(T));
  }
  return Out;
}

llvm::Expected<LiftedProgram> liftProgramSet(const ProgramSet &Set,
                                             const std::vector<object::MapSpec> &Maps,
                                             const LiftOptions &Opts, llvm::LLVMContext &Ctx) {
  if (Set.Programs.size() == 1)
    return liftProgram(*Set.Programs[0], Maps, Opts, Ctx);
  if (!Opts.Platform->hasContext())
    return makeError("tail calls need a program context");
  LiftedProgram Out;
  std::vector<std::string> EntryNames;
  std::set<size_t> Bound;
  std::set<std::string> Helpers, RuntimeHelpers;
  for (const object::ProgramSpec *P : Set.Programs) {
    auto L = liftProgram(*P, Maps, Opts, Ctx);
    if (!L)
      return L.takeError();
    EntryNames.push_back(L->EntryName);
    for (const MapBinding &B : L->Maps) {
      if (Bound.insert(B.MapIndex).second) {
        Out.Maps.push_back(B);
        continue;
      }
      // A map the set shares: changed where any of its programs changes it.
      for (MapBinding &Have : Out.Maps)
        if (Have.MapIndex == B.MapIndex) {
          Have.ChangesKeys = Have.ChangesKeys || B.ChangesKeys;
          Have.WritesValues = Have.WritesValues || B.WritesValues;
        }
    }
    Helpers.insert(L->HelpersUsed.begin(), L->HelpersUsed.end());
    RuntimeHelpers.insert(L->RuntimeHelpers.begin(), L->RuntimeHelpers.end());
    Out.FrameBytes.insert(Out.FrameBytes.end(), L->FrameBytes.begin(), L->FrameBytes.end());
    if (!Out.Module) {
      Out.Module = std::move(L->Module);
      continue;
    }
    // One definition of each map and data global: the first program's.
    for (llvm::GlobalVariable &G : L->Module->globals())
      if (G.hasInitializer() && !G.hasLocalLinkage())
        if (llvm::GlobalVariable *Have = Out.Module->getGlobalVariable(G.getName());
            Have && Have->hasInitializer()) {
          G.setInitializer(nullptr);
          G.setLinkage(llvm::GlobalValue::ExternalLinkage);
        }
    if (llvm::Linker::linkModules(*Out.Module, std::move(L->Module)))
      return makeError("internal error: cannot link program " + P->Name + " into the set");
  }
  // Each program decided alone which adds to combine a block at a time;
  // another program of the set may read those values: warp by warp again.
  for (const char *Block : {"ebpfgpu_block_add_u64", "ebpfgpu_block_add_u32"})
    if (llvm::Function *F = Out.Module->getFunction(Block)) {
      llvm::FunctionCallee Warp = Out.Module->getOrInsertFunction(
          std::string(Block).replace(8, 5, "warp"), F->getFunctionType());
      F->replaceAllUsesWith(Warp.getCallee());
      F->eraseFromParent();
    }
  // And per-CPU adds to the slice of each thread's CPU (retargetPerCpuAdds).
  if (llvm::Function *F = Out.Module->getFunction("ebpfgpu_array_block_lookup_elem")) {
    llvm::FunctionCallee Own =
        Out.Module->getOrInsertFunction("ebpfgpu_array_lookup_elem", F->getFunctionType());
    F->replaceAllUsesWith(Own.getCallee());
    F->eraseFromParent();
  }
  // Each program decided alone whether its maps' values are written in
  // place; another program of the set may write them: all may be.
  for (llvm::Function &F : *Out.Module)
    for (llvm::Instruction &I : llvm::instructions(F))
      if (llvm::MDNode *Tag = I.getMetadata(StrongValueLoadTag))
        I.setMetadata(StrongValueLoadTag,
                      llvm::MDNode::get(Ctx, {Tag->getOperand(0),
                                              llvm::ConstantAsMetadata::get(
                                                  llvm::ConstantInt::getFalse(Ctx))}));
  if (llvm::Function *Mark = Out.Module->getFunction(MapValueMarkFn))
    for (llvm::User *U : Mark->users())
      llvm::cast<llvm::CallInst>(U)->setArgOperand(2, llvm::ConstantInt::getFalse(Ctx));
  // Each program decided its maps' stability alone; another program of
  // the set may change a map one of them only reads, so none is stable.
  for (llvm::GlobalVariable &G : Out.Module->globals())
    if (G.getName().starts_with("ebpfgpu_shape_")) {
      llvm::Constant *Init = G.getInitializer();
      auto *Ty = llvm::cast<llvm::ArrayType>(Init->getType());
      std::vector<llvm::Constant *> Fields; // ..., stable last
      for (unsigned I = 0; I < Ty->getNumElements(); ++I)
        Fields.push_back(Init->getAggregateElement(I));
      Fields.back() = llvm::ConstantInt::get(Fields.back()->getType(), 0);
      G.setInitializer(llvm::ConstantArray::get(Ty, Fields));
    }
  // Each program is called from one place, the dispatcher, and would be
  // inlined there: for a large set (Cilium's twelve programs, 38,000
  // instructions) one function so large that LLVM's GVN takes tens of
  // minutes on it. Past a size the programs stay functions of their own.
  size_t SetInsns = 0;
  for (const object::ProgramSpec *P : Set.Programs)
    SetInsns += P->Insns.size();
  std::vector<llvm::Function *> Entries;
  for (const std::string &Name : EntryNames) {
    Entries.push_back(Out.Module->getFunction(Name));
    if (SetInsns > MaxInlinedSetInsns)
      Entries.back()->addFnAttr(llvm::Attribute::NoInline);
  }
  Out.EntryName = addDispatcher(*Out.Module, Entries, Set.Entry)->getName().str();
  Out.HelpersUsed.assign(Helpers.begin(), Helpers.end());
  Out.RuntimeHelpers.assign(RuntimeHelpers.begin(), RuntimeHelpers.end());
  std::string Msg;
  llvm::raw_string_ostream OS(Msg);
  if (llvm::verifyModule(*Out.Module, &OS))
    return makeError("internal error: program set IR is invalid: " + OS.str());
  return Out;
}

} // namespace ebpfgpu::compiler

// SPDX-License-Identifier: Apache-2.0
//
// NVPTX code generation: link the device helpers, generate the batch
// kernel, internalise, optimise for the target and print PTX.

#include "ebpf-gpu/Compiler/GpuBackend.h"

#include "ebpf-gpu/Platform/GpuAbi.h"
#include "ebpf-gpu/Platform/Platform.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include "../Lifter/PointerFold.h"
#include "SystemScope.h"
#include "ebpf-gpu/Compiler/WarpUniform.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <cstddef>
#include <mutex>

extern const unsigned char ebpfgpu_device_helpers[];
extern const unsigned long ebpfgpu_device_helpers_size;
extern const unsigned char ebpfgpu_device_helpers_sys[];
extern const unsigned long ebpfgpu_device_helpers_sys_size;

namespace ebpfgpu::compiler {

namespace {

constexpr const char *Triple = "nvptx64-nvidia-cuda";

llvm::Error makeError(const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), Msg);
}

/// Map headers in constant memory (LiftOptions::MapHeaderAddrSpace) are
/// read where the program uses them. Left to LLVM, a header's address is a
/// constant and its fields are loads no store can change, so they are
/// hoisted out of the batch kernel's packet loop and held in registers for
/// the whole program (xdp_tcp_mss: 70 registers became 84, and a third
/// fewer threads ran at once). Each use of a header's address instead takes
/// it from an instruction the optimiser neither hoists nor merges (a PTX
/// `mov` of the symbol): the field loads stay next to their uses, as
/// constant-cache loads with no load of a pointer before them.
void pinMapHeaders(llvm::Module &M, unsigned AddrSpace) {
  std::vector<llvm::Constant *> Headers;
  for (llvm::GlobalVariable &G : M.globals())
    if (G.getAddressSpace() == AddrSpace && G.getName().starts_with("ebpfgpu_map_"))
      Headers.push_back(&G);
  if (Headers.empty())
    return;
  llvm::convertUsersOfConstantsToInstructions(Headers);
  auto *Ty = llvm::PointerType::get(M.getContext(), AddrSpace);
  auto *Mov = llvm::InlineAsm::get(llvm::FunctionType::get(Ty, {Ty}, false), "mov.u64 $0, $1;",
                                   "=l,l", /*hasSideEffects=*/true);
  for (llvm::Constant *G : Headers)
    for (llvm::Use &U : llvm::make_early_inc_range(G->uses())) {
      auto *I = llvm::dyn_cast<llvm::Instruction>(U.getUser());
      if (!I)
        continue;
      llvm::Instruction *At = I;
      if (auto *Phi = llvm::dyn_cast<llvm::PHINode>(I))
        At = Phi->getIncomingBlock(U)->getTerminator();
      auto *C = llvm::CallInst::Create(Mov, {G}, "", At);
      C->setDoesNotAccessMemory();
      C->setDoesNotThrow();
      U.set(C);
    }
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> makeTargetMachine(const GpuOptions &O) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string Err;
  const llvm::Target *T = llvm::TargetRegistry::lookupTarget(Triple, Err);
  if (!T)
    return makeError("NVPTX target unavailable: " + Err);
  // Asked of a generic subtarget: one made for an unknown name would warn
  // on stderr before the error below.
  std::unique_ptr<llvm::MCSubtargetInfo> STI(T->createMCSubtargetInfo(Triple, "", ""));
  if (!STI || !STI->isCPUStringValid(O.Arch))
    return makeError("unknown GPU target '" + O.Arch + "' (e.g. sm_70, sm_80, sm_90)");
  auto Level = O.OptLevel == 0 ? llvm::CodeGenOptLevel::None : llvm::CodeGenOptLevel::Aggressive;
  // PTX 6.3 at least: the device library's warp-aggregated atomics use
  // activemask (PTX 6.2); sm_70/sm_72 would otherwise get PTX 6.0.
  const char *Features = O.Arch == "sm_70" || O.Arch == "sm_72" ? "+ptx63" : "";
  return std::unique_ptr<llvm::TargetMachine>(T->createTargetMachine(
      Triple, O.Arch, Features, llvm::TargetOptions(), std::nullopt, std::nullopt, Level));
}

/// eBPF instructions of a program set past which the device helpers are
/// not forced inline: Cilium's sets (38,000 instructions, hundreds of map
/// operations, each a hash probe or LRU loop once inlined) made LLVM's loop
/// analyses take tens of minutes. Calls cost some registers spilled around
/// them; the inliner still inlines the small helpers.
constexpr size_t MaxInlinedHelpersInsns = 8192;

/// Links the helpers the module declares from the device library (its
/// system-scope build with `SystemScope`); with `ForceInline`, every one is
/// inlined into the program.
llvm::Error linkDeviceHelpers(llvm::Module &M, bool ForceInline, bool SystemScope) {
  llvm::StringRef Bytes =
      SystemScope ? llvm::StringRef(reinterpret_cast<const char *>(ebpfgpu_device_helpers_sys),
                                    ebpfgpu_device_helpers_sys_size)
                  : llvm::StringRef(reinterpret_cast<const char *>(ebpfgpu_device_helpers),
                                    ebpfgpu_device_helpers_size);
  auto Lib = llvm::parseBitcodeFile(llvm::MemoryBufferRef(Bytes, "device-helpers"),
                                    M.getContext());
  if (!Lib)
    return Lib.takeError();
  (*Lib)->setTargetTriple(M.getTargetTriple());
  (*Lib)->setDataLayout(M.getDataLayout());
  if (llvm::Linker::linkModules(M, std::move(*Lib), llvm::Linker::LinkOnlyNeeded))
    return makeError("internal error: cannot link the device helper library");
  for (llvm::Function &F : M) {
    // The library was built for the oldest target; the module's target rules.
    F.removeFnAttr("target-cpu");
    F.removeFnAttr("target-features");
    // Inlined into the program: a call keeps the context (and every
    // pointer argument) in local memory; inlined, it lives in registers.
    if (ForceInline && !F.isDeclaration() && F.getName().starts_with("ebpfgpu_")) {
      F.removeFnAttr(llvm::Attribute::NoInline);
      F.addFnAttr(llvm::Attribute::AlwaysInline);
    }
    if (F.isDeclaration() && !F.isIntrinsic() && F.getName().starts_with("ebpfgpu_"))
      return makeError("helper bpf_" + F.getName().drop_front(8) +
                       " is not available on the GPU back end yet");
  }
  return llvm::Error::success();
}

llvm::Value *threadIndex(llvm::IRBuilder<> &B) {
  llvm::Module *M = B.GetInsertBlock()->getModule();
  auto Read = [&](llvm::Intrinsic::ID Id) {
    return B.CreateCall(llvm::Intrinsic::getDeclaration(M, Id));
  };
  return B.CreateAdd(B.CreateMul(Read(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x),
                                 Read(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x)),
                     Read(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x));
}

/// The number of threads in the grid.
llvm::Value *gridThreads(llvm::IRBuilder<> &B) {
  llvm::Module *M = B.GetInsertBlock()->getModule();
  auto Read = [&](llvm::Intrinsic::ID Id) {
    return B.CreateCall(llvm::Intrinsic::getDeclaration(M, Id));
  };
  return B.CreateMul(Read(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x),
                     Read(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x));
}

/// The per-packet entry both XDP kernels share, defined here for the device
/// library's declaration: builds the context from the descriptor, runs the
/// program, writes the verdict. Inlined into each kernel.
constexpr const char *PacketFnName = "__ebpfgpu_xdp_packet";
/// The persistent kernel's loop, in the device library (PersistentLoop.inc).
constexpr const char *PersistentLoopName = "ebpfgpu_persistent_loop";

/// Staging (GpuAbi.h: EBPFGPU_STAGE_SLOT), in the device library.
constexpr const char *StageInName = "ebpfgpu_stage_in";
constexpr const char *StageOutName = "ebpfgpu_stage_out";

/// With `Stage`, a packet the device library can stage runs on its copy in
/// device memory (ebpfgpu_stage_in) and what it changed goes back
/// (ebpfgpu_stage_out); only for programs that keep packet bounds. With
/// `RxMeta` (a program that calls the XDP RX metadata kfuncs), a packet
/// whose descriptor says EBPFGPU_DESC_RX_META has its metadata at the start
/// of its buffer (staged or not: the descriptor's buffer).
llvm::Function *addXdpPacketFn(llvm::Module &M, llvm::Function *Prog,
                               llvm::GlobalVariable *TraceLog, llvm::GlobalVariable *Fib,
                               bool Stage, bool ReadOnly, bool RxMeta) {
  llvm::LLVMContext &C = M.getContext();
  auto *I8 = llvm::Type::getInt8Ty(C);
  auto *I32 = llvm::Type::getInt32Ty(C);
  auto *I64 = llvm::Type::getInt64Ty(C);
  auto *Ptr = llvm::PointerType::get(C, 0);
  auto *FnTy =
      llvm::FunctionType::get(llvm::Type::getVoidTy(C), {Ptr, Ptr, I32, I32, I64, Ptr}, false);
  llvm::Function *F = M.getFunction(PacketFnName);
  if (!F)
    F = llvm::Function::Create(FnTy, llvm::GlobalValue::InternalLinkage, PacketFnName, M);
  assert(F->getFunctionType() == FnTy && F->isDeclaration());
  F->setLinkage(llvm::GlobalValue::InternalLinkage);
  F->addFnAttr(llvm::Attribute::AlwaysInline);
  llvm::Value *Desc = F->getArg(0), *Out = F->getArg(1), *Cpu = F->getArg(2);
  llvm::Value *Index = F->getArg(3), *Random = F->getArg(4), *Slot = F->getArg(5);
  llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", F));
  auto *Ctx = B.CreateAlloca(llvm::ArrayType::get(I8, sizeof(ebpfgpu_xdp_ctx)), nullptr, "ctx");
  Ctx->setAlignment(llvm::Align(8));
  // Every field starts defined (tail_target and tail_calls among them: a
  // packet starts with no tail call made); the stores below set the rest.
  // Zeroed a word at a time, not by a memset: where the context is not
  // promoted to registers (a program that lets its address escape), NVPTX
  // expands a memset into a loop of byte stores, run for every packet (80
  // iterations in xdp_l4lb's kernels at 8861d41; bench/NOTES.md round 10).
  static_assert(sizeof(ebpfgpu_xdp_ctx) % 8 == 0, "the context is zeroed in 8-byte words");
  for (size_t Off = 0; Off < sizeof(ebpfgpu_xdp_ctx); Off += 8)
    B.CreateAlignedStore(B.getInt64(0), B.CreateConstInBoundsGEP1_64(I8, Ctx, Off), llvm::Align(8));
  auto Field = [&](llvm::Value *Base, size_t Off, llvm::Type *Ty) {
    return B.CreateAlignedLoad(Ty, B.CreateConstInBoundsGEP1_64(I8, Base, Off),
                               llvm::Align(Ty->getPrimitiveSizeInBits() / 8));
  };
  auto Set = [&](size_t Off, llvm::Value *V) {
    B.CreateAlignedStore(V, B.CreateConstInBoundsGEP1_64(I8, Ctx, Off),
                         llvm::Align(V->getType()->getPrimitiveSizeInBits() / 8));
  };
  llvm::Value *Buffer = Field(Desc, offsetof(ebpfgpu_packet_desc, buffer), I64);
  llvm::Value *DataOff = B.CreateZExt(Field(Desc, offsetof(ebpfgpu_packet_desc, data_offset), I32), I64);
  llvm::Value *Len = B.CreateZExt(Field(Desc, offsetof(ebpfgpu_packet_desc, length), I32), I64);
  llvm::Value *Size = B.CreateZExt(Field(Desc, offsetof(ebpfgpu_packet_desc, buffer_size), I32), I64);
  llvm::Value *Data = B.CreateAdd(Buffer, DataOff);
  // Where the program sees its buffer: the descriptor's, or, staged, one
  // placed so that the copy's data lies at the same offset in it (no
  // room around it: staged programs never move their bounds).
  llvm::Value *Base = Buffer, *Staged = nullptr, *HostData = Data;
  if (Stage) {
    llvm::Value *Copy =
        B.CreateCall(M.getFunction(StageInName), {Desc, Slot, B.getInt32(ReadOnly ? 0 : 1)});
    Staged = B.CreateICmpNE(Copy, B.getInt64(0));
    Data = B.CreateSelect(Staged, Copy, Data);
    Base = B.CreateSelect(Staged, B.CreateSub(Copy, DataOff), Buffer);
    Size = B.CreateSelect(Staged, B.CreateAdd(DataOff, Len), Size);
  }
  Set(offsetof(ebpfgpu_xdp_ctx, data), Data);
  Set(offsetof(ebpfgpu_xdp_ctx, data_end), B.CreateAdd(Data, Len));
  Set(offsetof(ebpfgpu_xdp_ctx, data_meta), Data);
  Set(offsetof(ebpfgpu_xdp_ctx, ingress_ifindex),
      Field(Desc, offsetof(ebpfgpu_packet_desc, ingress_ifindex), I32));
  Set(offsetof(ebpfgpu_xdp_ctx, rx_queue_index),
      Field(Desc, offsetof(ebpfgpu_packet_desc, rx_queue_index), I32));
  Set(offsetof(ebpfgpu_xdp_ctx, egress_ifindex), B.getInt32(0));
  Set(offsetof(ebpfgpu_xdp_ctx, buffer_start), Stage ? B.CreateSelect(Staged, Data, Base) : Base);
  Set(offsetof(ebpfgpu_xdp_ctx, buffer_end), B.CreateAdd(Base, Size));
  Set(offsetof(ebpfgpu_xdp_ctx, redirect_target), B.getInt64(0));
  Set(offsetof(ebpfgpu_xdp_ctx, random_state), Random);
  Set(offsetof(ebpfgpu_xdp_ctx, cpu_id), Cpu);
  Set(offsetof(ebpfgpu_xdp_ctx, packet_index), Index);
  Set(offsetof(ebpfgpu_xdp_ctx, trace_log),
      TraceLog ? static_cast<llvm::Value *>(B.CreateLoad(I64, TraceLog)) : B.getInt64(0));
  Set(offsetof(ebpfgpu_xdp_ctx, fib),
      Fib ? static_cast<llvm::Value *>(B.CreateLoad(I64, Fib)) : B.getInt64(0));
  if (RxMeta) {
    llvm::Value *Flags = Field(Desc, offsetof(ebpfgpu_packet_desc, flags), I32);
    llvm::Value *Has = B.CreateICmpNE(B.CreateAnd(Flags, B.getInt32(EBPFGPU_DESC_RX_META)),
                                      B.getInt32(0));
    Set(offsetof(ebpfgpu_xdp_ctx, rx_meta), B.CreateSelect(Has, Buffer, B.getInt64(0)));
  }
  llvm::Value *R0 = B.CreateCall(Prog, {Ctx, B.CreatePtrToInt(Ctx, I64), B.getInt64(0),
                                        B.getInt64(0), B.getInt64(0), B.getInt64(0)});
  auto Put = [&](size_t Off, llvm::Value *V) {
    B.CreateAlignedStore(B.CreateTrunc(V, I32), B.CreateConstInBoundsGEP1_64(I8, Out, Off),
                         llvm::Align(4));
  };
  llvm::Value *NewData = Field(Ctx, offsetof(ebpfgpu_xdp_ctx, data), I64);
  llvm::Value *NewEnd = Field(Ctx, offsetof(ebpfgpu_xdp_ctx, data_end), I64);
  Put(offsetof(ebpfgpu_verdict, action), R0);
  Put(offsetof(ebpfgpu_verdict, data_offset), B.CreateSub(NewData, Base));
  Put(offsetof(ebpfgpu_verdict, length), B.CreateSub(NewEnd, NewData));
  Put(offsetof(ebpfgpu_verdict, redirect_target),
      Field(Ctx, offsetof(ebpfgpu_xdp_ctx, redirect_target), I64));
  if (Stage && !ReadOnly) {
    auto *Out = llvm::BasicBlock::Create(C, "stage_out", F);
    auto *Done = llvm::BasicBlock::Create(C, "done", F);
    B.CreateCondBr(Staged, Out, Done);
    B.SetInsertPoint(Out);
    B.CreateCall(M.getFunction(StageOutName), {Slot, HostData, B.CreateTrunc(Len, I32)});
    B.CreateBr(Done);
    B.SetInsertPoint(Done);
  }
  B.CreateRetVoid();
  return F;
}

/// The batch loop of programs with per-CPU maps, in the device library
/// (CpuGroups.inc).
constexpr const char *GroupsLoopName = "ebpfgpu_batch_in_groups";
/// The batch kernel's end: the last block publishes the batch
/// (PersistentLoop.inc).
constexpr const char *BatchDoneName = "ebpfgpu_batch_done";

/// ebpfgpu_xdp_batch: thread t runs the program on packets t, t + T, ...
/// (T threads in the grid). Without `Groups`, thread t is CPU t for
/// get_smp_processor_id; with it (programs with per-CPU maps), each block
/// runs as the group of CPUs it claims from the loader's table
/// (CpuGroups.inc), so no two packets on one CPU ever run at once.
void addXdpBatchKernel(llvm::Module &M, llvm::Function *Packet, llvm::GlobalVariable *Groups) {
  llvm::LLVMContext &C = M.getContext();
  auto *I8 = llvm::Type::getInt8Ty(C);
  auto *I32 = llvm::Type::getInt32Ty(C);
  auto *I64 = llvm::Type::getInt64Ty(C);
  auto *Global = llvm::PointerType::get(C, 1);
  auto *Generic = llvm::PointerType::get(C, 0);
  auto *FnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(C),
                                       {Global, Global, I32, I64, Global, Global, Global, I32},
                                       false);
  auto *K = llvm::Function::Create(FnTy, llvm::GlobalValue::ExternalLinkage, EBPFGPU_XDP_KERNEL, M);
  K->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::Value *Descs = K->getArg(0), *Verdicts = K->getArg(1);
  auto *Entry = llvm::BasicBlock::Create(C, "entry", K);
  // Every thread, its packets run: the last block publishes the batch.
  auto Finish = [&](llvm::IRBuilder<> &B) {
    llvm::Function *Done = M.getFunction(BatchDoneName);
    assert(Done && !Done->isDeclaration() && "device library without the batch's end");
    B.CreateCall(Done, {B.CreateAddrSpaceCast(K->getArg(5), Generic),
                        B.CreateAddrSpaceCast(K->getArg(6), Generic), K->getArg(7)});
    B.CreateRetVoid();
  };
  // Block-combined adds (BlockAdds.inc) around the block's packets: every
  // thread of the block takes part in both (a barrier each; none at all
  // where the program has no such adds).
  auto BlockAdds = [&](llvm::IRBuilder<> &B, const char *Name) {
    llvm::Function *F = M.getFunction(Name);
    assert(F && !F->isDeclaration() && "device library without block-combined adds");
    B.CreateCall(F, {});
  };
  if (Groups) {
    llvm::IRBuilder<> B(Entry);
    llvm::Function *Loop = M.getFunction(GroupsLoopName);
    assert(Loop && !Loop->isDeclaration() && "device library without the per-CPU group loop");
    BlockAdds(B, "ebpfgpu_block_adds_begin");
    B.CreateCall(Loop, {B.CreateAddrSpaceCast(Descs, Generic),
                        B.CreateAddrSpaceCast(Verdicts, Generic), K->getArg(2), K->getArg(3),
                        B.CreateAddrSpaceCast(Groups, Generic),
                        B.CreateAddrSpaceCast(K->getArg(4), Generic)});
    BlockAdds(B, "ebpfgpu_block_adds_end");
    Finish(B);
    return;
  }
  auto *Run = llvm::BasicBlock::Create(C, "run", K);
  auto *Done = llvm::BasicBlock::Create(C, "done", K);
  llvm::IRBuilder<> B(Entry);
  BlockAdds(B, "ebpfgpu_block_adds_begin");
  llvm::Value *Cpu = threadIndex(B);
  llvm::Value *Stride = gridThreads(B);
  B.CreateCondBr(B.CreateICmpULT(Cpu, K->getArg(2)), Run, Done);

  B.SetInsertPoint(Run);
  llvm::PHINode *Tid = B.CreatePHI(I32, 2, "packet");
  Tid->addIncoming(Cpu, Entry);
  llvm::Value *Index = B.CreateZExt(Tid, I64);
  llvm::Value *Desc = B.CreateGEP(I8, Descs, B.CreateMul(Index, B.getInt64(sizeof(ebpfgpu_packet_desc))));
  llvm::Value *Out = B.CreateGEP(I8, Verdicts, B.CreateMul(Index, B.getInt64(sizeof(ebpfgpu_verdict))));
  llvm::Value *Random = B.CreateXor(K->getArg(3), B.CreateMul(Index, B.getInt64(0x9e3779b97f4a7c15ull)));
  // Packet i's staging slot, or null without a staging area.
  llvm::Value *Stage = K->getArg(4);
  llvm::Value *SlotAt = B.CreateGEP(I8, Stage, B.CreateMul(Index, B.getInt64(EBPFGPU_STAGE_SLOT)));
  llvm::Value *Slot = B.CreateSelect(
      B.CreateICmpEQ(Stage, llvm::ConstantPointerNull::get(Global)),
      llvm::ConstantPointerNull::get(Generic), B.CreateAddrSpaceCast(SlotAt, Generic));
  B.CreateCall(Packet, {B.CreateAddrSpaceCast(Desc, Generic), B.CreateAddrSpaceCast(Out, Generic),
                        Cpu, Tid, Random, Slot});
  llvm::Value *Next = B.CreateAdd(Tid, Stride);
  Tid->addIncoming(Next, B.GetInsertBlock());
  B.CreateCondBr(B.CreateICmpULT(Next, K->getArg(2)), Run, Done);
  B.SetInsertPoint(Done);
  BlockAdds(B, "ebpfgpu_block_adds_end");
  Finish(B);
}

/// ebpfgpu_xdp_persistent: the device library's loop over the ring.
void addXdpPersistentKernel(llvm::Module &M) {
  llvm::LLVMContext &C = M.getContext();
  auto *I64 = llvm::Type::getInt64Ty(C);
  auto *Generic = llvm::PointerType::get(C, 0);
  auto *FnTy =
      llvm::FunctionType::get(llvm::Type::getVoidTy(C), {Generic, Generic, I64, Generic}, false);
  auto *K = llvm::Function::Create(FnTy, llvm::GlobalValue::ExternalLinkage,
                                   EBPFGPU_XDP_PERSISTENT_KERNEL, M);
  K->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", K));
  llvm::Function *Loop = M.getFunction(PersistentLoopName);
  assert(Loop && !Loop->isDeclaration() && "device library without the persistent loop");
  B.CreateCall(Loop, {K->getArg(0), K->getArg(1), K->getArg(2), K->getArg(3)});
  B.CreateRetVoid();
}

/// ebpfgpu_reclaim: the device library's reclaim of hashed maps.
constexpr const char *ReclaimName = "ebpfgpu_reclaim_maps";
void addReclaimKernel(llvm::Module &M) {
  llvm::LLVMContext &C = M.getContext();
  auto *Generic = llvm::PointerType::get(C, 0);
  auto *FnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(C),
                                       {Generic, llvm::Type::getInt32Ty(C)}, false);
  auto *K = llvm::Function::Create(FnTy, llvm::GlobalValue::ExternalLinkage,
                                   EBPFGPU_RECLAIM_KERNEL, M);
  K->setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::IRBuilder<> B(llvm::BasicBlock::Create(C, "entry", K));
  llvm::Function *Body = M.getFunction(ReclaimName);
  assert(Body && !Body->isDeclaration() && "device library without the reclaim");
  B.CreateCall(Body, {K->getArg(0), K->getArg(1)});
  B.CreateRetVoid();
}

/// ebpfgpu_raw_run: thread 0 runs the program with r1 = mem, r2 = len.
void addRawKernel(llvm::Module &M, llvm::Function *Prog) {
  llvm::LLVMContext &C = M.getContext();
  auto *I64 = llvm::Type::getInt64Ty(C);
  auto *Global = llvm::PointerType::get(C, 1);
  auto *FnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(C), {Global, I64, Global}, false);
  auto *K = llvm::Function::Create(FnTy, llvm::GlobalValue::ExternalLinkage, EBPFGPU_RAW_KERNEL, M);
  K->setCallingConv(llvm::CallingConv::PTX_Kernel);
  auto *Entry = llvm::BasicBlock::Create(C, "entry", K);
  auto *Run = llvm::BasicBlock::Create(C, "run", K);
  auto *Done = llvm::BasicBlock::Create(C, "done", K);
  llvm::IRBuilder<> B(Entry);
  B.CreateCondBr(B.CreateICmpEQ(threadIndex(B), B.getInt32(0)), Run, Done);
  B.SetInsertPoint(Run);
  llvm::Value *Mem = B.CreatePtrToInt(
      B.CreateAddrSpaceCast(K->getArg(0), llvm::PointerType::get(C, 0)), I64);
  llvm::Value *R0 = B.CreateCall(
      Prog, {llvm::ConstantPointerNull::get(llvm::PointerType::get(C, 0)), Mem, K->getArg(1),
             B.getInt64(0), B.getInt64(0), B.getInt64(0)});
  B.CreateAlignedStore(R0, K->getArg(2), llvm::Align(8));
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  B.CreateRetVoid();
}

/// Declares the device library's functions the XDP kernels call (its
/// persistent loop too), the staging ones where packets are staged (`Stage`) and
/// the CPU groups' loop for `PerCpu` maps, before the library is linked.
void declareXdpDeviceFunctions(llvm::Module &M, bool Stage, bool PerCpu) {
  llvm::LLVMContext &Ctx = M.getContext();
  auto *GenericTy = llvm::PointerType::get(Ctx, 0);
  M.getOrInsertFunction(PersistentLoopName,
                        llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx),
                                                {GenericTy, GenericTy,
                                                 llvm::Type::getInt64Ty(Ctx), GenericTy},
                                                false));
  if (Stage) {
    M.getOrInsertFunction(StageInName,
                          llvm::FunctionType::get(llvm::Type::getInt64Ty(Ctx),
                                                  {GenericTy, GenericTy,
                                                   llvm::Type::getInt32Ty(Ctx)},
                                                  false));
    M.getOrInsertFunction(StageOutName,
                          llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx),
                                                  {GenericTy, llvm::Type::getInt64Ty(Ctx),
                                                   llvm::Type::getInt32Ty(Ctx)},
                                                  false));
  }
  for (const char *Name : {"ebpfgpu_block_adds_begin", "ebpfgpu_block_adds_end"})
    M.getOrInsertFunction(Name, llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx), false));
  M.getOrInsertFunction(BatchDoneName,
                        llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx),
                                                {GenericTy, GenericTy, llvm::Type::getInt32Ty(Ctx)},
                                                false));
  M.getOrInsertFunction(ReclaimName,
                        llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx),
                                                {GenericTy, llvm::Type::getInt32Ty(Ctx)}, false));
  if (PerCpu)
    M.getOrInsertFunction(GroupsLoopName,
                          llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx),
                                                  {GenericTy, GenericTy, llvm::Type::getInt32Ty(Ctx),
                                                   llvm::Type::getInt64Ty(Ctx), GenericTy,
                                                   GenericTy},
                                                  false));
}

/// The device library's flag for block-combined adds (BlockAdds.inc): a
/// constant, so that kernels without them fold its barriers away.
void fixBlockAddsFlag(llvm::Module &M) {
  llvm::GlobalVariable *G = M.getGlobalVariable("ebpfgpu_block_adds_used");
  if (!G)
    return;
  bool Used = false;
  for (const char *Name : {"ebpfgpu_block_add_u64", "ebpfgpu_block_add_u32"})
    if (llvm::Function *F = M.getFunction(Name))
      Used = Used || !F->use_empty();
  G->setInitializer(llvm::ConstantInt::get(llvm::Type::getInt32Ty(M.getContext()), Used));
  G->setConstant(true);
  G->setLinkage(llvm::GlobalValue::InternalLinkage);
}

/// The XDP kernels' register budgets (PTX .maxnreg): `--max-registers` on
/// the batch and persistent kernels, or else a second batch kernel under
/// EBPFGPU_XDP_BUDGET_REGISTERS (GpuAbi.h) for the loader to time against
/// the default build and keep the faster.
void addRegisterBudgets(llvm::Module &M, const GpuOptions &Gpu) {
  llvm::LLVMContext &Ctx = M.getContext();
  auto Budget = [&](const char *Name, unsigned Registers) {
    M.getOrInsertNamedMetadata("nvvm.annotations")
        ->addOperand(llvm::MDNode::get(
            Ctx, {llvm::ValueAsMetadata::get(M.getFunction(Name)),
                  llvm::MDString::get(Ctx, "maxnreg"),
                  llvm::ConstantAsMetadata::get(
                      llvm::ConstantInt::get(llvm::Type::getInt32Ty(Ctx), Registers))}));
  };
  if (Gpu.MaxRegisters) {
    for (const char *Name : {EBPFGPU_XDP_KERNEL, EBPFGPU_XDP_PERSISTENT_KERNEL})
      Budget(Name, Gpu.MaxRegisters);
  } else if (Gpu.BudgetVariant) {
    llvm::ValueToValueMapTy Map;
    llvm::Function *Copy = llvm::CloneFunction(M.getFunction(EBPFGPU_XDP_KERNEL), Map);
    Copy->setName(EBPFGPU_XDP_BUDGET_KERNEL);
    Budget(EBPFGPU_XDP_BUDGET_KERNEL, EBPFGPU_XDP_BUDGET_REGISTERS);
  }
}

} // namespace

llvm::Expected<GpuProgram> compileForGpu(const object::ProgramSpec &Prog,
                                         const std::vector<object::MapSpec> &Maps,
                                         const LiftOptions &Lift, const GpuOptions &Gpu) {
  ProgramSet Set;
  Set.Programs = {&Prog};
  return compileForGpu(Set, Maps, Lift, Gpu);
}

llvm::Expected<GpuProgram> compileForGpu(const ProgramSet &Set,
                                         const std::vector<object::MapSpec> &Maps,
                                         const LiftOptions &Lift, const GpuOptions &Gpu) {
  auto TM = makeTargetMachine(Gpu);
  if (!TM)
    return TM.takeError();
  llvm::LLVMContext Ctx;
  LiftOptions GpuLift = Lift;
  GpuLift.PacketAddrSpace = 1; // packets live in device or mapped host memory: global
  GpuLift.LoopGuard = true;
  GpuLift.TagMapValueLoads = true;
  GpuLift.WarpAtomicAdds = true;
  // Map headers in constant memory (LiftOptions::MapHeaderAddrSpace): the
  // constant bank a module's own variables take holds 64 KiB; an object
  // with more maps than a quarter of it fits keeps the pointers.
  if (Maps.size() * sizeof(ebpfgpu_map) <= 16 * 1024)
    GpuLift.MapHeaderAddrSpace = 4; // NVPTX's constant address space
  auto Lifted = liftProgramSet(Set, Maps, GpuLift, Ctx);
  if (!Lifted)
    return Lifted.takeError();
  llvm::Module &M = *Lifted->Module;
  // Values of hashed maps that programs change are read past the L1 cache,
  // as the map helpers read those maps' elements (MapHelpers.inc): per-CPU
  // ones now, shared ones after the optimiser (hoistAndStrengthenValueLoads).
  strengthenMapValueLoads(M);
  M.setTargetTriple(Triple);
  M.setDataLayout((*TM)->createDataLayout());
  // Per-CPU maps the loader binds: the batch kernel claims groups of CPUs,
  // unless a block's adds pick their slice themselves (BlockSliceMaps): the
  // loader then caps the grid at the CPUs, thread t being CPU t.
  bool PerCpu = false;
  for (const MapBinding &B : Lifted->Maps)
    PerCpu |= !B.ObjectGlobal.empty() && ebpfgpu_map_is_percpu(Maps[B.MapIndex].Type) &&
              !Lifted->BlockSliceMaps.count(B.MapIndex);
  // Packets are staged in device memory unless a program may move their
  // bounds (its room is the real buffer's).
  bool Stage = true;
  for (const char *H : {"xdp_adjust_head", "xdp_adjust_tail", "xdp_adjust_meta"})
    Stage &= !std::count(Lifted->HelpersUsed.begin(), Lifted->HelpersUsed.end(), H);
  if (Lift.Platform->hasContext()) // XDP: the persistent kernel's loop is needed too
    declareXdpDeviceFunctions(M, Stage, PerCpu);
  size_t SetInsns = 0;
  for (const object::ProgramSpec *P : Set.Programs)
    SetInsns += P->Insns.size();
  if (llvm::Error E =
          linkDeviceHelpers(M, SetInsns <= MaxInlinedHelpersInsns, Gpu.SystemScopeAtomics))
    return E;
  fixBlockAddsFlag(M);

  llvm::Function *Entry = M.getFunction(Lifted->EntryName);
  // Inlined into the kernels, as the helpers are: a call would keep the
  // context (the program's only argument) in local memory, and with it
  // every field a helper reads (xdp_conntrack: a 104-byte frame).
  Entry->removeFnAttr(llvm::Attribute::NoInline);
  Entry->addFnAttr(llvm::Attribute::AlwaysInline);
  GpuProgram Out;
  if (Lift.Platform->hasContext()) {
    // bpf_trace_printk's log and the forwarding table of bpf_fib_lookup and
    // bpf_check_mtu: device pointers the loader sets.
    auto PointerGlobal = [&](const std::vector<std::string> &Helpers,
                             const char *Name) -> llvm::GlobalVariable * {
      if (std::none_of(Helpers.begin(), Helpers.end(), [&](const std::string &H) {
            return std::count(Lifted->HelpersUsed.begin(), Lifted->HelpersUsed.end(), H);
          }))
        return nullptr;
      auto *I64 = llvm::Type::getInt64Ty(M.getContext());
      return new llvm::GlobalVariable(M, I64, false, llvm::GlobalValue::ExternalLinkage,
                                      llvm::ConstantInt::get(I64, 0), Name, nullptr,
                                      llvm::GlobalValue::NotThreadLocal, 1);
    };
    llvm::GlobalVariable *Groups = nullptr;
    if (PerCpu) {
      auto *Ty = llvm::ArrayType::get(llvm::Type::getInt8Ty(Ctx), sizeof(ebpfgpu_cpu_groups));
      // Constant memory: read through the constant cache, which no fence
      // or L1 invalidation touches (the loader writes it before launches).
      Groups = new llvm::GlobalVariable(M, Ty, false, llvm::GlobalValue::ExternalLinkage,
                                        llvm::ConstantAggregateZero::get(Ty),
                                        EBPFGPU_CPU_GROUPS_GLOBAL, nullptr,
                                        llvm::GlobalValue::NotThreadLocal, 4);
      Groups->setAlignment(llvm::Align(8));
    }
    addXdpBatchKernel(M,
                      addXdpPacketFn(M, Entry,
                                     PointerGlobal(platform::traceLogHelpers(), EBPFGPU_TRACE_LOG_GLOBAL),
                                     PointerGlobal({"fib_lookup", "check_mtu"}, EBPFGPU_FIB_GLOBAL),
                                     Stage, Gpu.PacketsReadOnly,
                                     std::any_of(Lifted->HelpersUsed.begin(),
                                                 Lifted->HelpersUsed.end(),
                                                 [](const std::string &H) {
                                                   return H.rfind("xdp_metadata_rx_", 0) == 0;
                                                 })),
                      Groups);
    addXdpPersistentKernel(M);
    addReclaimKernel(M);
    Out.KernelName = EBPFGPU_XDP_KERNEL;
    addRegisterBudgets(M, Gpu);
  } else {
    addRawKernel(M, Entry);
    Out.KernelName = EBPFGPU_RAW_KERNEL;
  }
  // Only the kernel and the globals the loader binds stay visible.
  for (llvm::Function &F : M)
    if (!F.isDeclaration() && F.getName() != Out.KernelName &&
        F.getName() != EBPFGPU_XDP_BUDGET_KERNEL &&
        F.getName() != EBPFGPU_XDP_PERSISTENT_KERNEL && F.getName() != EBPFGPU_RECLAIM_KERNEL)
      F.setLinkage(llvm::GlobalValue::InternalLinkage);
  if (GpuLift.MapHeaderAddrSpace)
    pinMapHeaders(M, GpuLift.MapHeaderAddrSpace);
  std::string Msg;
  llvm::raw_string_ostream MsgOS(Msg);
  if (llvm::verifyModule(M, &MsgOS))
    return makeError("internal error: GPU module is invalid: " + MsgOS.str());

  runOptimizationPipeline(M, Gpu.OptLevel, TM->get());
  hoistAndStrengthenValueLoads(M);
  foldUniformWarpMatches(M, TM->get());
  // After the optimiser, which may make atomics of its own (a loop of
  // adds folded) and would not see through the inline PTX.
  if (Gpu.SystemScopeAtomics)
    if (llvm::Error E = useSystemScopeAtomics(M))
      return E;
  llvm::raw_string_ostream IR(Out.Llvm);
  M.print(IR, nullptr);

  llvm::SmallString<0> Ptx;
  llvm::raw_svector_ostream PtxOS(Ptx);
  llvm::legacy::PassManager PM;
  if ((*TM)->addPassesToEmitFile(PM, PtxOS, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return makeError("internal error: NVPTX cannot emit PTX");
  PM.run(M);
  Out.Ptx = Ptx.str().str();
  Out.Maps = Lifted->Maps;
  Out.HelpersUsed = Lifted->HelpersUsed;
  for (unsigned F : Lifted->FrameBytes)
    Out.StackBytes = std::max(Out.StackBytes, F);
  return Out;
}

} // namespace ebpfgpu::compiler

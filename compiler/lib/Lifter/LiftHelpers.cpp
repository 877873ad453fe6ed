// SPDX-License-Identifier: Apache-2.0
//
// How the lifter reaches the runtime: a helper call becomes a call of the
// platform's runtime function (the map kind's own variant where the call
// site knows the map), and each map a global holding its object, shape or
// data (LifterImpl.h).

#include "LifterImpl.h"

#include "ebpf-gpu/Platform/GpuAbi.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include <algorithm>
#include <iterator>

namespace ebpfgpu::compiler::detail {

/// The runtime function for a map helper on a map the call site knows:
/// "array_lookup_elem" etc. (MapHelpers.inc), so the GPU module inlines
/// only that kind's code; empty for other helpers.
std::string mapHelperVariant(const platform::HelperProto &H, const object::MapSpec &Map) {
  if (H.Name == "redirect_map")
    return Map.Type == EBPFGPU_MAP_DEVMAP || Map.Type == EBPFGPU_MAP_DEVMAP_HASH ||
                   Map.Type == EBPFGPU_MAP_CPUMAP || Map.Type == EBPFGPU_MAP_XSKMAP
               ? "known_redirect_map"
               : "";
  std::string Op = H.Name == "map_lookup_elem"   ? "lookup_elem"
                   : H.Name == "map_update_elem" ? "update_elem"
                   : H.Name == "map_delete_elem" ? "delete_elem"
                                                 : "";
  if (Op.empty())
    return "";
  switch (Map.Type) {
  case EBPFGPU_MAP_ARRAY:
  case EBPFGPU_MAP_PERCPU_ARRAY:
  case EBPFGPU_MAP_DEVMAP:
    return "array_" + Op;
  case EBPFGPU_MAP_HASH:
  case EBPFGPU_MAP_PERCPU_HASH:
  case EBPFGPU_MAP_LRU_HASH:
  case EBPFGPU_MAP_LRU_PERCPU_HASH:
  case EBPFGPU_MAP_DEVMAP_HASH:
    return "hash_" + Op;
  case EBPFGPU_MAP_LPM_TRIE:
    return "lpm_" + Op;
  default:
    return "";
  }
}

llvm::FunctionCallee ProgramLifter::helperFunction(const platform::HelperProto &H,
                                                   const std::string &Variant) {
  using platform::ValueType;
  auto Ty = [&](ValueType V) -> Type * {
    switch (V) {
    case ValueType::Void:
      return Type::getVoidTy(Ctx);
    case ValueType::Scalar:
      return Type::getInt64Ty(Ctx);
    case ValueType::Ptr:
      return memPtrTy();
    case ValueType::Map:
    case ValueType::Ctx:
      return llvm::PointerType::get(Ctx, 0);
    }
    return nullptr;
  };
  std::vector<Type *> Args;
  if (H.ImplicitCtx)
    Args.push_back(llvm::PointerType::get(Ctx, 0));
  for (ValueType A : H.Args)
    Args.push_back(Ty(A));
  if (!Variant.empty()) // a map the call site knows: its shape follows
    Args.push_back(llvm::PointerType::get(Ctx, 0));
  Helpers.insert(H.Name);
  RuntimeHelpers.insert(Variant.empty() ? H.Name : Variant);
  return M->getOrInsertFunction(Variant.empty() ? H.runtimeSymbol() : "ebpfgpu_" + Variant,
                                llvm::FunctionType::get(Ty(H.Ret), Args, false));
}

llvm::GlobalVariable *ProgramLifter::mapObjectGlobal(size_t Index) {
  MapBinding &Bd = Bindings[Index];
  Bd.MapIndex = Index;
  if (Bd.ObjectGlobal.empty())
    Bd.ObjectGlobal = "ebpfgpu_map_" + sanitize(Maps[Index].Name);
  if (auto *G = M->getGlobalVariable(Bd.ObjectGlobal))
    return G;
  if (Opts.MapHeaderAddrSpace) {
    // The header itself, which the loader writes before any launch: not a
    // constant to LLVM (its initializer is not what the program reads).
    static_assert(sizeof(ebpfgpu_map) % 8 == 0, "the header is an array of u64");
    auto *Ty = llvm::ArrayType::get(Type::getInt64Ty(Ctx), sizeof(ebpfgpu_map) / 8);
    auto *G = new llvm::GlobalVariable(*M, Ty, false, llvm::GlobalValue::ExternalLinkage,
                                       llvm::ConstantAggregateZero::get(Ty), Bd.ObjectGlobal,
                                       nullptr, llvm::GlobalValue::NotThreadLocal,
                                       Opts.MapHeaderAddrSpace, /*isExternallyInitialized=*/true);
    G->setAlignment(llvm::Align(8));
    return G;
  }
  auto *PtrTy = llvm::PointerType::get(Ctx, 0);
  auto *G = new llvm::GlobalVariable(*M, PtrTy, false, llvm::GlobalValue::ExternalLinkage,
                                     llvm::ConstantPointerNull::get(PtrTy), Bd.ObjectGlobal);
  G->setAlignment(llvm::Align(8));
  return G;
}

llvm::Value *ProgramLifter::mapObject(IRBuilder<> &B, size_t Index) {
  llvm::GlobalVariable *G = mapObjectGlobal(Index);
  if (Opts.MapHeaderAddrSpace)
    return llvm::ConstantExpr::getAddrSpaceCast(G, llvm::PointerType::get(Ctx, 0));
  return B.CreateLoad(G->getValueType(), G);
}

/// The map's shape (struct ebpfgpu_map_shape) as a constant: the
/// specialised map helpers take it, and once they are inlined its fields
/// fold into the code.
llvm::GlobalVariable *ProgramLifter::mapShapeGlobal(size_t Index) {
  const object::MapSpec &Map = Maps[Index];
  std::string Name = "ebpfgpu_shape_" + sanitize(Map.Name);
  if (auto *G = M->getGlobalVariable(Name, true))
    return G;
  auto *G = new llvm::GlobalVariable(*M, shapeType(), true, llvm::GlobalValue::PrivateLinkage,
                                     shapeInit(Index, false), Name);
  G->setAlignment(llvm::Align(4));
  G->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  Shapes[Index] = G;
  return G;
}

llvm::ArrayType *ProgramLifter::shapeType() const {
  return llvm::ArrayType::get(Type::getInt32Ty(Ctx), sizeof(ebpfgpu_map_shape) / 4);
}

llvm::Constant *ProgramLifter::shapeInit(size_t Index, bool Stable) const {
  const object::MapSpec &Map = Maps[Index];
  auto *I32 = Type::getInt32Ty(Ctx);
  return llvm::ConstantArray::get(
      shapeType(),
      {llvm::ConstantInt::get(I32, Map.Type), llvm::ConstantInt::get(I32, Map.KeySize),
       llvm::ConstantInt::get(I32, Map.ValueSize), llvm::ConstantInt::get(I32, Map.MaxEntries),
       llvm::ConstantInt::get(I32, Map.Flags), llvm::ConstantInt::get(I32, Stable),
       llvm::ConstantInt::get(I32, Map.SpinLockOff >= 0 ? uint32_t(Map.SpinLockOff) + 1 : 0)});
}

llvm::GlobalVariable *ProgramLifter::mapDataGlobal(size_t Index) {
  MapBinding &Bd = Bindings[Index];
  Bd.MapIndex = Index;
  const object::MapSpec &Map = Maps[Index];
  if (Bd.DataGlobal.empty())
    Bd.DataGlobal = "ebpfgpu_data_" + sanitize(Map.Name);
  if (auto *G = M->getGlobalVariable(Bd.DataGlobal))
    return G;
  bool ReadOnly = Map.Flags & platform::MapFlagReadOnlyProg;
  auto *Init = llvm::ConstantDataArray::get(Ctx, llvm::ArrayRef<uint8_t>(Map.InitialValue));
  auto *G = new llvm::GlobalVariable(*M, Init->getType(), ReadOnly,
                                     llvm::GlobalValue::ExternalLinkage, Init, Bd.DataGlobal,
                                     nullptr, llvm::GlobalValue::NotThreadLocal,
                                     Opts.MemoryAddrSpace);
  G->setAlignment(llvm::Align(8));
  return G;
}

llvm::Error FunctionLifter::liftHelperCall(uint32_t Pc, int32_t Id, const AbsState &S) {
  const platform::HelperProto *H = P.Opts.Platform->helper(Id);
  if (!H)
    return fail(Pc, platform::unsupportedHelper(*P.Opts.Platform, Id));
  if (std::count(H->Checks.begin(), H->Checks.end(), platform::ArgCheck::Callback))
    return H->Args[0] == platform::ValueType::Map ? liftForEachElem(Pc, *H, S)
                                                  : liftCallbackLoop(Pc, *H, S);
  // A map the call site knows (r1 from an LDDW map) picks that kind's helper.
  std::string Variant;
  if (!H->Args.empty() && H->Args[0] == platform::ValueType::Map &&
      S.Regs[1].K == AbsValue::Map)
    Variant = mapHelperVariant(*H, P.Maps[S.Regs[1].Index]);
  if (H->Name == "map_update_elem" || H->Name == "map_delete_elem") {
    if (S.Regs[1].K == AbsValue::Map)
      P.WrittenMaps.insert(S.Regs[1].Index);
    else
      P.WritesUnknownMap = true;
  }
  // Only these leave a map as they found it; for_each_map_elem hands its
  // callback value pointers, counted as writes.
  static const char *const ReadOnlyMapHelpers[] = {"map_lookup_elem", "map_peek_elem",
                                                   "map_lookup_percpu_elem", "redirect_map",
                                                   "tail_call"};
  if (!H->Args.empty() && H->Args[0] == platform::ValueType::Map &&
      std::find(std::begin(ReadOnlyMapHelpers), std::end(ReadOnlyMapHelpers), H->Name) ==
          std::end(ReadOnlyMapHelpers)) {
    if (S.Regs[1].K == AbsValue::Map)
      P.ChangedMaps.insert(S.Regs[1].Index);
    else
      P.ChangesUnknownMap = true;
  }
  llvm::FunctionCallee Callee = P.helperFunction(*H, Variant);
  std::vector<Value *> Args;
  unsigned Hidden = H->ImplicitCtx ? 1 : 0;
  if (H->ImplicitCtx)
    Args.push_back(Fn->getArg(0));
  for (size_t A = 0; A < H->Args.size(); ++A) {
    unsigned R = unsigned(A + 1);
    Type *ParamTy = Callee.getFunctionType()->getParamType(unsigned(A) + Hidden);
    const AbsValue &V = S.Regs[R];
    switch (H->Args[A]) {
    case platform::ValueType::Scalar:
      Args.push_back(reg(R));
      break;
    case platform::ValueType::Ctx:
      if (V.K != AbsValue::Ctx || V.Value != 0)
        return fail(Pc, "argument " + std::to_string(R) + " of " + H->Name +
                            " must be the context pointer");
      Args.push_back(Fn->getArg(0));
      break;
    case platform::ValueType::Map:
      // A helper other than a lookup may read or change the map's values.
      if (H->Name != "map_lookup_elem") {
        if (V.K == AbsValue::Map)
          P.ObservedMaps.insert(V.Index);
        else
          P.ObservesAnyMap = true;
      }
      if (V.K == AbsValue::Map) {
        Args.push_back(P.mapObject(B, V.Index));
        break;
      }
      Args.push_back(B.CreateIntToPtr(reg(R), ParamTy));
      break;
    default:
      P.observe(V);
      P.writeThrough(V); // whether the helper writes there or only reads
      if (V.K == AbsValue::Stack || (V.K == AbsValue::MapValue &&
                                     P.Maps[V.Index].Origin == platform::MapOrigin::GlobalData)) {
        auto Addr = address(Pc, V, uint8_t(R), 0, 1, false);
        if (!Addr)
          return Addr.takeError();
        Args.push_back(B.CreateAddrSpaceCast(*Addr, ParamTy));
        break;
      }
      Args.push_back(B.CreateIntToPtr(reg(R), ParamTy));
      break;
    }
  }
  if (!Variant.empty())
    Args.push_back(P.mapShapeGlobal(S.Regs[1].Index));
  llvm::CallInst *Call = B.CreateCall(Callee, Args);
  Value *Ret = Call;
  if (Variant == "array_lookup_elem" && P.perCpuArrayValue(AbsValue{AbsValue::MapElem, 0, S.Regs[1].Index}))
    P.PerCpuLookups.push_back({Call, S.Regs[1].Index});
  if (H->Ret == platform::ValueType::Void)
    Ret = B.getInt64(0);
  else if (Ret->getType()->isPointerTy())
    Ret = B.CreatePtrToInt(Ret, I64);
  setReg(0, Ret);
  if (H->Name == "tail_call")
    leaveOnTailCall();
  // Calls clobber r1-r5 (the verifier refuses reading them); keep them defined.
  for (unsigned R = 1; R <= 5; ++R)
    setReg(R, B.getInt64(0));
  return llvm::Error::success();
}

llvm::Expected<llvm::Function *> FunctionLifter::callbackOf(uint32_t Pc,
                                                          const platform::HelperProto &H,
                                                          const AbsState &S) {
  const AbsValue &Cb = S.Regs[2];
  if (Cb.K != AbsValue::Func)
    return fail(Pc, "bpf_" + H.Name + "'s callback (r2) is not a known function");
  llvm::Function *Callee = P.LlvmFuncs[P.Facts->functionAt(Cb.Index)];
  if (!Callee)
    return fail(Pc, "bpf_" + H.Name + "'s callback at pc " + std::to_string(Cb.Index) +
                        " was not lifted");
  P.Helpers.insert(H.Name);
  return Callee;
}

void FunctionLifter::closeCallbackLoop(const CallbackLoop &L, const char *ResultName) {
  Value *Next = B.CreateAdd(L.Turns, B.getInt64(1));
  Value *Stop = B.CreateICmpNE(L.Ret, B.getInt64(0));
  // A GPU thread in a loop of 1 << 23 calls still reads the abort word.
  if (P.Opts.LoopGuard)
    guardBackwardJump();
  BasicBlock *BodyEnd = B.GetInsertBlock();
  B.CreateCondBr(Stop, L.Done, L.Head);
  L.Turns->addIncoming(Next, BodyEnd);
  B.SetInsertPoint(L.Done);
  llvm::PHINode *Result = B.CreatePHI(I64, 3, ResultName);
  Result->addIncoming(L.Early, L.From);
  Result->addIncoming(L.Turns, L.HeadEnd);
  Result->addIncoming(Next, BodyEnd);
  setReg(0, Result);
  for (unsigned R = 1; R <= 5; ++R)
    setReg(R, B.getInt64(0));
}

llvm::Error FunctionLifter::liftCallbackLoop(uint32_t Pc, const platform::HelperProto &H,
                                             const AbsState &S) {
  // bpf_loop(nr_loops, callback, callback_ctx, flags), as the kernel's:
  // flags other than 0 give -EINVAL, more than BPF_MAX_LOOPS (1 << 23)
  // turns -E2BIG (below); else callback(i, callback_ctx) for i = 0.. until it
  // returns non-zero (the verifier allows 0 or 1), and the result is the
  // number of turns run, the one that stopped included.
  auto CalleeOr = callbackOf(Pc, H, S);
  if (!CalleeOr)
    return CalleeOr.takeError();
  llvm::Function *Callee = *CalleeOr;
  constexpr int64_t MaxLoops = int64_t(1) << 23, Einval = -22;
  // The kernel inlines the call where flags is 0 at every visit (and the
  // callback the same: the verifier's FuncPtr here is one function), and
  // its inlined form sets -E2BIG with a 32-bit move (inline_bpf_loop):
  // 0xfffffff9, not -7, as BPF_PROG_TEST_RUN shows.
  const bool KernelInlines = S.Regs[4].isConst() && S.Regs[4].Value == 0;
  const int64_t E2big = KernelInlines ? int64_t(uint32_t(-7)) : -7;
  Value *Count = B.CreateZExt(reg32(1), I64);
  Value *Ctx = reg(3);
  Value *Early = B.CreateSelect(B.CreateICmpNE(reg(4), B.getInt64(0)), B.getInt64(uint64_t(Einval)),
                                B.CreateSelect(B.CreateICmpUGT(Count, B.getInt64(MaxLoops)),
                                               B.getInt64(uint64_t(E2big)), B.getInt64(0)));
  BasicBlock *From = B.GetInsertBlock();
  auto *Head = BasicBlock::Create(P.Ctx, "loop.head", Fn);
  auto *Body = BasicBlock::Create(P.Ctx, "loop.body", Fn);
  auto *Done = BasicBlock::Create(P.Ctx, "loop.done", Fn);
  B.CreateCondBr(B.CreateICmpEQ(Early, B.getInt64(0)), Head, Done);
  B.SetInsertPoint(Head);
  llvm::PHINode *Index = B.CreatePHI(I64, 2, "loop.i");
  Index->addIncoming(B.getInt64(0), From);
  BasicBlock *HeadFrom = Head;
  B.CreateCondBr(B.CreateICmpULT(Index, Count), Body, Done);
  B.SetInsertPoint(Body);
  Value *Ret = B.CreateCall(Callee, {Fn->getArg(0), Index, Ctx, B.getInt64(0), B.getInt64(0),
                                     B.getInt64(0)});
  closeCallbackLoop({Index, Ret, Early, From, HeadFrom, Head, Done}, "loop.result");
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftKfuncCall(uint32_t Pc, int32_t Id, const AbsState &S) {
  const platform::KfuncProto *K = P.Opts.Platform->kfunc(Id);
  if (!K)
    return fail(Pc, "kfunc " + std::to_string(Id) + " is not supported for " +
                        P.Opts.Platform->name() + " programs");
  if (K->isDynptr())
    return liftDynptrKfunc(Pc, *K, S);
  if (K->Role == platform::KfuncRole::PatternMatch ||
      K->Role == platform::KfuncRole::PatternMatchAll)
    return liftMatchKfunc(Pc, *K, S);
  if (K->Role == platform::KfuncRole::RxMetadata)
    return liftRxMetadataKfunc(Pc, *K, S);
  if (K->Role == platform::KfuncRole::Classify)
    return liftClassifyKfunc(Pc, *K, S);
  if (K->Role == platform::KfuncRole::PullData)
    return liftPullDataKfunc(*K);
  if (K->Role == platform::KfuncRole::RcuReadLock ||
      K->Role == platform::KfuncRole::RcuReadUnlock) {
    // No element is reused while a batch runs: nothing to do (the
    // verifier checked the region). r0 to r5 are the call's scratch.
    for (unsigned R = 0; R <= 5; ++R)
      setReg(R, B.getInt64(0));
    return llvm::Error::success();
  }
  // The iterator's 8 bytes are the kernel's struct bpf_iter_num_kern
  // { int cur; int end; } (kernel/bpf/bpf_iter.c), and each kfunc does
  // what the kernel's does to them.
  auto Addr = address(Pc, S.Regs[1], 1, 0, K->IterSize, true);
  if (!Addr)
    return Addr.takeError();
  Value *CurP = *Addr;
  Value *EndP = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), CurP, 4);
  auto Store = [&](Value *Cur, Value *End) {
    B.CreateAlignedStore(Cur, CurP, llvm::Align(4));
    B.CreateAlignedStore(End, EndP, llvm::Align(4));
  };
  Value *Zero = B.getInt32(0);
  Value *R0 = B.getInt64(0);
  switch (K->Role) {
  case platform::KfuncRole::IterNew: {
    // start > end: -EINVAL; more than BPF_MAX_LOOPS elements: -E2BIG;
    // either leaves the iterator empty. Else cur = start - 1, end = end.
    // The result is an int: the kernel's r0 holds it zero-extended.
    constexpr int64_t MaxLoops = int64_t(1) << 23;
    Value *Start = reg32(2), *End = reg32(3);
    Value *Inval = B.CreateICmpSGT(Start, End);
    Value *Span = B.CreateSub(B.CreateSExt(End, I64), B.CreateSExt(Start, I64));
    Value *Big = B.CreateICmpSGT(Span, B.getInt64(MaxLoops));
    Value *Bad = B.CreateOr(Inval, Big);
    Store(B.CreateSelect(Bad, Zero, B.CreateSub(Start, B.getInt32(1))),
          B.CreateSelect(Bad, Zero, End));
    R0 = B.CreateSelect(Inval, B.getInt64(uint32_t(-22)),
                        B.CreateSelect(Big, B.getInt64(uint32_t(-7)), B.getInt64(0)));
    break;
  }
  case platform::KfuncRole::IterNext: {
    // (s64)(cur + 1) >= end: drained (and emptied), null; else ++cur, &cur.
    Value *Cur = B.CreateAlignedLoad(I32, CurP, llvm::Align(4));
    Value *End = B.CreateAlignedLoad(I32, EndP, llvm::Align(4));
    Value *Next = B.CreateAdd(Cur, B.getInt32(1));
    Value *Done = B.CreateICmpSGE(Next, End);
    Store(B.CreateSelect(Done, Zero, Next), B.CreateSelect(Done, Zero, End));
    R0 = B.CreateSelect(Done, B.getInt64(0), B.CreatePtrToInt(CurP, I64));
    break;
  }
  case platform::KfuncRole::IterDestroy:
    Store(Zero, Zero);
    break;
  default:
    llvm_unreachable("dynptr kfuncs are liftDynptrKfunc()'s");
  }
  setReg(0, R0);
  for (unsigned R = 1; R <= 5; ++R)
    setReg(R, B.getInt64(0));
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftDynptrKfunc(uint32_t Pc, const platform::KfuncProto &K,
                                            const AbsState &S) {
  // The runtime's functions (XdpHelpers.inc) on the dynptr's 16 bytes:
  // bpf_dynptr_from_xdp(ctx, flags, ptr) -> int, the slices'
  // (ptr, offset, size) -> the packet's bytes or null, and the others'
  // (ptr, scalars...) -> a scalar. A slice's buffer
  // is not passed: the runtime's packets are linear, so it is never
  // copied into.
  bool FromXdp = K.Role == platform::KfuncRole::DynptrFromXdp;
  bool Writes = FromXdp || K.Role == platform::KfuncRole::DynptrAdjust;
  auto Addr = address(Pc, S.Regs[K.ObjReg], K.ObjReg, 0, K.IterSize, Writes);
  if (!Addr)
    return Addr.takeError();
  auto *Ptr = llvm::PointerType::get(P.Ctx, 0);
  Value *Obj = B.CreateAddrSpaceCast(*Addr, P.memPtrTy());
  llvm::FunctionCallee Callee;
  Value *R0;
  if (FromXdp) {
    Callee = P.M->getOrInsertFunction(K.runtimeSymbol(),
                                      llvm::FunctionType::get(I64, {Ptr, I64, P.memPtrTy()}, false));
    R0 = B.CreateCall(Callee, {Fn->getArg(0), reg(2), Obj});
  } else {
    // The slices take (offset, size: r2, r4), _adjust (start, end: r2,
    // r3), _clone the clone's bytes (r2), _copy (dst_off, the source
    // dynptr, src_off, size: r2 to r5), _memset (offset, size, val: r2 to
    // r4), the others nothing more.
    using KR = platform::KfuncRole;
    std::vector<Value *> Args = {Obj};
    std::vector<Type *> Types = {P.memPtrTy()};
    auto Dynptr = [&](unsigned R, bool Written) -> llvm::Error {
      auto A = address(Pc, S.Regs[R], uint8_t(R), 0, K.IterSize, Written);
      if (!A)
        return A.takeError();
      Args.push_back(B.CreateAddrSpaceCast(*A, P.memPtrTy()));
      Types.push_back(P.memPtrTy());
      return llvm::Error::success();
    };
    auto Scalars = [&](std::initializer_list<unsigned> Regs) {
      for (unsigned R : Regs) {
        Args.push_back(reg(R));
        Types.push_back(I64);
      }
    };
    if (K.Role == KR::DynptrSlice || K.Role == KR::DynptrSliceRdwr)
      Scalars({2, 4});
    else if (K.Role == KR::DynptrAdjust)
      Scalars({2, 3});
    else if (K.Role == KR::DynptrMemset)
      Scalars({2, 3, 4});
    if (K.Role == KR::DynptrClone) {
      if (llvm::Error E = Dynptr(2, true))
        return E;
    } else if (K.Role == KR::DynptrCopy) {
      Scalars({2});
      if (llvm::Error E = Dynptr(3, false))
        return E;
      Scalars({4, 5});
    }
    Callee = P.M->getOrInsertFunction(K.runtimeSymbol(), llvm::FunctionType::get(I64, Types, false));
    R0 = B.CreateCall(Callee, Args);
  }
  P.RuntimeHelpers.insert(K.runtimeSymbol().substr(8)); // without ebpfgpu_
  setReg(0, R0);
  for (unsigned R = 1; R <= 5; ++R)
    setReg(R, B.getInt64(0));
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftRxMetadataKfunc(uint32_t Pc, const platform::KfuncProto &K,
                                                const AbsState &S) {
  // bpf_xdp_metadata_rx_*(ctx, out...): the runtime's function
  // (XdpHelpers.inc) on the context and the memory the verifier proved
  // writable. Named among the helpers used, so that the .gpu.o tells the
  // runtime to give the program its packets' RX metadata.
  auto *Ptr = llvm::PointerType::get(P.Ctx, 0);
  std::vector<Value *> Args = {Fn->getArg(0)};
  std::vector<Type *> Types = {Ptr};
  for (unsigned R = 2; R <= K.NumArgs; ++R) {
    const AbsValue &V = S.Regs[R];
    P.observe(V);
    P.writeThrough(V);
    Value *Arg;
    if (V.K == AbsValue::Stack || (V.K == AbsValue::MapValue &&
                                   P.Maps[V.Index].Origin == platform::MapOrigin::GlobalData)) {
      auto Addr = address(Pc, V, uint8_t(R), 0, K.OutSizes[R - 2], true);
      if (!Addr)
        return Addr.takeError();
      Arg = B.CreateAddrSpaceCast(*Addr, P.memPtrTy());
    } else {
      Arg = B.CreateIntToPtr(reg(R), P.memPtrTy());
    }
    Args.push_back(Arg);
    Types.push_back(P.memPtrTy());
  }
  llvm::FunctionCallee Callee =
      P.M->getOrInsertFunction(K.runtimeSymbol(), llvm::FunctionType::get(I64, Types, false));
  std::string Name = K.runtimeSymbol().substr(8); // without ebpfgpu_
  P.Helpers.insert(Name);
  P.RuntimeHelpers.insert(Name);
  setReg(0, B.CreateCall(Callee, Args));
  for (unsigned R = 1; R <= 5; ++R)
    setReg(R, B.getInt64(0));
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftPullDataKfunc(const platform::KfuncProto &K) {
  // bpf_xdp_pull_data(ctx, len): the runtime's function (XdpHelpers.inc)
  // on the context and the length's low 32 bits, as the kernel's u32.
  auto *Ptr = llvm::PointerType::get(P.Ctx, 0);
  llvm::FunctionCallee Callee = P.M->getOrInsertFunction(
      K.runtimeSymbol(), llvm::FunctionType::get(I64, {Ptr, I64}, false));
  P.RuntimeHelpers.insert(K.runtimeSymbol().substr(8)); // without ebpfgpu_
  setReg(0, B.CreateCall(Callee, {Fn->getArg(0), reg(2)}));
  for (unsigned R = 1; R <= 5; ++R)
    setReg(R, B.getInt64(0));
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftMatchKfunc(uint32_t Pc, const platform::KfuncProto &K,
                                           const AbsState &S) {
  // ebpf_gpu_match(ctx, offset, patterns): the runtime's scan
  // (MapPatterns.inc) on the map's header, which the verifier proved is a
  // pattern map the call site names. ebpf_gpu_match_all(..., bitmap,
  // bitmap__sz) adds the bitmap in this frame, which the verifier proved
  // 8-aligned and writable for the size; paths that join may bring
  // different sizes, which the runtime takes from r5.
  const AbsValue &Map = S.Regs[3];
  if (Map.K != AbsValue::Map)
    return fail(Pc, K.Name + " needs a pattern map the call site names");
  auto *Ptr = llvm::PointerType::get(P.Ctx, 0);
  Value *MapObj = P.mapObject(B, Map.Index); // the header, wherever the module keeps it
  std::vector<llvm::Type *> Types = {Ptr, I64, Ptr};
  std::vector<Value *> Args = {Fn->getArg(0), reg(2), MapObj};
  if (K.Role == platform::KfuncRole::PatternMatchAll) {
    unsigned Size = S.Regs[5].isConst() ? unsigned(S.Regs[5].Value) : 8;
    auto Addr = address(Pc, S.Regs[4], 4, 0, Size, true);
    if (!Addr)
      return Addr.takeError();
    Types.push_back(P.memPtrTy());
    Types.push_back(I64);
    Args.push_back(B.CreateAddrSpaceCast(*Addr, P.memPtrTy()));
    Args.push_back(reg(5));
  }
  llvm::FunctionCallee Callee =
      P.M->getOrInsertFunction(K.runtimeSymbol(), llvm::FunctionType::get(I64, Types, false));
  P.RuntimeHelpers.insert(K.runtimeSymbol().substr(8)); // without ebpfgpu_
  setReg(0, B.CreateCall(Callee, Args));
  for (unsigned R = 1; R <= 5; ++R)
    setReg(R, B.getInt64(0));
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftClassifyKfunc(uint32_t Pc, const platform::KfuncProto &K,
                                              const AbsState &S) {
  // ebpf_gpu_classify(features, features__sz, model): the runtime's
  // evaluator (MapModel.inc) on the features in this frame and the map's
  // header. The verifier proved the size a constant on each path and the
  // bytes readable; paths that join may bring different sizes, which the
  // runtime takes from r2.
  const AbsValue &Map = S.Regs[3];
  if (Map.K != AbsValue::Map)
    return fail(Pc, K.Name + " needs a model map the call site names");
  unsigned Size = S.Regs[2].isConst() ? unsigned(S.Regs[2].Value) : 4;
  auto Addr = address(Pc, S.Regs[1], 1, 0, Size, false);
  if (!Addr)
    return Addr.takeError();
  auto *Ptr = llvm::PointerType::get(P.Ctx, 0);
  Value *Features = B.CreateAddrSpaceCast(*Addr, P.memPtrTy());
  Value *MapObj = P.mapObject(B, Map.Index);
  llvm::FunctionCallee Callee = P.M->getOrInsertFunction(
      K.runtimeSymbol(), llvm::FunctionType::get(I64, {P.memPtrTy(), I64, Ptr}, false));
  P.RuntimeHelpers.insert(K.runtimeSymbol().substr(8)); // without ebpfgpu_
  setReg(0, B.CreateCall(Callee, {Features, reg(2), MapObj}));
  for (unsigned R = 1; R <= 5; ++R)
    setReg(R, B.getInt64(0));
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftForEachElem(uint32_t Pc, const platform::HelperProto &H,
                                            const AbsState &S) {
  // bpf_for_each_map_elem(map, callback, callback_ctx, flags), as the
  // kernel's: flags other than 0 give -EINVAL before any element; else
  // callback(map, key, value, callback_ctx) for each element
  // (map_next_elem's walk) until it returns non-zero, and the result is
  // the number of elements visited, the one that stopped included.
  const AbsValue &Map = S.Regs[1];
  auto CalleeOr = callbackOf(Pc, H, S);
  if (!CalleeOr)
    return CalleeOr.takeError();
  llvm::Function *Callee = *CalleeOr;
  P.RuntimeHelpers.insert("map_next_elem");
  auto *Ptr = llvm::PointerType::get(P.Ctx, 0);
  llvm::FunctionCallee Next = P.M->getOrInsertFunction(
      "ebpfgpu_map_next_elem", llvm::FunctionType::get(P.memPtrTy(), {Ptr, Ptr, Ptr}, false));
  // The walk's three words (MapHelpers.inc), in this function's frame.
  llvm::AllocaInst *Walk;
  {
    IRBuilder<> EB(&Fn->getEntryBlock(), Fn->getEntryBlock().begin());
    Walk = EB.CreateAlloca(llvm::ArrayType::get(I64, 3), nullptr, "walk");
    Walk->setAlignment(llvm::Align(8));
  }
  constexpr int64_t Einval = -22;
  // A map the call site knows, or one found at run time (an inner map of
  // a map of maps): its header either way.
  Value *MapObj;
  if (Map.K == AbsValue::Map) {
    P.ObservedMaps.insert(Map.Index);
    MapObj = P.mapObject(B, Map.Index);
  } else {
    P.ObservesAnyMap = true;
    MapObj = B.CreateIntToPtr(reg(1), Ptr);
  }
  Value *Ctx = reg(3);
  Value *Early = B.CreateSelect(B.CreateICmpNE(reg(4), B.getInt64(0)),
                                B.getInt64(uint64_t(Einval)), B.getInt64(0));
  B.CreateStore(B.getInt64(0), B.CreateConstInBoundsGEP2_64(Walk->getAllocatedType(), Walk, 0, 0));
  BasicBlock *From = B.GetInsertBlock();
  auto *Head = BasicBlock::Create(P.Ctx, "each.head", Fn);
  auto *Body = BasicBlock::Create(P.Ctx, "each.body", Fn);
  auto *Done = BasicBlock::Create(P.Ctx, "each.done", Fn);
  B.CreateCondBr(B.CreateICmpEQ(Early, B.getInt64(0)), Head, Done);
  B.SetInsertPoint(Head);
  llvm::PHINode *Count = B.CreatePHI(I64, 2, "each.n");
  Count->addIncoming(B.getInt64(0), From);
  Value *Elem = B.CreateCall(Next, {Fn->getArg(0), MapObj, Walk});
  BasicBlock *HeadEnd = B.GetInsertBlock();
  B.CreateCondBr(B.CreateIsNull(Elem), Done, Body);
  B.SetInsertPoint(Body);
  Value *Key = B.CreateLoad(I64, B.CreateConstInBoundsGEP2_64(Walk->getAllocatedType(), Walk, 0, 2));
  Value *Ret = B.CreateCall(Callee, {Fn->getArg(0), B.CreatePtrToInt(MapObj, I64), Key,
                                     B.CreatePtrToInt(Elem, I64), Ctx, B.getInt64(0)});
  closeCallbackLoop({Count, Ret, Early, From, HeadEnd, Head, Done}, "each.result");
  return llvm::Error::success();
}

} // namespace ebpfgpu::compiler::detail

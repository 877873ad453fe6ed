// SPDX-License-Identifier: Apache-2.0
//
// eBPF -> LLVM IR (see Lifter.h). One FunctionLifter per eBPF function; the
// ProgramLifter owns module-level things: map globals, helper declarations
// and the LLVM functions of all eBPF functions.

#include "ebpf-gpu/Compiler/Lifter.h"

#include "LifterImpl.h"
#include "Provenance.h"

#include "ebpf-gpu/ISA/Disassembler.h"
#include "ebpf-gpu/Platform/GpuAbi.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <map>
#include <set>

namespace ebpfgpu::compiler {

using isa::Insn;
using llvm::BasicBlock;
using llvm::IRBuilder;
using llvm::Type;
using llvm::Value;

namespace detail {

FunctionLifter::FunctionLifter(ProgramLifter &P, size_t FIdx, llvm::Function *Fn)
    : P(P), FIdx(FIdx), Fn(Fn), B(P.Ctx), I64(Type::getInt64Ty(P.Ctx)),
      I32(Type::getInt32Ty(P.Ctx)) {}

llvm::Error FunctionLifter::fail(uint32_t Pc, const std::string &Why) {
  return P.error(Pc, Why);
}

llvm::Expected<Value *> FunctionLifter::address(uint32_t Pc, const AbsValue &Base,
                                                uint8_t BaseReg, int64_t Off,
                                                unsigned Size, bool IsWrite, bool Plain) {
  auto *I8 = Type::getInt8Ty(P.Ctx);
  switch (Base.K) {
  case AbsValue::Stack: {
    int64_t At = Base.Value + Off;
    if (At < -int64_t(FrameBytes) || At + Size > 0)
      return fail(Pc, "stack access of " + std::to_string(Size) + " bytes at r10" +
                          (At < 0 ? "" : "+") + std::to_string(At) +
                          " is outside the frame (512 bytes below r10)");
    return B.CreateConstInBoundsGEP1_64(I8, Frame, uint64_t(int64_t(FrameBytes) + At));
  }
  case AbsValue::Ctx: {
    const platform::ContextField *F =
        P.Opts.Platform->contextField(Base.Value + Off, Size);
    if (!F)
      return fail(Pc, "invalid " + std::string(IsWrite ? "write" : "read") + " of " +
                          std::to_string(Size) + " bytes at context offset " +
                          std::to_string(Base.Value + Off));
    if (IsWrite)
      return fail(Pc, "context field " + F->Name + " is read-only");
    return B.CreateConstInBoundsGEP1_64(I8, Fn->getArg(0), F->RuntimeOffset);
  }
  case AbsValue::Map:
    return fail(Pc, "direct access to a map object (r" + std::to_string(BaseReg) + ")");
  case AbsValue::MapValue:
    if (P.Maps[Base.Index].Origin == platform::MapOrigin::GlobalData) {
      int64_t At = Base.Value + Off;
      if (At < 0 || At + Size > P.Maps[Base.Index].ValueSize)
        return fail(Pc, "access of " + std::to_string(Size) + " bytes at offset " +
                            std::to_string(At) + " is outside " + P.Maps[Base.Index].Name);
      if (IsWrite && (P.Maps[Base.Index].Flags & platform::MapFlagReadOnlyProg))
        return fail(Pc, "write to read-only " + P.Maps[Base.Index].Name);
      return B.CreateConstInBoundsGEP1_64(I8, P.mapDataGlobal(Base.Index), uint64_t(At));
    }
    break;
  default:
    break;
  }
  Value *Addr = reg(BaseReg);
  if (Plain && P.marksValues(Base)) {
    Value *Mark = P.markValuePointer(B, B.CreateIntToPtr(Addr, P.memPtrTy()), Base);
    return Off ? B.CreateInBoundsGEP(I8, Mark, B.getInt64(uint64_t(Off))) : Mark;
  }
  if (Off != 0)
    Addr = B.CreateAdd(Addr, llvm::ConstantInt::get(I64, uint64_t(Off)));
  if (Base.K == AbsValue::Packet)
    return B.CreateIntToPtr(Addr, llvm::PointerType::get(P.Ctx, P.Opts.PacketAddrSpace));
  return B.CreateIntToPtr(Addr, P.memPtrTy());
}

llvm::Error FunctionLifter::lift() {
  const FunctionRange &F = P.Funcs[FIdx];
  const Provenance &Facts = *P.Facts;
  FrameBytes = Facts.frameBytes(FIdx);

  BasicBlock *Entry = BasicBlock::Create(P.Ctx, "entry", Fn);
  B.SetInsertPoint(Entry);
  static const char *Names[] = {"r0", "r1", "r2", "r3", "r4", "r5",
                                "r6", "r7", "r8", "r9", "r10"};
  for (unsigned R = 0; R < isa::NumRegs; ++R)
    Regs[R] = B.CreateAlloca(I64, nullptr, Names[R]);
  auto *I8 = Type::getInt8Ty(P.Ctx);
  if (FrameBytes > 0) {
    Frame = B.CreateAlloca(llvm::ArrayType::get(I8, FrameBytes), nullptr, "stack");
    Frame->setAlignment(llvm::Align(8));
    // A zeroed frame makes results independent of stale memory on every
    // back end; LLVM drops the stores the program overwrites.
    B.CreateMemSet(Frame, B.getInt8(0), FrameBytes, llvm::MaybeAlign(8));
  }
  for (unsigned R = 0; R < isa::NumRegs - 1; ++R)
    setReg(R, R >= 1 && R <= 5 ? static_cast<Value *>(Fn->getArg(R)) : B.getInt64(0));
  setReg(isa::FramePointer,
         Frame ? B.CreatePtrToInt(B.CreateConstInBoundsGEP1_64(I8, Frame, FrameBytes), I64)
               : B.getInt64(0));

  for (uint32_t L : Facts.blocks(FIdx))
    if (Facts.blockEntry(L))
      Blocks[L] = BasicBlock::Create(P.Ctx, "pc" + std::to_string(L), Fn);
  B.CreateBr(Blocks.at(F.Begin));

  for (auto It = Blocks.begin(); It != Blocks.end(); ++It) {
    uint32_t Leader = It->first;
    B.SetInsertPoint(It->second);
    AbsState S = *Facts.blockEntry(Leader);
    const std::vector<uint32_t> &Ls = Facts.blocks(FIdx);
    auto Next = std::upper_bound(Ls.begin(), Ls.end(), Leader);
    uint32_t End = Next == Ls.end() ? F.End : *Next;
    for (uint32_t Pc = Leader; Pc < End; ++Pc) {
      const Insn &I = P.Prog.Insns[Pc];
      if (I.LddwHigh)
        continue;
      if (llvm::Error E = liftInsn(Pc, S))
        return E;
      if (B.GetInsertBlock()->getTerminator())
        break;
    }
    if (!B.GetInsertBlock()->getTerminator())
      B.CreateBr(Blocks.at(End));
  }
  return llvm::Error::success();
}

void FunctionLifter::guardBackwardJump() {
  // Every loop has a backward jump, so a loop that never ends calls the
  // guard every 65,536 turns; loops the optimiser unrolls lose the count.
  if (!Jumps) {
    IRBuilder<> EB(&Fn->getEntryBlock(), Fn->getEntryBlock().begin());
    Jumps = EB.CreateAlloca(I32, nullptr, "backward.jumps");
    EB.SetInsertPoint(Fn->getEntryBlock().getTerminator());
    EB.CreateStore(EB.getInt32(0), Jumps);
  }
  Value *N = B.CreateAdd(B.CreateLoad(I32, Jumps), B.getInt32(1));
  B.CreateStore(N, Jumps);
  BasicBlock *Guard = BasicBlock::Create(P.Ctx, "loop.guard", Fn);
  BasicBlock *Go = BasicBlock::Create(P.Ctx, "loop.go", Fn);
  B.CreateCondBr(B.CreateICmpEQ(B.CreateAnd(N, B.getInt32(0xffff)), B.getInt32(0)), Guard, Go);
  B.SetInsertPoint(Guard);
  llvm::FunctionCallee F = P.M->getOrInsertFunction(
      EBPFGPU_LOOP_GUARD, llvm::FunctionType::get(Type::getVoidTy(P.Ctx), false));
  B.CreateCall(F);
  B.CreateBr(Go);
  B.SetInsertPoint(Go);
}

Value *FunctionLifter::condition(const Insn &I) {
  bool Is32 = I.cls() == isa::JMP32;
  Value *L = Is32 ? reg32(I.Dst) : reg(I.Dst);
  Value *R;
  if (I.usesRegSource())
    R = Is32 ? reg32(I.Src) : reg(I.Src);
  else
    R = Is32 ? B.getInt32(uint32_t(I.Imm)) : B.getInt64(uint64_t(int64_t(I.Imm)));
  switch (I.op()) {
  case isa::Jeq: return B.CreateICmpEQ(L, R);
  case isa::Jne: return B.CreateICmpNE(L, R);
  case isa::Jgt: return B.CreateICmpUGT(L, R);
  case isa::Jge: return B.CreateICmpUGE(L, R);
  case isa::Jlt: return B.CreateICmpULT(L, R);
  case isa::Jle: return B.CreateICmpULE(L, R);
  case isa::Jsgt: return B.CreateICmpSGT(L, R);
  case isa::Jsge: return B.CreateICmpSGE(L, R);
  case isa::Jslt: return B.CreateICmpSLT(L, R);
  case isa::Jsle: return B.CreateICmpSLE(L, R);
  case isa::Jset:
    return B.CreateICmpNE(B.CreateAnd(L, R), llvm::ConstantInt::get(L->getType(), 0));
  }
  llvm_unreachable("not a conditional jump");
}

llvm::Error FunctionLifter::liftAlu(const Insn &I) {
  bool Is64 = I.cls() == isa::ALU64;
  Type *Ty = Is64 ? I64 : I32;
  unsigned Bits = Is64 ? 64 : 32;
  Value *D = Is64 ? reg(I.Dst) : reg32(I.Dst);
  Value *S;
  if (I.usesRegSource())
    S = Is64 ? reg(I.Src) : reg32(I.Src);
  else
    S = llvm::ConstantInt::get(Ty, uint64_t(int64_t(I.Imm)), /*signed=*/true);
  auto Zero = llvm::ConstantInt::get(Ty, 0);
  auto AllOnes = llvm::ConstantInt::getSigned(Ty, -1);
  auto One = llvm::ConstantInt::get(Ty, 1);
  Value *R = nullptr;
  switch (I.op()) {
  case isa::Add: R = B.CreateAdd(D, S); break;
  case isa::Sub: R = B.CreateSub(D, S); break;
  case isa::Mul: R = B.CreateMul(D, S); break;
  case isa::Or: R = B.CreateOr(D, S); break;
  case isa::And: R = B.CreateAnd(D, S); break;
  case isa::Xor: R = B.CreateXor(D, S); break;
  case isa::Neg: R = B.CreateNeg(D); break;
  case isa::Lsh:
    R = B.CreateShl(D, B.CreateAnd(S, llvm::ConstantInt::get(Ty, Bits - 1)));
    break;
  case isa::Rsh:
    R = B.CreateLShr(D, B.CreateAnd(S, llvm::ConstantInt::get(Ty, Bits - 1)));
    break;
  case isa::Arsh:
    R = B.CreateAShr(D, B.CreateAnd(S, llvm::ConstantInt::get(Ty, Bits - 1)));
    break;
  case isa::Mov:
    if (I.Off == 0) {
      R = S;
    } else {
      Type *Narrow = llvm::IntegerType::get(P.Ctx, unsigned(I.Off));
      R = B.CreateSExt(B.CreateTrunc(S, Narrow), Ty);
    }
    break;
  case isa::Div:
  case isa::Mod: {
    // RFC 9669: x / 0 = 0, x % 0 = x; INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0.
    // Divisors that would trap are replaced by 1 before dividing.
    bool Signed = I.Off == 1;
    bool IsDiv = I.op() == isa::Div;
    Value *IsZero = B.CreateICmpEQ(S, Zero);
    Value *Bad = IsZero;
    Value *IsNegOne = nullptr;
    if (Signed) {
      IsNegOne = B.CreateICmpEQ(S, AllOnes);
      Bad = B.CreateOr(IsZero, IsNegOne);
    }
    Value *Safe = B.CreateSelect(Bad, One, S);
    Value *Q = IsDiv ? (Signed ? B.CreateSDiv(D, Safe) : B.CreateUDiv(D, Safe))
                     : (Signed ? B.CreateSRem(D, Safe) : B.CreateURem(D, Safe));
    if (Signed)
      Q = B.CreateSelect(IsNegOne, IsDiv ? B.CreateNeg(D) : Zero, Q);
    R = B.CreateSelect(IsZero, IsDiv ? Zero : D, Q);
    break;
  }
  case isa::End: {
    unsigned W = unsigned(I.Imm);
    Value *Full = reg(I.Dst);
    Type *WTy = llvm::IntegerType::get(P.Ctx, W);
    Value *V = B.CreateTrunc(Full, WTy);
    bool Swap = I.cls() == isa::ALU64 || I.usesRegSource(); // bswap or to-BE
    if (Swap && W > 8)
      V = B.CreateUnaryIntrinsic(llvm::Intrinsic::bswap, V);
    setReg(I.Dst, B.CreateZExt(V, I64));
    return llvm::Error::success();
  }
  default:
    llvm_unreachable("decoder admitted an unknown ALU operation");
  }
  if (Is64)
    setReg(I.Dst, R);
  else
    setReg32(I.Dst, R);
  return llvm::Error::success();
}

/// The alignment an access may claim. Frames and map values start 8-byte
/// aligned (every map layout, MapMemory.cpp, keeps values at multiples of 8
/// from an aligned block), so an access at a known offset from one is as
/// aligned as that offset; a u64 counter in a map value is then one load,
/// not eight byte loads (the GPU faults on misaligned wide accesses, so
/// LLVM splits whatever claims less). Anything else claims 1 byte.
llvm::Align FunctionLifter::accessAlign(const AbsValue &Base, int64_t Off, unsigned Size) const {
  bool Aligned8 = Base.K == AbsValue::Stack ||
                  (Base.K == AbsValue::MapElem && !ebpfgpu_map_is_outer(P.Maps[Base.Index].Type));
  if (!Aligned8)
    return llvm::Align(1);
  uint64_t At = uint64_t(Base.Value + Off);
  uint64_t A = std::min<uint64_t>(Size, 8);
  while (At % A)
    A /= 2;
  return llvm::Align(A);
}

llvm::Error FunctionLifter::liftLoad(uint32_t Pc, const Insn &I, const AbsState &S) {
  unsigned Size = isa::accessBytes(I.size());
  const AbsValue &Base = S.Regs[I.Src];
  auto Addr = address(Pc, Base, I.Src, I.Off, Size, false, true);
  if (!Addr)
    return Addr.takeError();
  if (Base.K == AbsValue::Ctx) {
    const platform::ContextField *F = P.Opts.Platform->contextField(Base.Value + I.Off, Size);
    Type *RtTy = llvm::IntegerType::get(P.Ctx, F->RuntimeSize * 8);
    Value *V = B.CreateAlignedLoad(RtTy, *Addr, llvm::Align(F->RuntimeSize));
    setReg(I.Dst, B.CreateZExtOrTrunc(V, I64));
    return llvm::Error::success();
  }
  Type *Ty = llvm::IntegerType::get(P.Ctx, Size * 8);
  llvm::LoadInst *V = B.CreateAlignedLoad(Ty, *Addr, accessAlign(Base, I.Off, Size));
  if (P.perCpuArrayValue(Base))
    P.PerCpuAccesses.push_back({V, Base.Index});
  else
    P.observe(Base);
  if (P.Opts.TagMapValueLoads && Base.K == AbsValue::MapElem && !P.marksValues(Base) &&
      (ebpfgpu_map_is_hashed(P.Maps[Base.Index].Type) ||
       ebpfgpu_map_is_percpu(P.Maps[Base.Index].Type)))
    V->setMetadata(StrongValueLoadTag,
                   llvm::MDNode::get(P.Ctx, {llvm::ValueAsMetadata::get(P.mapShapeGlobal(Base.Index)),
                                             llvm::ConstantAsMetadata::get(B.getInt32(Base.Index))}));
  setReg(I.Dst, I.mode() == isa::ModeMemSX ? B.CreateSExt(V, I64) : B.CreateZExt(V, I64));
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftStore(uint32_t Pc, const Insn &I, const AbsState &S) {
  unsigned Size = isa::accessBytes(I.size());
  auto Addr = address(Pc, S.Regs[I.Dst], I.Dst, I.Off, Size, true, true);
  if (!Addr)
    return Addr.takeError();
  Type *Ty = llvm::IntegerType::get(P.Ctx, Size * 8);
  Value *V = I.cls() == isa::ST ? static_cast<Value *>(llvm::ConstantInt::get(
                                      Ty, uint64_t(int64_t(I.Imm)), true))
                                : B.CreateTrunc(reg(I.Src), Ty);
  llvm::StoreInst *St = B.CreateAlignedStore(V, *Addr, accessAlign(S.Regs[I.Dst], I.Off, Size));
  P.writeThrough(S.Regs[I.Dst]);
  if (P.perCpuArrayValue(S.Regs[I.Dst]))
    P.PerCpuAccesses.push_back({St, S.Regs[I.Dst].Index});
  else
    P.observe(S.Regs[I.Dst]);
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftAtomic(uint32_t Pc, const Insn &I, const AbsState &S) {
  unsigned Size = isa::accessBytes(I.size());
  auto Addr = address(Pc, S.Regs[I.Dst], I.Dst, I.Off, Size, true);
  if (!Addr)
    return Addr.takeError();
  Type *Ty = llvm::IntegerType::get(P.Ctx, Size * 8);
  if (S.Regs[I.Dst].isStackDerived())
    return liftStackAtomic(I, *Addr, Ty);
  P.writeThrough(S.Regs[I.Dst]);
  auto Order = llvm::AtomicOrdering::SequentiallyConsistent;
  llvm::Align A(Size);
  if (I.Imm == isa::AtomicCmpXchg) {
    P.observe(S.Regs[I.Dst]);
    P.Orders = true;
    Value *Expected = B.CreateTrunc(reg(0), Ty);
    Value *New = B.CreateTrunc(reg(I.Src), Ty);
    auto *X = B.CreateAtomicCmpXchg(*Addr, Expected, New, A, Order, Order);
    setReg(0, B.CreateZExt(B.CreateExtractValue(X, 0), I64));
    return llvm::Error::success();
  }
  llvm::AtomicRMWInst::BinOp Op;
  switch (I.Imm & ~isa::AtomicFetch) {
  case isa::AtomicAdd: Op = llvm::AtomicRMWInst::Add; break;
  case isa::AtomicOr: Op = llvm::AtomicRMWInst::Or; break;
  case isa::AtomicAnd: Op = llvm::AtomicRMWInst::And; break;
  case isa::AtomicXor: Op = llvm::AtomicRMWInst::Xor; break;
  default: Op = llvm::AtomicRMWInst::Xchg; break;
  }
  if (I.Imm == isa::AtomicAdd && P.Opts.WarpAtomicAdds) {
    // No result: the device library adds once per warp and address.
    const char *Name = Size == 8 ? "ebpfgpu_warp_add_u64" : "ebpfgpu_warp_add_u32";
    auto *Generic = llvm::PointerType::get(P.Ctx, 0);
    llvm::FunctionCallee F = P.M->getOrInsertFunction(
        Name, llvm::FunctionType::get(Type::getVoidTy(P.Ctx), {Generic, Ty}, false));
    llvm::CallInst *Call = B.CreateCall(F, {B.CreatePointerBitCastOrAddrSpaceCast(*Addr, Generic),
                                            B.CreateTrunc(reg(I.Src), Ty)});
    P.WarpAdds.push_back({Call, S.Regs[I.Dst]});
    return llvm::Error::success();
  }
  P.observe(S.Regs[I.Dst]);
  P.Orders = P.Orders || (I.Imm & isa::AtomicFetch);
  Value *Old = B.CreateAtomicRMW(Op, *Addr, B.CreateTrunc(reg(I.Src), Ty), A, Order);
  if (I.Imm & isa::AtomicFetch)
    setReg(I.Src, B.CreateZExt(Old, I64));
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftStackAtomic(const Insn &I, Value *Addr, Type *Ty) {
  // The stack is private to its thread, so an atomic there is an ordinary
  // read-modify-write. (PTX leaves atomics on local memory undefined.)
  Value *Old = B.CreateAlignedLoad(Ty, Addr, llvm::Align(1));
  Value *Src = B.CreateTrunc(reg(I.Src), Ty);
  if (I.Imm == isa::AtomicCmpXchg) {
    Value *Match = B.CreateICmpEQ(Old, B.CreateTrunc(reg(0), Ty));
    B.CreateAlignedStore(B.CreateSelect(Match, Src, Old), Addr, llvm::Align(1));
    setReg(0, B.CreateZExt(Old, I64));
    return llvm::Error::success();
  }
  Value *New;
  switch (I.Imm & ~isa::AtomicFetch) {
  case isa::AtomicAdd: New = B.CreateAdd(Old, Src); break;
  case isa::AtomicOr: New = B.CreateOr(Old, Src); break;
  case isa::AtomicAnd: New = B.CreateAnd(Old, Src); break;
  case isa::AtomicXor: New = B.CreateXor(Old, Src); break;
  default: New = Src; break; // xchg
  }
  B.CreateAlignedStore(New, Addr, llvm::Align(1));
  if (I.Imm & isa::AtomicFetch)
    setReg(I.Src, B.CreateZExt(Old, I64));
  return llvm::Error::success();
}

llvm::Error FunctionLifter::liftLddw(uint32_t Pc, const Insn &I) {
  switch (I.Src) {
  case isa::LddwImm64:
    setReg(I.Dst, B.getInt64(I.imm64()));
    return llvm::Error::success();
  case isa::LddwMapIdx:
  case isa::LddwMapIdxValue: {
    if (I.Imm < 0 || size_t(I.Imm) >= P.Maps.size())
      return fail(Pc, "reference to map " + std::to_string(I.Imm) + ", which does not exist");
    const object::MapSpec &Map = P.Maps[size_t(I.Imm)];
    if (I.Src == isa::LddwMapIdx) {
      setReg(I.Dst, B.CreatePtrToInt(P.mapObject(B, size_t(I.Imm)), I64));
      return llvm::Error::success();
    }
    if (Map.Origin != platform::MapOrigin::GlobalData)
      return fail(Pc, "direct value access to map " + Map.Name +
                          " (supported for global data only)");
    auto *G = P.mapDataGlobal(size_t(I.Imm));
    Value *Ptr = B.CreateConstInBoundsGEP1_64(Type::getInt8Ty(P.Ctx), G,
                                              uint64_t(uint32_t(I.ImmHigh)));
    setReg(I.Dst, B.CreatePtrToInt(Ptr, I64));
    return llvm::Error::success();
  }
  case isa::LddwCodeAddr:
    // Only a callback argument takes it (the verifier): the helper call
    // finds the function from the analysis, not from this value.
    setReg(I.Dst, B.getInt64(uint64_t(int64_t(Pc) + 1 + I.Imm)));
    return llvm::Error::success();
  default:
    return fail(Pc, "lddw with source " + std::to_string(I.Src) +
                        " (map by fd or variable address) is not supported; use an ELF object");
  }
}

llvm::Error FunctionLifter::liftLocalCall(uint32_t Pc, const Insn &I) {
  size_t Callee = P.Facts->functionAt(uint32_t(int64_t(Pc) + 1 + I.Imm));
  std::vector<Value *> Args = {Fn->getArg(0)};
  for (unsigned R = 1; R <= 5; ++R)
    Args.push_back(reg(R));
  setReg(0, B.CreateCall(P.LlvmFuncs[Callee], Args));
  for (unsigned R = 1; R <= 5; ++R)
    setReg(R, B.getInt64(0));
  if (P.UsesTailCalls)
    leaveOnTailCall();
  return llvm::Error::success();
}

void FunctionLifter::leaveOnTailCall() {
  // A tail call that succeeded ends the program: return up to the
  // dispatcher, which runs the target (ProgramSet.cpp).
  Value *Field = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Fn->getArg(0),
                                              offsetof(ebpfgpu_xdp_ctx, tail_target));
  Value *Pending = B.CreateICmpNE(B.CreateLoad(I32, Field), B.getInt32(0));
  auto *Leave = BasicBlock::Create(B.getContext(), "tail_call.leave", Fn);
  auto *Stay = BasicBlock::Create(B.getContext(), "tail_call.stay", Fn);
  B.CreateCondBr(Pending, Leave, Stay);
  B.SetInsertPoint(Leave);
  B.CreateRet(B.getInt64(0));
  B.SetInsertPoint(Stay);
}

llvm::Error FunctionLifter::liftInsn(uint32_t Pc, AbsState &S) {
  const Insn &I = P.Prog.Insns[Pc];
  llvm::Error Err = llvm::Error::success();
  switch (I.cls()) {
  case isa::ALU:
  case isa::ALU64:
    Err = liftAlu(I);
    break;
  case isa::LD:
    if (I.isLddw())
      Err = liftLddw(Pc, I);
    else
      Err = fail(Pc, "legacy packet loads (ld_abs, ld_ind) are not allowed here");
    break;
  case isa::LDX:
    Err = liftLoad(Pc, I, S);
    break;
  case isa::ST:
    Err = liftStore(Pc, I, S);
    break;
  case isa::STX:
    Err = I.mode() == isa::ModeAtomic ? liftAtomic(Pc, I, S) : liftStore(Pc, I, S);
    break;
  case isa::JMP:
  case isa::JMP32: {
    if (I.isExit()) {
      B.CreateRet(reg(0));
      break;
    }
    if (I.isCallx()) {
      const AbsValue &T = S.Regs[I.Dst];
      if (!T.isConst() || T.Value != int64_t(int32_t(T.Value)))
        Err = fail(Pc, "callx target r" + std::to_string(I.Dst) + " is not a known helper id");
      else
        Err = liftHelperCall(Pc, int32_t(T.Value), S);
      break;
    }
    if (I.isCall()) {
      if (I.Src == isa::CallHelper)
        Err = liftHelperCall(Pc, I.Imm, S);
      else if (I.Src == isa::CallLocal)
        Err = liftLocalCall(Pc, I);
      else
        Err = liftKfuncCall(Pc, I.Imm, S);
      break;
    }
    const uint32_t To = uint32_t(int64_t(Pc) + 1 + I.jumpOffset());
    BasicBlock *Target = Blocks.at(To);
    if (To <= Pc && P.Opts.LoopGuard)
      guardBackwardJump();
    if (I.isUnconditionalJump()) {
      B.CreateBr(Target);
      break;
    }
    B.CreateCondBr(condition(I), Target, Blocks.at(Pc + 1));
    break;
  }
  }
  if (Err)
    return Err;
  P.Facts->transfer(S, Pc);
  return llvm::Error::success();
}

llvm::Expected<LiftedProgram> ProgramLifter::run() {
  Funcs = splitFunctions(Prog);
  for (const Insn &I : Prog.Insns)
    UsesTailCalls |= I.isHelperCall() && I.Imm == isa::HelperTailCall;
  Expected<Provenance> F = Provenance::analyze(Prog, Funcs, *Opts.Platform);
  if (!F)
    return llvm::createStringError(llvm::inconvertibleErrorCode(), F.error().message());
  Facts.emplace(std::move(*F));

  auto *I64 = Type::getInt64Ty(Ctx);
  auto *PtrTy = llvm::PointerType::get(Ctx, 0);
  auto *FnTy = llvm::FunctionType::get(I64, {PtrTy, I64, I64, I64, I64, I64}, false);
  std::set<std::string> Used;
  for (size_t I = 0; I < Funcs.size(); ++I) {
    std::string Name = sanitize(Funcs[I].Name);
    while (!Used.insert(Name).second || Name.rfind("ebpfgpu_", 0) == 0)
      Name += "_" + std::to_string(I);
    auto Linkage = I == 0 ? llvm::GlobalValue::ExternalLinkage
                          : llvm::GlobalValue::InternalLinkage;
    auto *Fn = llvm::Function::Create(FnTy, Linkage, Name, *M);
    Fn->getArg(0)->setName("ctx");
    for (unsigned R = 1; R <= 5; ++R)
      Fn->getArg(R)->setName("arg" + std::to_string(R));
    Fn->addFnAttr(llvm::Attribute::NoUnwind);
    LlvmFuncs.push_back(Fn);
  }
  LiftedProgram Out;
  for (size_t I = 0; I < Funcs.size(); ++I) {
    if (!Facts->blockEntry(Funcs[I].Begin)) {
      // Never called: drop it rather than lift code nothing can reach.
      LlvmFuncs[I]->eraseFromParent();
      LlvmFuncs[I] = nullptr;
      Out.FrameBytes.push_back(0);
      continue;
    }
    FunctionLifter FL(*this, I, LlvmFuncs[I]);
    if (llvm::Error E = FL.lift())
      return E;
    Out.FrameBytes.push_back(Facts->frameBytes(I));
  }
  std::string VerifyMsg;
  llvm::raw_string_ostream OS(VerifyMsg);
  if (llvm::verifyModule(*M, &OS))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "internal error: lifted IR is invalid: " + OS.str());
  // Every call is lifted: a map no call can change is stable during runs.
  for (auto &[Index, G] : Shapes)
    G->setInitializer(shapeInit(Index, !WritesUnknownMap && !WrittenMaps.count(Index)));
  // And whether their values are written in place (ValueWrittenMaps): the
  // value-load tags' second operand, the map's index until now, becomes
  // that answer.
  for (llvm::Function &F : *M)
    for (llvm::Instruction &I : llvm::instructions(F))
      if (llvm::MDNode *Tag = I.getMetadata(StrongValueLoadTag)) {
        auto *Index = llvm::mdconst::extract<llvm::ConstantInt>(Tag->getOperand(1));
        bool Fixed = !WritesAnyValue && !ValueWrittenMaps.count(Index->getZExtValue());
        I.setMetadata(StrongValueLoadTag,
                      llvm::MDNode::get(Ctx, {Tag->getOperand(0),
                                              llvm::ConstantAsMetadata::get(
                                                  llvm::ConstantInt::getBool(Ctx, Fixed))}));
      }
  // The marks' third operand likewise (MapValueMarkFn).
  if (llvm::Function *Mark = M->getFunction(MapValueMarkFn)) {
    std::map<llvm::Value *, size_t> ShapeIndex;
    for (auto &[Index, G] : Shapes)
      ShapeIndex[G] = Index;
    for (llvm::User *U : Mark->users()) {
      auto *C = llvm::cast<llvm::CallInst>(U);
      size_t Index = ShapeIndex.at(C->getArgOperand(1));
      C->setArgOperand(2, llvm::ConstantInt::getBool(
                              Ctx, !WritesAnyValue && !ValueWrittenMaps.count(Index)));
    }
  }
  Out.BlockSliceMaps = retargetPerCpuAdds();
  retargetBlockAdds(Out.BlockSliceMaps);
  Out.EntryName = LlvmFuncs[0]->getName().str();
  // A map of maps reaches its inner maps at run time only: they need
  // runtime objects (and globals the loader binds) all the same.
  std::vector<size_t> Outers;
  for (auto &[Idx, Bd] : Bindings)
    if (!Bd.ObjectGlobal.empty() && !Maps[Idx].Inner.empty())
      Outers.push_back(Idx);
  for (size_t O : Outers)
    for (size_t I : object::innerMapCandidates(Maps, O))
      mapObjectGlobal(I);
  for (auto &[Idx, Bd] : Bindings) {
    // The verifier refuses every write into a BPF_F_RDONLY_PROG map
    // (.rodata), so a pointer the lifter cannot follow (through a
    // bpf-to-bpf call, say) never points into one.
    bool ReadOnly = Maps[Idx].Flags & platform::MapFlagReadOnlyProg;
    Bd.ChangesKeys = ChangedMaps.count(Idx) || (!ReadOnly && ChangesUnknownMap);
    Bd.WritesValues = !ReadOnly && (WritesAnyValue || ValueWrittenMaps.count(Idx));
    Out.Maps.push_back(Bd);
  }
  Out.HelpersUsed.assign(Helpers.begin(), Helpers.end());
  Out.RuntimeHelpers.assign(RuntimeHelpers.begin(), RuntimeHelpers.end());
  Out.Module = std::move(M);
  return Out;
}

} // namespace detail

using namespace detail;


unsigned strengthenMapValueLoads(llvm::Module &M) {
  unsigned Made = 0;
  for (llvm::Function &F : M)
    for (llvm::BasicBlock &BB : F)
      for (llvm::Instruction &I : BB) {
        llvm::MDNode *Tag = I.getMetadata(StrongValueLoadTag);
        if (!Tag)
          continue;
        I.setMetadata(StrongValueLoadTag, nullptr);
        auto *Shape = llvm::dyn_cast_or_null<llvm::GlobalVariable>(
            llvm::cast<llvm::ValueAsMetadata>(Tag->getOperand(0))->getValue());
        auto *Fixed = Tag->getNumOperands() > 1
                          ? llvm::mdconst::dyn_extract<llvm::ConstantInt>(Tag->getOperand(1))
                          : nullptr;
        if (valueLoadsMustBeStrong(Shape, Fixed && Fixed->getBitWidth() == 1 && Fixed->isOne())) {
          llvm::cast<llvm::LoadInst>(I).setVolatile(true);
          ++Made;
        }
      }
  return Made;
}

bool valueLoadsMustBeStrong(const llvm::GlobalVariable *Shape, bool Fixed) {
  // The shape's fields as struct ebpfgpu_map_shape lays them out;
  // anything unreadable is neither stable nor shared.
  auto *Init = Shape && Shape->hasInitializer() ? Shape->getInitializer() : nullptr;
  auto Field = [&](unsigned K) {
    return Init ? llvm::dyn_cast_or_null<llvm::ConstantInt>(Init->getAggregateElement(K))
                : nullptr;
  };
  auto *Type = Field(offsetof(ebpfgpu_map_shape, type) / 4),
       *Stable = Field(offsetof(ebpfgpu_map_shape, stable) / 4);
  // Per-CPU values: a CPU's slice moves between multiprocessors with its
  // group, which the claim no longer fences (CpuGroups.inc).
  bool PerCpu = !Type || ebpfgpu_map_is_percpu(uint32_t(Type->getZExtValue()));
  // A shared map whose values no program writes in place: an element stays
  // as published while it can be reached (MapHash.inc), so a plain load of
  // its value sees what the lookup found.
  return PerCpu || ((!Stable || Stable->isZero()) && !Fixed);
}

llvm::Expected<LiftedProgram> liftProgram(const object::ProgramSpec &Prog,
                                          const std::vector<object::MapSpec> &Maps,
                                          const LiftOptions &Opts,
                                          llvm::LLVMContext &Ctx) {
  ProgramLifter L(Prog, Maps, Opts, Ctx);
  return L.run();
}

object::ProgramSpec programFromInsns(std::vector<isa::Insn> Insns, const std::string &Name) {
  object::ProgramSpec P;
  P.Name = Name;
  P.Insns = std::move(Insns);
  P.Functions.push_back({Name, 0});
  return P;
}

} // namespace ebpfgpu::compiler

// SPDX-License-Identifier: Apache-2.0
//
// The lifter's two classes, private to compiler/lib/Lifter: a FunctionLifter
// per eBPF function (Lifter.cpp: instructions to IR) and the ProgramLifter
// that owns what is module-wide (LiftHelpers.cpp: map globals and helper
// declarations; Lifter.cpp: the run over every function).

#ifndef EBPF_GPU_COMPILER_LIB_LIFTER_LIFTERIMPL_H
#define EBPF_GPU_COMPILER_LIB_LIFTER_LIFTERIMPL_H

#include "ebpf-gpu/Compiler/Lifter.h"

#include "Provenance.h"

#include "llvm/IR/IRBuilder.h"

#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ebpfgpu::compiler::detail {

using isa::Insn;
using llvm::BasicBlock;
using llvm::IRBuilder;
using llvm::Type;
using llvm::Value;

inline std::string sanitize(const std::string &Name) {
  std::string S;
  for (char C : Name)
    S += (std::isalnum(static_cast<unsigned char>(C)) || C == '_') ? C : '_';
  return S;
}

class ProgramLifter;

class FunctionLifter {
public:
  FunctionLifter(ProgramLifter &P, size_t FIdx, llvm::Function *Fn);
  llvm::Error lift();

private:
  llvm::Error liftInsn(uint32_t Pc, AbsState &S);
  llvm::Error liftAlu(const Insn &I);
  llvm::Error liftLoad(uint32_t Pc, const Insn &I, const AbsState &S);
  llvm::Error liftStore(uint32_t Pc, const Insn &I, const AbsState &S);
  llvm::Error liftAtomic(uint32_t Pc, const Insn &I, const AbsState &S);
  llvm::Error liftStackAtomic(const Insn &I, Value *Addr, Type *Ty);
  llvm::Error liftLddw(uint32_t Pc, const Insn &I);
  llvm::Error liftHelperCall(uint32_t Pc, int32_t Id, const AbsState &S);
  llvm::Error liftLocalCall(uint32_t Pc, const Insn &I);
  /// A helper that calls a callback (bpf_loop): a loop here that calls
  /// the lifted callback, as the kernel's bpf_loop does.
  llvm::Error liftCallbackLoop(uint32_t Pc, const platform::HelperProto &H, const AbsState &S);
  /// The lifted function a callback helper's r2 names (bpf_loop,
  /// bpf_for_each_map_elem), the helper noted as used.
  llvm::Expected<llvm::Function *> callbackOf(uint32_t Pc, const platform::HelperProto &H,
                                              const AbsState &S);
  /// A callback loop as built up to its body's call: the turns so far (a
  /// phi of the head), the callback's result, the result when the loop is
  /// skipped (`Early`, from `From`), the block ending the head's test.
  struct CallbackLoop {
    llvm::PHINode *Turns;
    llvm::Value *Ret, *Early;
    llvm::BasicBlock *From, *HeadEnd, *Head, *Done;
  };
  /// Ends the body (another turn unless the callback returned non-zero)
  /// and sets r0 to the helper's result in `Done`: Early, or the turns
  /// run, the one that stopped included.
  void closeCallbackLoop(const CallbackLoop &L, const char *ResultName);
  /// bpf_for_each_map_elem: a loop here over the map's elements
  /// (map_next_elem) that calls the lifted callback with each.
  llvm::Error liftForEachElem(uint32_t Pc, const platform::HelperProto &H, const AbsState &S);
  /// A kfunc: the open-coded iterators inline, on the iterator's bytes.
  llvm::Error liftKfuncCall(uint32_t Pc, int32_t Id, const AbsState &S);
  /// A dynptr kfunc: a call of its runtime function on the dynptr's bytes.
  llvm::Error liftMatchKfunc(uint32_t Pc, const platform::KfuncProto &K, const AbsState &S);
  llvm::Error liftRxMetadataKfunc(uint32_t Pc, const platform::KfuncProto &K, const AbsState &S);
  llvm::Error liftPullDataKfunc(const platform::KfuncProto &K);
  llvm::Error liftClassifyKfunc(uint32_t Pc, const platform::KfuncProto &K, const AbsState &S);
  llvm::Error liftDynptrKfunc(uint32_t Pc, const platform::KfuncProto &K, const AbsState &S);
  void leaveOnTailCall();
  void guardBackwardJump();
  Value *condition(const Insn &I);
  /// Address of `Size` bytes at `Base + Off`, or an error when the access
  /// can never be valid (stack out of frame, bad context field). `Plain`:
  /// the program's own load or store, whose value pointer takes a
  /// MapValueMarkFn call where ProgramLifter::marksValues says so (atomics
  /// and helpers' pointers do not: they stay as they were).
  llvm::Align accessAlign(const AbsValue &Base, int64_t Off, unsigned Size) const;
  llvm::Expected<Value *> address(uint32_t Pc, const AbsValue &Base, uint8_t BaseReg,
                                  int64_t Off, unsigned Size, bool IsWrite, bool Plain = false);

  Value *reg(unsigned R) { return B.CreateLoad(I64, Regs[R]); }
  void setReg(unsigned R, Value *V) { B.CreateStore(V, Regs[R]); }
  Value *reg32(unsigned R) { return B.CreateTrunc(reg(R), I32); }
  void setReg32(unsigned R, Value *V) { setReg(R, B.CreateZExt(V, I64)); }
  llvm::Error fail(uint32_t Pc, const std::string &Why);

  ProgramLifter &P;
  size_t FIdx;
  llvm::Function *Fn;
  IRBuilder<> B;
  Type *I64, *I32;
  llvm::AllocaInst *Regs[isa::NumRegs] = {};
  llvm::AllocaInst *Frame = nullptr;
  unsigned FrameBytes = 0;
  /// Backward jumps taken in this activation (LiftOptions::LoopGuard).
  llvm::AllocaInst *Jumps = nullptr;
  std::map<uint32_t, BasicBlock *> Blocks;
};

class ProgramLifter {
public:
  ProgramLifter(const object::ProgramSpec &Prog, const std::vector<object::MapSpec> &Maps,
                const LiftOptions &Opts, llvm::LLVMContext &Ctx)
      : Prog(Prog), Maps(Maps), Opts(Opts), Ctx(Ctx),
        M(std::make_unique<llvm::Module>(Prog.Name.empty() ? "prog" : Prog.Name, Ctx)) {}

  llvm::Expected<LiftedProgram> run();

  llvm::Error error(uint32_t Pc, const std::string &Why) const {
    std::string Where;
    if (const object::LineInfo *L = Prog.lineFor(Pc); L && !L->File.empty()) {
      std::string File = L->File;
      if (auto Slash = File.rfind('/'); Slash != std::string::npos)
        File = File.substr(Slash + 1);
      Where = File + ":" + std::to_string(L->Line) + ": ";
    }
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   Where + "pc " + std::to_string(Pc) + ": " + Why);
  }

  llvm::PointerType *memPtrTy() const {
    return llvm::PointerType::get(Ctx, Opts.MemoryAddrSpace);
  }
  llvm::FunctionCallee helperFunction(const platform::HelperProto &H,
                                     const std::string &Variant = "");
  llvm::GlobalVariable *mapObjectGlobal(size_t Index);
  /// The map's runtime object (its header) as a generic pointer.
  llvm::Value *mapObject(IRBuilder<> &B, size_t Index);
  llvm::GlobalVariable *mapDataGlobal(size_t Index);
  llvm::GlobalVariable *mapShapeGlobal(size_t Index);
  llvm::ArrayType *shapeType() const;
  llvm::Constant *shapeInit(size_t Index, bool Stable) const;

  const object::ProgramSpec &Prog;
  const std::vector<object::MapSpec> &Maps;
  const LiftOptions &Opts;
  llvm::LLVMContext &Ctx;
  std::unique_ptr<llvm::Module> M;
  std::vector<FunctionRange> Funcs;
  std::optional<Provenance> Facts;
  std::vector<llvm::Function *> LlvmFuncs;
  std::map<size_t, MapBinding> Bindings;
  std::set<std::string> Helpers;
  std::set<std::string> RuntimeHelpers;
  /// The program calls bpf_tail_call: calls return at once when one of
  /// them tail-called.
  bool UsesTailCalls = false;
  /// Maps some map_update_elem/map_delete_elem call names, and whether a
  /// call names a map only known at run time (it may be any): what decides
  /// each shape's `stable` once every function is lifted.
  std::set<size_t> WrittenMaps;
  bool WritesUnknownMap = false;
  /// Maps a helper other than a lookup or a redirect names (an update, a
  /// delete, a push or pop, an event output), and whether such a call
  /// names a map only known at run time: MapBinding::ChangesKeys.
  std::set<size_t> ChangedMaps;
  bool ChangesUnknownMap = false;
  /// Adds without a result that the device library sums a warp at a time
  /// (LiftOptions::WarpAtomicAdds), with the pointer's provenance: once
  /// every function is lifted, those on an array nothing else in the
  /// program touches become block-combined adds (retargetBlockAdds).
  struct WarpAdd {
    llvm::CallInst *Call;
    AbsValue Base;
  };
  std::vector<WarpAdd> WarpAdds;
  /// Maps whose values the program reads, writes or hands to a helper in
  /// any other way; `ObservesAnyMap`: a pointer of unknown origin did (it
  /// may point into any map). `Orders`: an atomic with a result or a
  /// compare-and-swap, by which threads can order themselves.
  std::set<size_t> ObservedMaps;
  bool ObservesAnyMap = false, Orders = false;
  /// Notes an access through `Base` other than an add without a result.
  void observe(const AbsValue &Base);
  /// Maps whose values the program may change in place (a store or an
  /// atomic through a value pointer, or a value pointer handed to a
  /// helper); `WritesAnyValue`: a pointer of unknown origin may. A shared
  /// hashed map's update links a new element and never rewrites a linked
  /// one (MapHash.inc), so where no program writes a map's values in
  /// place, a linked element's value bytes stay as they were published
  /// for the whole batch: its value loads need not be strong (the tags'
  /// second operand, strengthenMapValueLoads).
  std::set<size_t> ValueWrittenMaps;
  bool WritesAnyValue = false;
  void writeThrough(const AbsValue &Base);
  /// Plain loads and stores of per-CPU array values, and the lookups that
  /// find them, on the GPU (LiftOptions::WarpAtomicAdds): where each of a
  /// map's loads and stores is one half of an add written back
  /// (`st->packets += 1`), the adds become block-combined adds on a slice
  /// the block picks without waiting for its CPUs (retargetPerCpuAdds).
  struct PerCpuUse {
    llvm::Instruction *I;
    size_t Map;
  };
  std::vector<PerCpuUse> PerCpuAccesses, PerCpuLookups;
  bool perCpuArrayValue(const AbsValue &Base) const;
  /// Whether accesses through `Base` take their address from a
  /// MapValueMarkFn call: a value of a shared hashed map, on a back end
  /// that tags value loads.
  bool marksValues(const AbsValue &Base) const;
  /// The MapValueMarkFn call on `Ptr`, which points `Base.Value` bytes
  /// into a value of `Base.Index`, at `B`'s insertion point.
  llvm::Value *markValuePointer(llvm::IRBuilder<> &B, llvm::Value *Ptr, const AbsValue &Base);
  std::set<size_t> retargetPerCpuAdds();
  void retargetBlockAdds(const std::set<size_t> &PerCpuMaps);
  std::map<size_t, llvm::GlobalVariable *> Shapes;
};

} // namespace ebpfgpu::compiler::detail

#endif // EBPF_GPU_COMPILER_LIB_LIFTER_LIFTERIMPL_H

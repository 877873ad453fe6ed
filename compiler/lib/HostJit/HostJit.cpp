// SPDX-License-Identifier: Apache-2.0
//
// Lift, optimise and JIT a program for the host CPU with ORC's LLJIT; the
// helper runtime functions are bound as absolute symbols.

#include "ebpf-gpu/Compiler/HostJit.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/Support/TargetSelect.h"

namespace ebpfgpu::compiler {

HostProgram::~HostProgram() = default;

llvm::Expected<std::unique_ptr<HostProgram>>
HostProgram::compile(const object::ProgramSpec &Prog, const std::vector<object::MapSpec> &Maps,
                     const LiftOptions &Opts, unsigned OptLevel) {
  static const bool TargetsReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)TargetsReady;

  auto Ctx = std::make_unique<llvm::LLVMContext>();
  llvm::Expected<LiftedProgram> Lifted = liftProgram(Prog, Maps, Opts, *Ctx);
  if (!Lifted)
    return Lifted.takeError();
  for (const MapBinding &B : Lifted->Maps)
    if (!B.ObjectGlobal.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "map '" + Maps[B.MapIndex].Name +
                                         "': maps are not available on the host back end yet");
  llvm::orc::SymbolMap Helpers;
  optimizeModule(*Lifted->Module, OptLevel);

  auto Jit = llvm::orc::LLJITBuilder().create();
  if (!Jit)
    return Jit.takeError();
  for (const std::string &Name : Lifted->HelpersUsed) {
    void *Addr = hostHelperAddress(Name);
    if (!Addr)
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "helper bpf_" + Name +
                                         " is not available on the host back end yet");
    Helpers[(*Jit)->mangleAndIntern("ebpfgpu_" + Name)] = {
        llvm::orc::ExecutorAddr::fromPtr(Addr), llvm::JITSymbolFlags::Exported};
  }
  if (llvm::Error E = (*Jit)->getMainJITDylib().define(llvm::orc::absoluteSymbols(Helpers)))
    return E;
  std::string Entry = Lifted->EntryName;
  if (llvm::Error E = (*Jit)->addIRModule(
          llvm::orc::ThreadSafeModule(std::move(Lifted->Module), std::move(Ctx))))
    return E;
  auto Sym = (*Jit)->lookup(Entry);
  if (!Sym)
    return Sym.takeError();
  std::unique_ptr<HostProgram> P(new HostProgram());
  P->Entry = Sym->toPtr<EntryFn>();
  P->Jit = std::move(*Jit);
  return P;
}

} // namespace ebpfgpu::compiler

// SPDX-License-Identifier: Apache-2.0
//
// Lift, optimise and JIT a program for the host CPU with ORC's LLJIT; the
// helper runtime functions are bound as absolute symbols.

#include "ebpf-gpu/Compiler/HostJit.h"

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Platform/Platform.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <cstring>

namespace ebpfgpu::compiler {

HostProgram::HostProgram() = default;
HostProgram::~HostProgram() = default;

void HostProgram::reclaimMaps() {
  for (auto &M : Maps)
    M->reclaim();
}

abi::TraceText HostProgram::takeTrace() {
  if (TraceBlock.empty())
    return {};
  auto *Log = reinterpret_cast<ebpfgpu_trace_log *>(TraceBlock.data());
  if (Log->head == 0 && Log->dropped == 0)
    return {};
  abi::TraceText T = abi::readTraceLog(*Log, reinterpret_cast<const char *>(Log + 1));
  // Empty again, zeros included: the next run's lines end where zeros
  // start. Only what the runs reserved was written (the 16 MiB log is
  // taken after every packet of a one-worker program).
  std::memset(Log + 1, 0, std::min(Log->head, Log->capacity));
  Log->head = 0;
  Log->dropped = 0;
  return T;
}

void HostProgram::setFib(const std::vector<uint8_t> &Block) {
  FibBlock.assign((Block.size() + 7) / 8, 0);
  if (!Block.empty())
    std::memcpy(FibBlock.data(), Block.data(), Block.size());
}

MaybeError HostProgram::takeEvents(abi::EventBatch &Out) {
  for (auto &M : Maps) {
    if (!ebpfgpu_map_is_event(M->info().type))
      continue;
    std::vector<abi::EventRecord> Records;
    uint64_t Dropped = 0;
    if (MaybeError E = M->takeEvents(Records, Dropped))
      return E;
    Out.Maps.push_back({M->name(), std::move(Records)});
    if (Dropped)
      Out.Dropped.push_back({M->name(), Dropped});
  }
  return std::nullopt;
}

MaybeError HostProgram::checkMaps() const {
  for (const auto &M : Maps)
    if (MaybeError E = M->check())
      return E;
  return std::nullopt;
}

MaybeError HostProgram::updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                                  const std::vector<uint8_t> &Value) {
  for (auto &M : Maps) {
    if (M->name() != Map)
      continue;
    if (ebpfgpu_map_is_outer(M->info().type))
      return Error("map '" + Map + "' holds maps: give the inner map's name (@NAME) as the value");
    return abi::setMapEntry(Map, *M->header(), Key, Value);
  }
  return Error("no map named '" + Map + "' in the program");
}

MaybeError HostProgram::setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                                    const std::string &Inner) {
  for (auto &M : Maps) {
    if (M->name() != Outer)
      continue;
    bool Programs = M->info().type == EBPFGPU_MAP_PROG_ARRAY;
    if (!Programs && !ebpfgpu_map_is_outer(M->info().type))
      return Error("map '" + Outer + "' does not hold maps or programs (@" + Inner + " given)");
    auto Value = Programs ? abi::programSlotValue(Outer, SetPrograms, Inner)
                          : abi::innerMapValue(Outer, M->innerNames(), Inner);
    if (!Value)
      return Value.takeError();
    return abi::setMapEntry(Outer, *M->header(), Key, *Value);
  }
  return Error("no map named '" + Outer + "' in the program");
}

std::string HostProgram::dumpMaps() const {
  std::vector<std::pair<std::string, std::string>> Parts;
  for (const auto &M : Maps)
    Parts.push_back({M->name(), M->format()});
  for (const DataView &D : Data)
    Parts.push_back({D.Name, abi::formatArrayMap(D.Name, D.Bytes, D.Size, D.Size, 1)});
  std::sort(Parts.begin(), Parts.end());
  std::string Out;
  for (auto &P : Parts)
    Out += P.second;
  return Out;
}

llvm::Expected<std::unique_ptr<HostProgram>>
HostProgram::compile(const object::ProgramSpec &Prog, const std::vector<object::MapSpec> &Maps,
                     const LiftOptions &Opts, unsigned OptLevel, uint32_t Cpus) {
  ProgramSet Set;
  Set.Programs = {&Prog};
  return compile(Set, Maps, Opts, OptLevel, Cpus);
}

llvm::Expected<std::unique_ptr<HostProgram>>
HostProgram::compile(const ProgramSet &Set, const std::vector<object::MapSpec> &Maps,
                     const LiftOptions &Opts, unsigned OptLevel, uint32_t Cpus) {
  static const bool TargetsReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)TargetsReady;

  auto Ctx = std::make_unique<llvm::LLVMContext>();
  llvm::Expected<LiftedProgram> Lifted = liftProgramSet(Set, Maps, Opts, *Ctx);
  if (!Lifted)
    return Lifted.takeError();
  std::unique_ptr<HostProgram> P(new HostProgram());
  for (const object::ProgramSpec *S : Set.Programs)
    P->SetPrograms.push_back(S->Name);
  P->Cpus = std::max<uint32_t>(Cpus, 1);
  std::vector<std::pair<std::string, abi::HostMap *>> ObjectGlobals;
  std::vector<std::pair<std::string, const object::MapSpec *>> DataGlobals;
  for (const MapBinding &B : Lifted->Maps) {
    const object::MapSpec &M = Maps[B.MapIndex];
    if (!B.ObjectGlobal.empty()) {
      const platform::MapShape &Shape = M;
      if (MaybeError E = abi::checkMapSupported(M.Name, Shape))
        return llvm::createStringError(llvm::inconvertibleErrorCode(), E->message());
      P->Maps.push_back(std::make_unique<abi::HostMap>(M.Name, Shape, P->Cpus));
      ObjectGlobals.push_back({B.ObjectGlobal, P->Maps.back().get()});
    }
    if (!B.DataGlobal.empty())
      DataGlobals.push_back({B.DataGlobal, &M});
  }
  optimizeModule(*Lifted->Module, OptLevel);

  auto Jit = llvm::orc::LLJITBuilder().create();
  if (!Jit)
    return Jit.takeError();
  // After the JIT: its names live in the JIT's string pool, so the map
  // must go first on every return (fuzz_compile: an error return freed the
  // pool, then the map's names: heap-use-after-free).
  llvm::orc::SymbolMap Helpers;
  for (const std::string &Name : Lifted->RuntimeHelpers) {
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
  // Bind maps: each map global holds a pointer to the map's header.
  for (auto &[Global, Map] : ObjectGlobals) {
    auto G = (*Jit)->lookup(Global);
    if (!G)
      return G.takeError();
    *G->toPtr<ebpfgpu_map **>() = Map->header();
  }
  for (auto &[Global, Spec] : DataGlobals) {
    auto G = (*Jit)->lookup(Global);
    if (!G)
      return G.takeError();
    P->Data.push_back({Spec->Name, G->toPtr<uint8_t *>(), Spec->ValueSize,
                       (Spec->Flags & platform::MapFlagReadOnlyProg) != 0, Spec->SpinLockOff});
  }
  if (platform::usesTraceLog(Lifted->HelpersUsed)) {
    P->TraceBlock.assign((sizeof(ebpfgpu_trace_log) + abi::TraceLogCapacity) / 8, 0);
    reinterpret_cast<ebpfgpu_trace_log *>(P->TraceBlock.data())->capacity =
        abi::TraceLogCapacity;
  }
  // Maps of maps: their inner map tables, then the slots the object fills.
  auto Tables = innerMapTables(Maps, Lifted->Maps);
  if (!Tables)
    return Tables.takeError();
  auto Named = [&](const std::string &Name) -> abi::HostMap * {
    for (auto &M : P->Maps)
      if (M->name() == Name)
        return M.get();
    return nullptr;
  };
  for (const InnerMapTable &T : *Tables) {
    std::vector<abi::HostMap *> Inner;
    for (const std::string &N : T.Names)
      Inner.push_back(Named(N));
    abi::HostMap *Outer = Named(Maps[T.Outer].Name);
    Outer->setInnerMaps(T.Names, Inner);
    for (const auto &[Slot, Id] : T.Slots) {
      std::vector<uint8_t> Key(4), Val(4);
      std::memcpy(Key.data(), &Slot, 4);
      std::memcpy(Val.data(), &Id, 4);
      if (MaybeError E = abi::setMapEntry(Outer->name(), *Outer->header(), Key, Val))
        return llvm::createStringError(llvm::inconvertibleErrorCode(), E->message());
    }
  }
  // Program arrays: the slots the object fills, with ids in the set.
  auto Slots = Set.programSlots(Maps);
  if (!Slots)
    return Slots.takeError();
  for (const auto &[MapIndex, Slot, Value] : *Slots) {
    const std::string &Name = Maps[MapIndex].Name;
    if (std::none_of(P->Maps.begin(), P->Maps.end(), [&](auto &M) { return M->name() == Name; }))
      continue; // no program of the set uses this array
    std::vector<uint8_t> Key(4), Val(4);
    std::memcpy(Key.data(), &Slot, 4);
    std::memcpy(Val.data(), &Value, 4);
    if (MaybeError E = P->updateMap(Name, Key, Val))
      return llvm::createStringError(llvm::inconvertibleErrorCode(), E->message());
  }
  P->Entry = Sym->toPtr<EntryFn>();
  P->Jit = std::move(*Jit);
  return P;
}

} // namespace ebpfgpu::compiler

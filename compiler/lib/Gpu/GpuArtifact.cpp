// SPDX-License-Identifier: Apache-2.0
//
// From a GPU compilation to the `.gpu.o` spec.

#include "ebpf-gpu/Compiler/GpuArtifact.h"

namespace ebpfgpu::compiler {

llvm::Expected<abi::GpuObjectSpec> buildGpuObject(const object::ObjectSpec &Obj,
                                                  const object::ProgramSpec &Prog,
                                                  const LiftOptions &Lift,
                                                  const GpuOptions &Gpu, bool Verified) {
  ProgramSet Set = programSetFor(Obj, Prog);
  auto Slots = Set.programSlots(Obj.Maps);
  if (!Slots)
    return Slots.takeError();
  auto G = compileForGpu(Set, Obj.Maps, Lift, Gpu);
  if (!G)
    return G.takeError();
  auto Tables = innerMapTables(Obj.Maps, G->Maps);
  if (!Tables)
    return Tables.takeError();
  abi::GpuObjectSpec S;
  S.Program = Prog.Name;
  S.Section = Prog.Section.empty() ? "-" : Prog.Section;
  S.Platform = Lift.Platform->kind();
  S.Kernel = G->KernelName;
  S.Target = Gpu.Arch;
  S.StackBytes = G->StackBytes;
  S.Verified = Verified;
  S.PacketsReadOnly = Verified && Gpu.PacketsReadOnly;
  S.SystemScopeAtomics = Gpu.SystemScopeAtomics;
  S.Helpers = G->HelpersUsed;
  S.Ptx = std::move(G->Ptx);
  S.Btf = Obj.Btf;
  for (const MapBinding &B : G->Maps) {
    // The object's spec, with what the loader binds and fills.
    platform::MapSpec GM = Obj.Maps[B.MapIndex];
    GM.ObjectGlobal = B.ObjectGlobal;
    GM.DataGlobal = B.DataGlobal;
    GM.ProgramChangesKeys = B.ChangesKeys;
    GM.ProgramWritesValues = B.WritesValues;
    for (const auto &[MapIndex, Slot, Value] : *Slots)
      if (MapIndex == B.MapIndex)
        GM.ProgramSlots.push_back({Slot, Value});
    if (GM.Type == EBPFGPU_MAP_PROG_ARRAY)
      for (const object::ProgramSpec *P : Set.Programs)
        GM.InnerMaps.push_back(P->Name);
    for (const InnerMapTable &T : *Tables)
      if (T.Outer == B.MapIndex) {
        GM.InnerMaps = T.Names;
        GM.ProgramSlots = T.Slots;
      }
    S.Maps.push_back(std::move(GM));
  }
  return S;
}

} // namespace ebpfgpu::compiler

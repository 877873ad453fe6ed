// SPDX-License-Identifier: Apache-2.0
//
// The object reader's entry points: read the ELF, its maps, its line info,
// then link its programs; and the lookups on the resulting spec.

#include "ElfFile.h"

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace ebpfgpu::object {

const LineInfo *ProgramSpec::lineFor(uint32_t Pc) const {
  auto It = std::upper_bound(Lines.begin(), Lines.end(), Pc,
                             [](uint32_t P, const LineInfo &L) { return P < L.Pc; });
  if (It == Lines.begin())
    return nullptr;
  return &*std::prev(It);
}

const ProgramSpec *ObjectSpec::findProgram(const std::string &Name) const {
  for (const ProgramSpec &P : Programs)
    if (P.Name == Name)
      return &P;
  for (const ProgramSpec &P : Programs)
    if (P.Section == Name)
      return &P;
  return nullptr;
}

const UnlinkedProgram *ObjectSpec::findUnlinked(const std::string &Name) const {
  for (const UnlinkedProgram &U : Unlinked)
    if (U.Name == Name)
      return &U;
  for (const UnlinkedProgram &U : Unlinked)
    if (U.Section == Name)
      return &U;
  return nullptr;
}

std::string ObjectSpec::unlinkedReason(const std::string &Name) const {
  if (Name.empty())
    return Programs.empty() && Unlinked.size() == 1 ? Unlinked[0].Reason : std::string();
  const UnlinkedProgram *U = findProgram(Name) ? nullptr : findUnlinked(Name);
  return U ? U->Reason : std::string();
}

namespace {

/// How an object names a map of maps' inner definition.
const char *innerDefinitionName(const MapSpec &M) {
  return M.Origin == platform::MapOrigin::Legacy ? "inner_id" : "__array(values, ...)";
}

/// Gives each map of maps its inner definition from the named templates;
/// errors on a name that is no map, a template that cannot be an inner map,
/// and a map of maps left without an inner definition.
MaybeError applyInnerMapTemplates(std::vector<MapSpec> &Maps, const ReadOptions &Opts) {
  auto Find = [&](const std::string &N) -> MapSpec * {
    for (MapSpec &M : Maps)
      if (M.Name == N && M.Origin != platform::MapOrigin::GlobalData)
        return &M;
    return nullptr;
  };
  auto IsMapOfMaps = [](const MapSpec &M) {
    return M.Type == EBPFGPU_MAP_ARRAY_OF_MAPS || M.Type == EBPFGPU_MAP_HASH_OF_MAPS;
  };
  for (const auto &[OuterName, TemplateName] : Opts.InnerMapTemplates) {
    MapSpec *Outer = Find(OuterName);
    const MapSpec *Template = Find(TemplateName);
    std::string Ctx = "--inner-map " + OuterName + "=" + TemplateName + ": ";
    if (!Outer)
      return Error(Ctx + "the object has no map named '" + OuterName + "'");
    if (!IsMapOfMaps(*Outer))
      return Error(Ctx + "map '" + OuterName + "' is a " + platform::mapTypeName(Outer->Type) +
                   ", not a map of maps");
    if (!Outer->Inner.empty())
      return Error(Ctx + "map '" + OuterName + "' has an inner map definition of its own (" +
                   innerDefinitionName(*Outer) + ")");
    if (!Template)
      return Error(Ctx + "the object has no map named '" + TemplateName + "'");
    if (IsMapOfMaps(*Template) || Template->Type == EBPFGPU_MAP_PROG_ARRAY)
      return Error(Ctx + "a " + platform::mapTypeName(Template->Type) + " cannot be an inner map");
    MapSpec Inner = *Template;
    Inner.Name = Outer->Name + ".inner";
    Inner.InitialValue.clear();
    Inner.InitialPrograms.clear();
    Inner.InitialMaps.clear();
    Outer->Inner.push_back(std::move(Inner));
  }
  for (const MapSpec &M : Maps)
    if (Opts.RequireInnerMaps && IsMapOfMaps(M) && M.Inner.empty())
      return Error("map '" + M.Name + "': map of maps without an inner map definition (" +
                   innerDefinitionName(M) +
                   "); name a map of the object whose shape its maps have with --inner-map " +
                   M.Name + "=MAP");
  return std::nullopt;
}

/// Sets the sizes the user gives (entries, key and value bytes) and the
/// map flags; errors on a name that is no map of the object, and on
/// global data's entries, key size and flags (its section's). A global
/// data section's value size resizes the section, as libbpf's does, its
/// BTF in `Btf` (placed) with it.
MaybeError applyMapSizes(std::vector<MapSpec> &Maps, const ReadOptions &Opts,
                         std::vector<uint8_t> &Btf) {
  for (const auto &[Name, Entries] : Opts.MaxEntries) {
    auto It = std::find_if(Maps.begin(), Maps.end(), [&, &Name = Name](const MapSpec &M) {
      return M.Name == Name && M.Origin != platform::MapOrigin::GlobalData;
    });
    if (It == Maps.end())
      return Error("--map-size " + Name + "=" + std::to_string(Entries) +
                   ": the object has no map named '" + Name + "'");
    It->MaxEntries = Entries;
  }
  auto SetSize = [&](const char *What, const std::string &Name, uint32_t Bytes,
                     bool Value) -> MaybeError {
    auto It = std::find_if(Maps.begin(), Maps.end(), [&](const MapSpec &M) {
      return M.Name == Name && M.Origin != platform::MapOrigin::GlobalData;
    });
    std::string Ctx = std::string(What) + " of '" + Name + "': ";
    if (It == Maps.end())
      return Error(Ctx + "the object has no map named '" + Name + "'");
    uint32_t &Size = Value ? It->ValueSize : It->KeySize;
    if (Size == Bytes)
      return std::nullopt;
    // The verifier finds the lock at its BTF offset; a value of another
    // size is not of that type (the kernel refuses the pair).
    if (Value && It->SpinLockOff >= 0)
      return Error(Ctx + "its value holds a bpf_spin_lock: its size is its type's (" +
                   std::to_string(Size) + " bytes)");
    Size = Bytes;
    // As libbpf, which creates the map without BTF when the kernel
    // refuses a type of another size: dumps show such bytes in hex.
    It->BtfKeyTypeId = It->BtfValueTypeId = 0;
    return std::nullopt;
  };
  for (const auto &[Name, Bytes] : Opts.KeySizes)
    if (MaybeError E = SetSize("key size", Name, Bytes, false))
      return E;
  for (const auto &[Name, Bytes] : Opts.ValueSizes) {
    auto Data = std::find_if(Maps.begin(), Maps.end(), [&, &Name = Name](const MapSpec &M) {
      return M.Name == Name && M.Origin == platform::MapOrigin::GlobalData;
    });
    if (MaybeError E = Data != Maps.end() ? resizeDataSection(Btf, *Data, Bytes)
                                          : SetSize("value size", Name, Bytes, true))
      return E;
  }
  for (const auto &[Name, Flags] : Opts.MapFlags) {
    auto It = std::find_if(Maps.begin(), Maps.end(), [&, &Name = Name](const MapSpec &M) {
      return M.Name == Name && M.Origin != platform::MapOrigin::GlobalData;
    });
    if (It == Maps.end())
      return Error("map flags of '" + Name + "': the object has no map named '" + Name + "'");
    It->Flags = Flags;
  }
  return std::nullopt;
}

/// Writes the global data the user gives over the sections' own; errors
/// on a name that is no global data section and on a size not its own.
MaybeError applyInitialValues(std::vector<MapSpec> &Maps, const ReadOptions &Opts) {
  for (const auto &[Name, Bytes] : Opts.InitialValues) {
    auto It = std::find_if(Maps.begin(), Maps.end(), [&, &Name = Name](const MapSpec &M) {
      return M.Name == Name && M.Origin == platform::MapOrigin::GlobalData;
    });
    if (It == Maps.end())
      return Error("initial value of '" + Name + "': the object has no global data section " +
                   "of that name");
    if (Bytes.size() != It->InitialValue.size())
      return Error("initial value of '" + Name + "': " + std::to_string(Bytes.size()) +
                   " bytes for a section of " + std::to_string(It->InitialValue.size()));
    It->InitialValue = Bytes;
  }
  return std::nullopt;
}

} // namespace

/// iproute2's tail call convention (tc's loader, which Cilium's legacy
/// builds were made for): a program in section "ID/KEY" goes into slot KEY
/// of the program array whose struct bpf_elf_map has id ID, filled when the
/// object loads, as a static initialiser's slots are. Numbers as sscanf's
/// %i reads them (decimal, 0x hex, 0 octal); other sections, ids of no
/// program array and slots past its end are left alone.
static void fillLegacyTailSlots(MapTable &T, const std::vector<ProgramSpec> &Progs) {
  auto Number = [](const std::string &S, uint32_t &Out) {
    if (S.empty() || !std::isdigit(uint8_t(S[0])))
      return false;
    char *End = nullptr;
    unsigned long V = std::strtoul(S.c_str(), &End, 0);
    if (*End || V > UINT32_MAX)
      return false;
    Out = uint32_t(V);
    return true;
  };
  for (const ProgramSpec &P : Progs) {
    size_t Slash = P.Section.find('/');
    uint32_t Id, Key;
    if (Slash == std::string::npos || !Number(P.Section.substr(0, Slash), Id) ||
        !Number(P.Section.substr(Slash + 1), Key))
      continue;
    auto It = T.LegacyIds.find(Id);
    if (It == T.LegacyIds.end())
      continue;
    MapSpec &M = T.Maps[It->second];
    if (M.Type != EBPFGPU_MAP_PROG_ARRAY || Key >= M.MaxEntries ||
        std::any_of(M.InitialPrograms.begin(), M.InitialPrograms.end(),
                    [&](const auto &S) { return S.first == Key; }))
      continue;
    M.InitialPrograms.push_back({Key, P.Name});
  }
}

/// Program array slots named by "tail:MAP/SLOT" declaration tags on the
/// programs' functions (Cilium's modern builds, whose loader fills them
/// so): the slot holds the program, where the map is a program array of
/// that many slots, the program one of the object's, and the slot not
/// given already.
static void fillTaggedTailSlots(MapTable &T, const std::vector<ProgramSpec> &Progs,
                                const std::vector<uint8_t> &Btf) {
  for (const TailTag &Tag : readTailTags(Btf)) {
    auto M = std::find_if(T.Maps.begin(), T.Maps.end(),
                          [&](const MapSpec &X) { return X.Name == Tag.Map; });
    if (M == T.Maps.end() || M->Type != EBPFGPU_MAP_PROG_ARRAY || Tag.Slot >= M->MaxEntries ||
        std::none_of(Progs.begin(), Progs.end(),
                     [&](const ProgramSpec &P) { return P.Name == Tag.Program; }) ||
        std::any_of(M->InitialPrograms.begin(), M->InitialPrograms.end(),
                    [&](const auto &S) { return S.first == Tag.Slot; }))
      continue;
    M->InitialPrograms.push_back({Tag.Slot, Tag.Program});
  }
}

Expected<ObjectSpec> readObjectMemory(const uint8_t *Data, size_t Size,
                                      const std::string &Name, const ReadOptions &Opts) {
  Expected<ElfFile> Elf = readElf(Data, Size);
  if (!Elf)
    return Elf.takeError().withContext(Name);
  ObjectSpec Obj;
  Obj.Path = Name;
  Expected<MapTable> Maps = readMaps(*Elf);
  if (!Maps)
    return Maps.takeError().withContext(Name);
  // Global data's BTF as libbpf gives it to the kernel (for dumps by
  // variable), before a section is resized.
  if (const ElfSection *B = Elf->findSection(".BTF"))
    Obj.Btf = B->Bytes;
  placeDataSections(Obj.Btf, Maps->Maps);
  if (MaybeError E = applyMapSizes(Maps->Maps, Opts, Obj.Btf))
    return std::move(*E).withContext(Name);
  if (MaybeError E = applyInnerMapTemplates(Maps->Maps, Opts))
    return std::move(*E).withContext(Name);
  if (MaybeError E = applyInitialValues(Maps->Maps, Opts))
    return std::move(*E).withContext(Name);
  Expected<LineTable> Lines = readLineInfo(*Elf);
  if (!Lines)
    return Lines.takeError().withContext(Name);
  Expected<std::vector<ProgramSpec>> Progs = linkPrograms(*Elf, *Maps, *Lines, Obj.Unlinked);
  if (!Progs)
    return Progs.takeError().withContext(Name);
  if (const ElfSection *L = Elf->findSection("license"))
    Obj.License = std::string(L->Bytes.begin(),
                              std::find(L->Bytes.begin(), L->Bytes.end(), 0));
  fillLegacyTailSlots(*Maps, *Progs);
  fillTaggedTailSlots(*Maps, *Progs, Obj.Btf);
  Obj.Maps = std::move(Maps->Maps);
  Obj.Programs = std::move(*Progs);
  return Obj;
}

Expected<ObjectSpec> readObjectFile(const std::string &Path, const ReadOptions &Opts) {
  auto Bytes = readFileBytes(Path);
  if (!Bytes)
    return Bytes.takeError();
  return readObjectMemory(Bytes->data(), Bytes->size(), Path, Opts);
}

} // namespace ebpfgpu::object

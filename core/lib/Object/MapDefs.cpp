// SPDX-License-Identifier: Apache-2.0
//
// Map definitions of an eBPF object: BTF-defined maps in `.maps` (the
// `__uint(type, ...)`/`__type(key, ...)` convention of bpf_helpers.h), legacy
// `struct bpf_map_def` entries in `maps`, and global data sections, which
// become single-entry array maps as libbpf makes them.

#include "ElfFile.h"

#include <bpf/btf.h>
#include <cstring>
#include <bpf/libbpf.h>
#include <gelf.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>

namespace ebpfgpu::object {

namespace {

struct BtfDeleter {
  void operator()(struct btf *B) const { btf__free(B); }
};
using BtfPtr = std::unique_ptr<struct btf, BtfDeleter>;

bool isDataSection(const ElfSection &S) {
  auto Is = [&](const char *Prefix) {
    std::string P = Prefix;
    return S.Name == P || S.Name.rfind(P + ".", 0) == 0;
  };
  return (S.Type == SHT_PROGBITS || S.Type == SHT_NOBITS) &&
         !(S.Flags & SHF_EXECINSTR) && (Is(".data") || Is(".rodata") || Is(".bss"));
}

/// `int (*name)[N]` encodes the integer N.
Expected<uint32_t> btfIntAttr(const struct btf *B, uint32_t TypeId,
                              const std::string &Attr) {
  const struct btf_type *T = btf__type_by_id(B, TypeId);
  if (!T || !btf_is_ptr(T))
    return Error("map attribute '" + Attr + "' is not of the form int (*)[N]");
  const struct btf_type *Arr = btf__type_by_id(B, btf__resolve_type(B, T->type));
  if (!Arr || !btf_is_array(Arr))
    return Error("map attribute '" + Attr + "' is not of the form int (*)[N]");
  return btf_array(Arr)->nelems;
}

/// `T *name` gives the type T; returns its id and size.
Expected<std::pair<uint32_t, uint32_t>> btfTypeAttr(const struct btf *B,
                                                    uint32_t TypeId,
                                                    const std::string &Attr) {
  const struct btf_type *T = btf__type_by_id(B, TypeId);
  if (!T || !btf_is_ptr(T))
    return Error("map attribute '" + Attr + "' is not a pointer to a type");
  long Size = btf__resolve_size(B, T->type);
  if (Size < 0)
    return Error("cannot size the type of map attribute '" + Attr + "'");
  return std::make_pair(uint32_t(T->type), uint32_t(Size));
}

/// Where the `struct bpf_spin_lock` member of value type `ValueTypeId` is
/// (bytes), -1 when it has none; as the kernel's btf_find_spin_lock, only
/// the value struct's own members count (or a global data section's own
/// variables), and two are an error.
Expected<int32_t> btfSpinLockOff(const struct btf *B, uint32_t ValueTypeId) {
  int Resolved = btf__resolve_type(B, ValueTypeId);
  const struct btf_type *T = Resolved < 0 ? nullptr : btf__type_by_id(B, Resolved);
  auto IsLock = [&](uint32_t TypeId) {
    int R = btf__resolve_type(B, TypeId);
    const struct btf_type *LT = R < 0 ? nullptr : btf__type_by_id(B, R);
    const char *Name = LT && btf_is_struct(LT) ? btf__name_by_offset(B, LT->name_off) : nullptr;
    return Name && std::strcmp(Name, "bpf_spin_lock") == 0;
  };
  // Global data (a DATASEC): a variable of the section that is the lock,
  // as the kernel's btf_find_field finds one among a section's variables
  // (a lock in .bss or .data: `struct bpf_spin_lock glock;`).
  if (T && btf_is_datasec(T)) {
    int32_t Off = -1;
    const struct btf_var_secinfo *Vars = btf_var_secinfos(T);
    for (unsigned I = 0, N = btf_vlen(T); I < N; ++I) {
      const struct btf_type *Var = btf__type_by_id(B, Vars[I].type);
      if (!Var || !btf_is_var(Var) || !IsLock(Var->type))
        continue;
      if (Off >= 0)
        return Error("the section holds more than one struct bpf_spin_lock");
      if (Vars[I].offset % 4 != 0)
        return Error("the section's struct bpf_spin_lock is not 4-byte aligned");
      Off = int32_t(Vars[I].offset);
    }
    return Off;
  }
  if (!T || !btf_is_struct(T))
    return -1;
  int32_t Off = -1;
  const struct btf_member *Members = btf_members(T);
  for (unsigned I = 0, N = btf_vlen(T); I < N; ++I) {
    if (!IsLock(Members[I].type))
      continue;
    if (Off >= 0)
      return Error("the value holds more than one struct bpf_spin_lock");
    uint32_t Bits = btf_member_bit_offset(T, I);
    if (Bits % 32 != 0)
      return Error("the value's struct bpf_spin_lock is not 4-byte aligned");
    Off = int32_t(Bits / 8);
  }
  return Off;
}

MaybeError parseBtfMapDef(const struct btf *B, uint32_t TypeId, MapSpec &M,
                          bool IsInner) {
  int Resolved = btf__resolve_type(B, TypeId);
  const struct btf_type *T = Resolved < 0 ? nullptr : btf__type_by_id(B, Resolved);
  if (!T || !btf_is_struct(T))
    return Error("map definition is not a struct");
  const struct btf_member *Members = btf_members(T);
  for (unsigned I = 0, N = btf_vlen(T); I < N; ++I) {
    const char *NamePtr = btf__name_by_offset(B, Members[I].name_off);
    std::string Name = NamePtr ? NamePtr : "";
    uint32_t MT = Members[I].type;
    auto Int = [&](uint32_t &Field) -> MaybeError {
      Expected<uint32_t> V = btfIntAttr(B, MT, Name);
      if (!V)
        return V.takeError();
      Field = *V;
      return std::nullopt;
    };
    auto Type = [&](uint32_t &Id, uint32_t &Size) -> MaybeError {
      auto V = btfTypeAttr(B, MT, Name);
      if (!V)
        return V.takeError();
      if (Size != 0 && Size != V->second)
        return Error("map attribute '" + Name + "' has size " +
                     std::to_string(V->second) + " but the size given is " +
                     std::to_string(Size));
      Id = V->first;
      Size = V->second;
      return std::nullopt;
    };
    MaybeError Err;
    uint32_t Ignored = 0;
    if (Name == "type")
      Err = Int(M.Type);
    else if (Name == "max_entries")
      Err = Int(M.MaxEntries);
    else if (Name == "map_flags")
      Err = Int(M.Flags);
    else if (Name == "key_size") {
      uint32_t S = 0;
      Err = Int(S);
      if (!Err && M.KeySize != 0 && M.KeySize != S)
        Err = Error("key_size " + std::to_string(S) + " differs from the key type's size");
      M.KeySize = S;
    } else if (Name == "value_size") {
      uint32_t S = 0;
      Err = Int(S);
      if (!Err && M.ValueSize != 0 && M.ValueSize != S)
        Err = Error("value_size " + std::to_string(S) + " differs from the value type's size");
      M.ValueSize = S;
    } else if (Name == "key")
      Err = Type(M.BtfKeyTypeId, M.KeySize);
    else if (Name == "value")
      Err = Type(M.BtfValueTypeId, M.ValueSize);
    else if (Name == "pinning")
      Err = Int(M.Pinning);
    else if (Name == "map_extra")
      Err = Int(M.Extra);
    else if (Name == "numa_node")
      Err = Int(Ignored);
    else if (Name == "values") {
      if (IsInner)
        return Error("an inner map cannot itself hold maps");
      // __array(values, struct inner): an array of pointers to the inner def;
      // for a program array, __array(values, int (void *)): programs.
      const struct btf_type *Arr = btf__type_by_id(B, btf__resolve_type(B, MT));
      const struct btf_type *Ptr =
          Arr && btf_is_array(Arr) ? btf__type_by_id(B, btf_array(Arr)->type) : nullptr;
      if (!Ptr || !btf_is_ptr(Ptr))
        return Error("map attribute 'values' is not an array of pointers");
      if (M.Type == EBPFGPU_MAP_PROG_ARRAY) {
        const struct btf_type *Fn = btf__type_by_id(B, btf__resolve_type(B, Ptr->type));
        if (!Fn || !btf_is_func_proto(Fn))
          return Error("the values of a program array are programs (__array(values, int (void *)))");
        continue;
      }
      MapSpec Inner;
      Inner.Name = M.Name + ".inner";
      if (MaybeError E = parseBtfMapDef(B, Ptr->type, Inner, true))
        return std::move(*E).withContext("inner map");
      M.Inner.push_back(std::move(Inner));
    } else {
      return Error("unknown map attribute '" + Name + "'");
    }
    if (Err)
      return Err;
  }
  if (M.BtfValueTypeId != 0) {
    Expected<int32_t> Lock = btfSpinLockOff(B, M.BtfValueTypeId);
    if (!Lock)
      return Lock.takeError();
    M.SpinLockOff = *Lock;
    // The kernel's map_check_btf: a lock only in array and hash values.
    if (M.SpinLockOff >= 0 && M.Type != EBPFGPU_MAP_ARRAY && M.Type != EBPFGPU_MAP_HASH)
      return Error(std::string("a struct bpf_spin_lock in the value of a ") +
                   platform::mapTypeName(M.Type) +
                   " map (the kernel allows one only in array and hash values)");
  }
  if (M.Type == EBPFGPU_MAP_PROG_ARRAY && M.ValueSize == 0)
    M.ValueSize = 4; // program references, as the kernel's fds
  if (M.Type == EBPFGPU_MAP_ARRAY_OF_MAPS || M.Type == EBPFGPU_MAP_HASH_OF_MAPS) {
    // Without __array(values, ...), the inner definition comes from a
    // template the user names (readObjectFile's ReadOptions), as user space
    // gives libbpf one (bpf_map__set_inner_map_fd); checked after reading.
    // The values of a map of maps are map references: 4 bytes, as the kernel's fds.
    if (M.ValueSize == 0)
      M.ValueSize = 4;
  }
  return std::nullopt;
}

/// Symbols defined in section `Sec`, in address order.
std::vector<const ElfSymbol *> symbolsIn(const ElfFile &Elf, size_t Sec) {
  std::vector<const ElfSymbol *> Out;
  for (const ElfSymbol &S : Elf.Symbols)
    if (S.SectionIndex == Sec && S.Type != STT_SECTION && !S.Name.empty())
      Out.push_back(&S);
  std::stable_sort(Out.begin(), Out.end(), [](const ElfSymbol *A, const ElfSymbol *B) {
    return A->Value < B->Value;
  });
  return Out;
}

bool isMapOfMaps(const MapSpec &M) {
  return M.Type == EBPFGPU_MAP_ARRAY_OF_MAPS || M.Type == EBPFGPU_MAP_HASH_OF_MAPS;
}

/// Whether map M may sit in a slot of a map of maps whose inner definition
/// is Inner (the kernel's bpf_map_meta_equal: an array's size counts unless
/// the inner definition has BPF_F_INNER_MAP).
bool fitsInnerDefinition(const MapSpec &Inner, const MapSpec &M) {
  bool Array = Inner.Type == EBPFGPU_MAP_ARRAY || Inner.Type == EBPFGPU_MAP_PERCPU_ARRAY;
  return M.Origin != platform::MapOrigin::GlobalData && M.Type == Inner.Type &&
         M.KeySize == Inner.KeySize && M.ValueSize == Inner.ValueSize &&
         M.Flags == Inner.Flags &&
         (!Array || (Inner.Flags & platform::MapFlagInnerMap) || M.MaxEntries == Inner.MaxEntries);
}

std::string shapeText(const MapSpec &M) {
  return platform::mapTypeName(M.Type) + " key " + std::to_string(M.KeySize) + "B value " +
         std::to_string(M.ValueSize) + "B max_entries " + std::to_string(M.MaxEntries) +
         (M.Flags ? " flags " + std::to_string(M.Flags) : "");
}

/// iproute2's map-in-map links of one `maps` section (its
/// bpf_maps_attach_all): a map of maps holds maps shaped as the first map
/// whose `id` is its `inner_id`; a map with an `id`, no `inner_id` and an
/// `inner_idx` other than -1 fills slot `inner_idx` of every map of maps
/// whose `inner_id` is that `id`. `Ids[I]` is {id, inner_id, inner_idx} of
/// the section's map First + I. An inner_id that names a map of maps (the
/// map itself, a cycle, or a chain) is refused here, as the kernel refuses
/// maps of maps of maps; so is a slot map of another shape than the inner
/// definition, which iproute2's update of the slot would meet.
MaybeError linkLegacyInnerMaps(std::vector<MapSpec> &Maps, size_t First,
                               const std::vector<std::array<uint32_t, 3>> &Ids) {
  auto ById = [&](uint32_t Id) -> size_t {
    for (size_t I = 0; I < Ids.size(); ++I)
      if (Ids[I][0] == Id)
        return I;
    return Ids.size();
  };
  for (size_t O = 0; O < Ids.size(); ++O) {
    MapSpec &Outer = Maps[First + O];
    if (!isMapOfMaps(Outer) || Ids[O][1] == 0)
      continue;
    std::string Ctx = "map '" + Outer.Name + "': inner_id " + std::to_string(Ids[O][1]);
    size_t T = ById(Ids[O][1]);
    if (T == Ids.size())
      return Error(Ctx + " is the id of no other map of the section");
    if (isMapOfMaps(Maps[First + T])) {
      // Follow the inner_ids from here: back to Outer is a cycle.
      std::string Path = Outer.Name;
      std::vector<bool> Seen(Ids.size(), false);
      Seen[O] = true;
      for (size_t C = T; C < Ids.size() && isMapOfMaps(Maps[First + C]); C = ById(Ids[C][1])) {
        Path += " -> " + Maps[First + C].Name;
        if (C == O)
          return Error(Ctx + " makes a cycle of maps of maps (" + Path +
                       "); a map of maps cannot hold maps of maps");
        if (Seen[C] || Ids[C][1] == 0)
          break;
        Seen[C] = true;
      }
      return Error(Ctx + " names '" + Maps[First + T].Name + "', a " +
                   platform::mapTypeName(Maps[First + T].Type) +
                   "; a map of maps cannot hold maps of maps");
    }
    const MapSpec &Template = Maps[First + T];
    if (Template.Type == EBPFGPU_MAP_PROG_ARRAY)
      return Error(Ctx + " names '" + Template.Name +
                   "', a prog_array, which cannot be an inner map");
    MapSpec Inner = Template;
    Inner.Name = Outer.Name + ".inner";
    Inner.Pinning = 0;
    Outer.Inner.push_back(std::move(Inner));
  }
  for (size_t I = 0; I < Ids.size(); ++I) {
    if (Ids[I][0] == 0 || Ids[I][1] != 0 || Ids[I][2] == UINT32_MAX ||
        isMapOfMaps(Maps[First + I]))
      continue;
    const MapSpec &Slot = Maps[First + I];
    for (size_t O = 0; O < Ids.size(); ++O) {
      MapSpec &Outer = Maps[First + O];
      if (!isMapOfMaps(Outer) || Ids[O][1] != Ids[I][0])
        continue;
      if (Outer.Type == EBPFGPU_MAP_ARRAY_OF_MAPS && Ids[I][2] >= Outer.MaxEntries)
        return Error("map '" + Slot.Name + "': inner_idx " +
                     std::to_string(Ids[I][2]) + " is past the " +
                     std::to_string(Outer.MaxEntries) + " slots of '" + Outer.Name + "'");
      if (!fitsInnerDefinition(Outer.Inner[0], Slot))
        return Error("map '" + Slot.Name + "': inner_idx " + std::to_string(Ids[I][2]) +
                     ": its shape (" + shapeText(Slot) + ") is not that of the maps of '" +
                     Outer.Name + "' (" + shapeText(Outer.Inner[0]) + ", from '" +
                     Maps[First + ById(Ids[O][1])].Name + "', its inner_id " +
                     std::to_string(Ids[O][1]) + ")");
      Outer.InitialMaps.push_back({Ids[I][2], Slot.Name});
    }
  }
  return std::nullopt;
}

/// `struct bpf_map_def` (libbpf: type, key_size, value_size, max_entries,
/// map_flags) or iproute2's `struct bpf_elf_map`, which adds id, pinning,
/// inner_id and inner_idx (36 bytes; as iproute2, a shorter definition
/// reads the fields it lacks as 0; a longer one must hold zeros past them).
MaybeError readLegacyMaps(const ElfFile &Elf, const ElfSection &Sec, MapTable &T) {
  std::vector<const ElfSymbol *> Syms = symbolsIn(Elf, Sec.Index);
  if (Syms.empty())
    return std::nullopt;
  uint64_t DefSize = Sec.Size / Syms.size();
  if (DefSize < 5 * sizeof(uint32_t) || Sec.Bytes.size() != Sec.Size)
    return Error("section " + Sec.Name + ": map definitions are smaller than struct bpf_map_def");
  // As iproute2 and libbpf before 1.0: every definition has one size, the
  // section's size over the number of maps.
  if (Sec.Size % Syms.size() != 0)
    return Error("section " + Sec.Name + ": " + std::to_string(Sec.Size) +
                 " bytes do not divide into " + std::to_string(Syms.size()) +
                 " map definitions of one size");
  size_t First = T.Maps.size();
  std::vector<std::array<uint32_t, 3>> Ids;
  for (const ElfSymbol *S : Syms) {
    if (S->Value + DefSize > Sec.Size)
      return Error("section " + Sec.Name + ": map '" + S->Name + "' extends past the section");
    if (S->Value % DefSize != 0)
      return Error("section " + Sec.Name + ": map '" + S->Name + "' starts at byte " +
                   std::to_string(S->Value) + ", not at a multiple of the " +
                   std::to_string(DefSize) + "-byte definitions");
    // Past struct bpf_elf_map: iproute2 refuses the whole, libbpf before 1.0
    // took zeros; fields from a future layout are not to be dropped silently.
    for (uint64_t B = 9 * sizeof(uint32_t); B < DefSize; ++B)
      if (Sec.Bytes[S->Value + B] != 0)
        return Error("section " + Sec.Name + ": map '" + S->Name + "': byte " +
                     std::to_string(B) + " of its " + std::to_string(DefSize) +
                     "-byte definition is not 0; struct bpf_elf_map has 36 bytes");
    auto Field = [&](unsigned I) {
      uint32_t V = 0;
      if (4 * (I + 1) <= DefSize)
        std::memcpy(&V, Sec.Bytes.data() + S->Value + 4 * I, 4);
      return V;
    };
    MapSpec M;
    M.Name = S->Name;
    M.Origin = platform::MapOrigin::Legacy;
    M.Type = Field(0);
    M.KeySize = Field(1);
    M.ValueSize = Field(2);
    M.MaxEntries = Field(3);
    M.Flags = Field(4);
    M.Pinning = Field(6);
    Ids.push_back({Field(5), Field(7), Field(8)});
    if (Field(5))
      T.LegacyIds[Field(5)] = T.Maps.size();
    T.BySymbol[{Sec.Index, S->Value}] = T.Maps.size();
    T.Maps.push_back(std::move(M));
  }
  if (MaybeError E = linkLegacyInnerMaps(T.Maps, First, Ids))
    return std::move(*E).withContext("section " + Sec.Name);
  return std::nullopt;
}

/// A program array's or map of maps' static initialiser (`.values = {
/// [1] = &prog }`): the relocations of `.maps` inside the map's `values`
/// member, one per slot, naming a program or a map.
MaybeError readInitialSlots(const ElfFile &Elf, const ElfSection &Sec, const ElfSymbol &Var,
                            const struct btf *B, uint32_t TypeId, MapSpec &M) {
  const struct btf_type *T = btf__type_by_id(B, btf__resolve_type(B, TypeId));
  uint64_t ValuesAt = 0;
  bool Found = false;
  const struct btf_member *Members = btf_members(T);
  for (unsigned I = 0, N = btf_vlen(T); I < N; ++I) {
    const char *Name = btf__name_by_offset(B, Members[I].name_off);
    if (Name && std::string(Name) == "values") {
      ValuesAt = btf_member_bit_offset(T, I) / 8;
      Found = true;
    }
  }
  auto It = Elf.Relocs.find(Sec.Index);
  if (!Found || It == Elf.Relocs.end())
    return std::nullopt;
  for (const ElfReloc &R : It->second) {
    if (R.Offset < Var.Value + ValuesAt || R.Offset >= Var.Value + Var.Size)
      continue;
    uint64_t Slot = (R.Offset - Var.Value - ValuesAt) / 8;
    if (R.SymbolIndex >= Elf.Symbols.size() || Slot >= M.MaxEntries)
      return Error("bad relocation in the initial slots");
    if (M.Type == EBPFGPU_MAP_PROG_ARRAY)
      M.InitialPrograms.push_back({uint32_t(Slot), Elf.Symbols[R.SymbolIndex].Name});
    else
      M.InitialMaps.push_back({uint32_t(Slot), Elf.Symbols[R.SymbolIndex].Name});
  }
  return std::nullopt;
}

MaybeError readBtfMaps(const ElfFile &Elf, const ElfSection &Sec, MapTable &T) {
  const ElfSection *BtfSec = Elf.findSection(".BTF");
  if (!BtfSec || BtfSec->Bytes.empty())
    return Error("section .maps needs BTF (compile with -g)");
  BtfPtr B(btf__new(BtfSec->Bytes.data(), uint32_t(BtfSec->Bytes.size())));
  if (libbpf_get_error(B.get())) {
    B.release();
    return Error("cannot parse the .BTF section");
  }
  int DataSec = btf__find_by_name_kind(B.get(), ".maps", BTF_KIND_DATASEC);
  if (DataSec < 0)
    return Error("BTF has no description of section .maps");
  const struct btf_type *DS = btf__type_by_id(B.get(), DataSec);
  // Variables by name, to match the ELF symbols that relocations refer to.
  std::map<std::string, uint32_t> VarTypeByName;
  const struct btf_var_secinfo *Vars = btf_var_secinfos(DS);
  for (unsigned I = 0, N = btf_vlen(DS); I < N; ++I) {
    const struct btf_type *V = btf__type_by_id(B.get(), Vars[I].type);
    if (!V || !btf_is_var(V))
      return Error("BTF of .maps holds something other than variables");
    const char *Name = btf__name_by_offset(B.get(), V->name_off);
    VarTypeByName[Name ? Name : ""] = V->type;
  }
  for (const ElfSymbol *S : symbolsIn(Elf, Sec.Index)) {
    auto It = VarTypeByName.find(S->Name);
    if (It == VarTypeByName.end())
      return Error("map '" + S->Name + "' has no BTF description");
    MapSpec M;
    M.Name = S->Name;
    M.Origin = platform::MapOrigin::BtfDefined;
    if (MaybeError E = parseBtfMapDef(B.get(), It->second, M, false))
      return std::move(*E).withContext("map '" + S->Name + "'");
    if (M.Type == EBPFGPU_MAP_PROG_ARRAY || M.Type == EBPFGPU_MAP_ARRAY_OF_MAPS ||
        M.Type == EBPFGPU_MAP_HASH_OF_MAPS)
      if (MaybeError E = readInitialSlots(Elf, Sec, *S, B.get(), It->second, M))
        return std::move(*E).withContext("map '" + S->Name + "'");
    T.BySymbol[{Sec.Index, S->Value}] = T.Maps.size();
    T.Maps.push_back(std::move(M));
  }
  return std::nullopt;
}

/// Data section `M` (named as its section)'s BTF: its DATASEC type, as
/// libbpf gives the kernel for a global data map's value (0 without BTF
/// that has one), and a struct bpf_spin_lock variable of it.
MaybeError readDataSectionBtf(const ElfFile &Elf, MapSpec &M) {
  const ElfSection *BtfSec = Elf.findSection(".BTF");
  if (!BtfSec || BtfSec->Bytes.empty())
    return std::nullopt;
  BtfPtr B(btf__new(BtfSec->Bytes.data(), uint32_t(BtfSec->Bytes.size())));
  if (libbpf_get_error(B.get())) {
    B.release();
    return std::nullopt;
  }
  int Id = btf__find_by_name_kind(B.get(), M.Name.c_str(), BTF_KIND_DATASEC);
  if (Id <= 0)
    return std::nullopt;
  M.BtfValueTypeId = uint32_t(Id);
  Expected<int32_t> Lock = btfSpinLockOff(B.get(), M.BtfValueTypeId);
  if (!Lock)
    return Error("section " + M.Name + ": " + Lock.takeError().message());
  M.SpinLockOff = *Lock;
  return std::nullopt;
}

MaybeError readDataSection(const ElfFile &Elf, const ElfSection &Sec, MapTable &T) {
  // A .bss section's size is only a header field: it must be checked
  // before it sizes memory (fuzz_verifier: 0x2d000000000008 bytes).
  if (Sec.Size > MaxDataSectionBytes)
    return Error("section " + Sec.Name + ": " + std::to_string(Sec.Size) +
                 " bytes of global data; at most " + std::to_string(MaxDataSectionBytes) +
                 " (ebpf-gpu's limit)");
  MapSpec M;
  M.Name = Sec.Name;
  M.Origin = platform::MapOrigin::GlobalData;
  M.Type = EBPFGPU_MAP_ARRAY;
  M.KeySize = 4;
  M.ValueSize = uint32_t(Sec.Size);
  M.MaxEntries = 1;
  if (Sec.Name.rfind(".rodata", 0) == 0)
    M.Flags = platform::MapFlagReadOnlyProg;
  M.InitialValue = Sec.Bytes;
  M.InitialValue.resize(Sec.Size, 0);
  if (MaybeError E = readDataSectionBtf(Elf, M))
    return E;
  for (const ElfSymbol &S : Elf.Symbols)
    if (S.SectionIndex == Sec.Index && S.Type == 1 /* STT_OBJECT */ && !S.Name.empty())
      M.Variables.emplace_back(S.Name, S.Value);
  std::stable_sort(M.Variables.begin(), M.Variables.end(),
                   [](const auto &A, const auto &B) { return A.second < B.second; });
  T.ByDataSection[Sec.Index] = T.Maps.size();
  T.Maps.push_back(std::move(M));
  return std::nullopt;
}

} // namespace

Expected<MapTable> readMaps(const ElfFile &Elf) {
  MapTable T;
  for (const ElfSection &S : Elf.Sections) {
    MaybeError Err;
    if (S.Name == "maps" || S.Name.rfind("maps/", 0) == 0)
      Err = readLegacyMaps(Elf, S, T);
    else if (S.Name == ".maps")
      Err = readBtfMaps(Elf, S, T);
    else if (isDataSection(S) && S.Size > 0)
      Err = readDataSection(Elf, S, T);
    if (Err)
      return std::move(*Err);
  }
  return T;
}

std::string mapPinningName(const MapSpec &M) {
  if (M.Pinning == 0)
    return "";
  if (M.Origin == platform::MapOrigin::Legacy)
    return M.Pinning == 1   ? "object_ns"
           : M.Pinning == 2 ? "global_ns"
                            : "custom " + std::to_string(M.Pinning);
  return M.Pinning == 1 ? "by_name" : "type " + std::to_string(M.Pinning);
}

std::vector<size_t> innerMapCandidates(const std::vector<MapSpec> &Maps, size_t Outer) {
  std::vector<size_t> Out;
  const MapSpec &O = Maps[Outer];
  if ((O.Type != EBPFGPU_MAP_ARRAY_OF_MAPS && O.Type != EBPFGPU_MAP_HASH_OF_MAPS) ||
      O.Inner.empty())
    return Out;
  for (size_t I = 0; I < Maps.size(); ++I)
    if (fitsInnerDefinition(O.Inner[0], Maps[I]))
      Out.push_back(I);
  std::stable_sort(Out.begin(), Out.end(),
                   [&](size_t A, size_t B) { return Maps[A].Name < Maps[B].Name; });
  return Out;
}

} // namespace ebpfgpu::object

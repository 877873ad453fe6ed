// SPDX-License-Identifier: Apache-2.0
//
// Global data sections' BTF as libbpf makes it before the kernel sees it:
// each section's DATASEC given the section's size and its variables'
// offsets (an object leaves both at 0), variables in offset order; and a
// section resized between open and load (libbpf's bpf_map__set_value_size
// on global data), its last variable's array grown or shrunk to the new
// size, or the map's BTF type dropped where that cannot be done, as libbpf
// drops it (the resize itself still happens).

#include "ElfFile.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <memory>

namespace ebpfgpu::object {

namespace {

struct BtfDeleter {
  void operator()(struct btf *B) const { btf__free(B); }
};
using BtfPtr = std::unique_ptr<struct btf, BtfDeleter>;

BtfPtr parse(const std::vector<uint8_t> &Bytes) {
  if (Bytes.empty())
    return nullptr;
  struct btf *B = btf__new(Bytes.data(), uint32_t(Bytes.size()));
  return libbpf_get_error(B) ? nullptr : BtfPtr(B);
}

/// A type of `B` to change in place. libbpf hands types out const; they
/// are its own copy of the bytes, written back by btf__raw_data.
struct btf_type *mutableType(struct btf *B, uint32_t Id) {
  return const_cast<struct btf_type *>(btf__type_by_id(B, Id));
}

std::vector<uint8_t> rawBytes(const struct btf *B) {
  uint32_t Size = 0;
  const auto *Raw = static_cast<const uint8_t *>(btf__raw_data(B, &Size));
  return Raw ? std::vector<uint8_t>(Raw, Raw + Size) : std::vector<uint8_t>();
}

/// Type `Id` past typedefs and qualifiers.
const struct btf_type *skipModsAndTypedefs(const struct btf *B, uint32_t Id) {
  const struct btf_type *T = btf__type_by_id(B, Id);
  for (int Depth = 0; T && (btf_is_mod(T) || btf_is_typedef(T)) && Depth < 32;
       ++Depth)
    T = btf__type_by_id(B, T->type);
  return T;
}

/// Whether section `M`'s BTF (in `B`, placed) can follow its resize to
/// `Size` bytes: its last variable an array whose elements fill the bytes
/// from the variable on. Then its DATASEC, the variable and a new array
/// type of that many elements say so.
bool resizeLastArray(struct btf *B, const MapSpec &M, uint32_t Size) {
  const struct btf_type *DS = btf__type_by_id(B, M.BtfValueTypeId);
  if (!DS || !btf_is_datasec(DS) || btf_vlen(DS) == 0)
    return false;
  uint32_t Last = btf_vlen(DS) - 1;
  const struct btf_var_secinfo &V = btf_var_secinfos(DS)[Last];
  const struct btf_type *Var = btf__type_by_id(B, V.type);
  const struct btf_type *Arr =
      Var && btf_is_var(Var) ? skipModsAndTypedefs(B, Var->type) : nullptr;
  if (!Arr || !btf_is_array(Arr))
    return false;
  const struct btf_array A = *btf_array(Arr);
  long long Elem = btf__resolve_size(B, A.type);
  if (Elem <= 0 || Size < V.offset || (Size - V.offset) % uint64_t(Elem) != 0)
    return false;
  uint32_t Offset = V.offset, VarId = V.type;
  // A new array type, as the old one may be another variable's or
  // member's too.
  int NewArray =
      btf__add_array(B, A.index_type, A.type, uint32_t((Size - Offset) / Elem));
  if (NewArray < 0)
    return false;
  // (Adding a type moved the types: their pointers are taken again.)
  struct btf_type *Sec = mutableType(B, M.BtfValueTypeId);
  Sec->size = Size;
  btf_var_secinfos(Sec)[Last].size = Size - Offset;
  mutableType(B, VarId)->type = uint32_t(NewArray);
  return true;
}

} // namespace

void placeDataSections(std::vector<uint8_t> &Btf,
                       const std::vector<MapSpec> &Maps) {
  BtfPtr B = parse(Btf);
  if (!B)
    return;
  bool Changed = false;
  for (const MapSpec &M : Maps) {
    if (M.Origin != platform::MapOrigin::GlobalData || !M.BtfValueTypeId)
      continue;
    struct btf_type *DS = mutableType(B.get(), M.BtfValueTypeId);
    if (!DS || !btf_is_datasec(DS))
      continue;
    DS->size = M.ValueSize;
    struct btf_var_secinfo *Vars = btf_var_secinfos(DS);
    for (uint32_t I = 0, N = btf_vlen(DS); I < N; ++I) {
      const struct btf_type *Var = btf__type_by_id(B.get(), Vars[I].type);
      const char *Name =
          Var ? btf__name_by_offset(B.get(), Var->name_off) : nullptr;
      auto It =
          std::find_if(M.Variables.begin(), M.Variables.end(),
                       [&](const auto &P) { return Name && P.first == Name; });
      if (It != M.Variables.end())
        Vars[I].offset = uint32_t(It->second);
    }
    std::stable_sort(Vars, Vars + btf_vlen(DS),
                     [](const btf_var_secinfo &A, const btf_var_secinfo &C) {
                       return A.offset < C.offset;
                     });
    Changed = true;
  }
  if (Changed)
    Btf = rawBytes(B.get());
}

MaybeError resizeDataSection(std::vector<uint8_t> &Btf, MapSpec &M,
                             uint32_t Size) {
  if (Size > MaxDataSectionBytes)
    return Error("value size of '" + M.Name + "': " + std::to_string(Size) +
                 " bytes of global data; at most " +
                 std::to_string(MaxDataSectionBytes) + " (ebpf-gpu's limit)");
  if (Size == M.ValueSize)
    return std::nullopt;
  M.ValueSize = Size;
  M.InitialValue.resize(Size, 0);
  BtfPtr B = parse(Btf);
  if (!B || !M.BtfValueTypeId)
    return std::nullopt;
  if (resizeLastArray(B.get(), M, Size)) {
    Btf = rawBytes(B.get());
    return std::nullopt;
  }
  // libbpf: "failed to adjust resized BTF, clearing BTF key/value info".
  M.BtfKeyTypeId = M.BtfValueTypeId = 0;
  return std::nullopt;
}

} // namespace ebpfgpu::object

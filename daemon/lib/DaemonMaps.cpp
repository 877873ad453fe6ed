// SPDX-License-Identifier: Apache-2.0
//
// The daemon's map requests: list, show, dump, lookup, update, delete, each
// answered with a JSON result or one error.

#include "DaemonArgs.h"
#include "ebpf-gpu/Daemon/DaemonState.h"
#include "DaemonText.h"

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Abi/Model.h"
#include "ebpf-gpu/Abi/Patterns.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Platform/MapShape.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <cstring>

namespace ebpfgpu::tools {

using json::Value;
using namespace daemon;

Value DaemonState::mapJson(const Map &M) const {
  return Value::object()
      .set("id", M.Id)
      .set("prog_id", M.ProgId)
      .set("name", M.Info.Name)
      .set("type", M.Info.GlobalData ? "array" : platform::mapTypeName(M.Info.Type))
      .set("key_size", M.Info.KeySize)
      .set("value_size", M.Info.ValueSize)
      .set("max_entries", M.Info.MaxEntries)
      .set("flags", M.Info.Flags)
      .set("global_data", M.Info.GlobalData)
      .set("read_only", M.Info.ReadOnly)
      .set("btf_key_type_id", M.Info.BtfKeyTypeId)
      .set("btf_value_type_id", M.Info.BtfValueTypeId);
}

Expected<DaemonState::Map *> DaemonState::mapArg(const Value &Args) {
  const Value *Id = Args.get("id");
  const Value *Name = Args.get("name");
  if (Id && !Id->isNull()) {
    std::optional<uint64_t> N = Id->u64();
    auto It = N ? Maps.find(uint32_t(*N)) : Maps.end();
    if (!N || *N > UINT32_MAX || It == Maps.end())
      return Error("no map with id " + Id->text());
    return &It->second;
  }
  if (!Name || !Name->isString())
    return Error("name the map: \"id\" (a number) or \"name\" (a string)");
  std::vector<Map *> Found;
  for (auto &[MId, M] : Maps)
    if (M.Info.Name == Name->text())
      Found.push_back(&M);
  if (Found.empty())
    return Error("no map named '" + Name->text() + "'");
  if (Found.size() > 1) {
    std::string Ids;
    for (Map *M : Found)
      Ids += (Ids.empty() ? "" : ", ") + std::to_string(M->Id);
    return Error("several maps are named '" + Name->text() + "' (ids " + Ids + "); name one by id");
  }
  return Found[0];
}

Value DaemonState::entryJson(const Map &M, const uint8_t *Key, const uint8_t *Val) const {
  Value E = Value::object()
                .set("key", hexList(Key, M.Info.KeySize))
                .set("value", hexList(Val, M.Info.ValueSize));
  const Program &P = Programs.at(M.ProgId);
  if (!P.Btf || !M.Info.BtfValueTypeId)
    return E;
  Value F = Value::object();
  std::optional<std::string> K =
      M.Info.BtfKeyTypeId ? P.Btf->format(M.Info.BtfKeyTypeId, Key, M.Info.KeySize) : std::nullopt;
  if (K) {
    if (auto J = json::parse(*K))
      F.set("key", std::move(*J));
  } else if (M.Info.KeySize == 4 && !ebpfgpu_map_is_hashed(M.Info.Type)) {
    uint32_t Index;
    std::memcpy(&Index, Key, 4);
    F.set("key", Index); // arrays: the index
  }
  if (auto V = P.Btf->format(M.Info.BtfValueTypeId, Val, M.Info.ValueSize))
    if (auto J = json::parse(*V))
      F.set("value", std::move(*J));
  if (!F.members().empty())
    E.set("formatted", std::move(F));
  return E;
}

Expected<Value> DaemonState::mapList() {
  Value L = Value::array();
  for (const auto &[Id, M] : Maps)
    L.push(mapJson(M));
  return L;
}

Expected<Value> DaemonState::mapShow(const Value &Args) {
  auto M = mapArg(Args);
  if (!M)
    return M.takeError();
  return mapJson(**M);
}

Expected<Value> DaemonState::mapDump(const Value &Args) {
  auto M = mapArg(Args);
  if (!M)
    return M.takeError();
  const Map &Mp = **M;
  Value Entries = Value::array();
  runtime::BatchExecutor &Exec = *Programs.at(Mp.ProgId).Exec;
  MaybeError E = Exec.accessMap(Mp.Info.Name, [&](ebpfgpu_map &H, bool &) -> MaybeError {
    abi::forEachMapEntry(
        H, [&](const uint8_t *K, const uint8_t *V) { Entries.push(entryJson(Mp, K, V)); });
    return std::nullopt;
  });
  if (E)
    return std::move(*E);
  return Value::object().set("map", mapJson(Mp)).set("entries", std::move(Entries));
}

Expected<Value> DaemonState::mapLookup(const Value &Args) {
  auto M = mapArg(Args);
  if (!M)
    return M.takeError();
  const Map &Mp = **M;
  if (Mp.Info.Type == EBPFGPU_MAP_BLOOM_FILTER)
    return Error("map '" + Mp.Info.Name +
                 "': a bloom filter holds no values to look up (programs ask it with "
                 "bpf_map_peek_elem)");
  auto Key = bytesArg(Args, "key", Mp.Info.KeySize, Mp.Info.Name);
  if (!Key)
    return Key.takeError();
  std::optional<Value> Found;
  MaybeError E = Programs.at(Mp.ProgId).Exec->accessMap(
      Mp.Info.Name, [&](ebpfgpu_map &H, bool &) -> MaybeError {
        const uint8_t *V = abi::hostMapLookup(H, Key->data());
        if (!V)
          return std::nullopt;
        std::vector<uint8_t> Sum =
            ebpfgpu_map_is_percpu(H.type)
                ? abi::sumPerCpuValues(V, H.value_size, H.value_stride, H.nslices)
                : std::vector<uint8_t>(V, V + H.value_size);
        Found = entryJson(Mp, Key->data(), Sum.data());
        return std::nullopt;
      });
  if (E)
    return std::move(*E);
  if (!Found)
    return Error("map '" + Mp.Info.Name + "': no such key (ENOENT)");
  return std::move(*Found);
}

/// A pattern or model map's contents replaced by the file at `Args`'s
/// "file", compiled before the program's batches are held back; the map is
/// written whole while none runs (accessMap), so a batch scans the old
/// automaton or the new one. A bad file leaves the old contents.
static Expected<Value> loadBlobMap(runtime::BatchExecutor &Exec, const runtime::MapInfo &Info,
                                   uint32_t Id, const Value &Args) {
  const bool Model = ebpfgpu_map_is_model(Info.Type);
  const std::string Kind = Model ? "model" : "pattern";
  if (Args.get("key") || Args.get("value"))
    return Error("map '" + Info.Name + "' is a " + Kind + " map: it takes a " + Kind +
                 " file (map update MAP file PATH), not keys and values");
  auto Path = stringArg(Args, "file");
  if (!Path)
    return Path.takeError();
  if (Path->empty() || (*Path)[0] != '/')
    return Error("file '" + *Path + "' must be absolute (the daemon's directory is not yours)");
  auto Text = readFileBytes(*Path);
  if (!Text)
    return Error("map '" + Info.Name + "': " + Text.error().message());
  bool IsModel = false;
  auto Contents =
      loader::compileMapContents(std::string(Text->begin(), Text->end()), *Path, &IsModel);
  if (!Contents)
    return Error("map '" + Info.Name + "': " + Contents.error().message());
  MaybeError E = Exec.accessMap(Info.Name, [&](ebpfgpu_map &H, bool &Changed) -> MaybeError {
    if (MaybeError W = abi::setMapEntry(Info.Name, H, {}, *Contents))
      return W;
    Changed = true;
    return std::nullopt;
  });
  if (E)
    return std::move(*E);
  return Value::object()
      .set("map", Id)
      .set("updated", true)
      .set("contents", IsModel ? abi::describeModel(Contents->data())
                               : "pattern set of " + abi::describePatterns(Contents->data()));
}

Expected<Value> DaemonState::mapUpdate(const Value &Args) {
  auto M = mapArg(Args);
  if (!M)
    return M.takeError();
  const Map &Mp = **M;
  if (Mp.Info.ReadOnly)
    return Error("map '" + Mp.Info.Name +
                 "' is read-only (.rodata is folded into the compiled program)");
  if (ebpfgpu_map_is_blob(Mp.Info.Type))
    return loadBlobMap(*Programs.at(Mp.ProgId).Exec, Mp.Info, Mp.Id, Args);
  if (Args.get("file"))
    return Error("map '" + Mp.Info.Name + "' (" + platform::mapTypeName(Mp.Info.Type) +
                 ") takes keys and values: a file is for pattern and model maps");
  auto Key = bytesArg(Args, "key", Mp.Info.KeySize, Mp.Info.Name);
  if (!Key)
    return Key.takeError();
  if (Args.get("inner")) {
    // A program array's slot or a map of maps': a program or map of the
    // same load, by name (the executor holds batches back while it writes).
    auto Inner = stringArg(Args, "inner");
    if (!Inner)
      return Inner.takeError();
    if (MaybeError E = Programs.at(Mp.ProgId).Exec->setInnerMap(Mp.Info.Name, *Key, *Inner))
      return std::move(*E);
    return Value::object().set("map", Mp.Id).set("updated", true);
  }
  auto Val = bytesArg(Args, "value", Mp.Info.ValueSize, Mp.Info.Name);
  if (!Val)
    return Val.takeError();
  auto FlagName = stringArg(Args, "flags", false);
  if (!FlagName)
    return FlagName.takeError();
  uint64_t Flags = 0; // BPF_ANY
  if (*FlagName == "noexist")
    Flags = 1;
  else if (*FlagName == "exist")
    Flags = 2;
  else if (!FlagName->empty() && *FlagName != "any")
    return Error("flags must be any, noexist or exist");
  MaybeError E =
      Programs.at(Mp.ProgId).Exec->accessMap(Mp.Info.Name, [&](ebpfgpu_map &H, bool &Changed) {
        int64_t Rc = abi::hostMapUpdate(H, Key->data(), Val->data(), Flags);
        if (Rc != 0)
          return MaybeError(Error("map '" + Mp.Info.Name + "': update: " + errnoText(Rc)));
        Changed = true;
        return MaybeError();
      });
  if (E)
    return std::move(*E);
  return Value::object().set("map", Mp.Id).set("updated", true);
}

Expected<Value> DaemonState::mapDelete(const Value &Args) {
  auto M = mapArg(Args);
  if (!M)
    return M.takeError();
  const Map &Mp = **M;
  if (ebpfgpu_map_is_keyless(Mp.Info.Type)) // the kernel's answers
    return Error("map '" + Mp.Info.Name + "': " + platform::mapTypeName(Mp.Info.Type) +
                 " maps have no keys to delete (" +
                 (Mp.Info.Type == EBPFGPU_MAP_BLOOM_FILTER ? "EOPNOTSUPP" : "EINVAL") + ")");
  if (!ebpfgpu_map_is_hashed(Mp.Info.Type))
    return Error("map '" + Mp.Info.Name + "': arrays have no keys to delete (EINVAL)");
  auto Key = bytesArg(Args, "key", Mp.Info.KeySize, Mp.Info.Name);
  if (!Key)
    return Key.takeError();
  MaybeError E =
      Programs.at(Mp.ProgId).Exec->accessMap(Mp.Info.Name, [&](ebpfgpu_map &H, bool &Changed) {
        int64_t Rc = abi::hostMapDelete(H, Key->data());
        if (Rc != 0)
          return MaybeError(Error("map '" + Mp.Info.Name + "': delete: " + errnoText(Rc)));
        Changed = true;
        return MaybeError();
      });
  if (E)
    return std::move(*E);
  return Value::object().set("map", Mp.Id).set("deleted", true);
}

} // namespace ebpfgpu::tools

// SPDX-License-Identifier: Apache-2.0
//
// The `.gpu.o`'s metadata (`.ebpfgpu.meta`) as one schema: a table of its
// lines and one of a map line's attributes, each row naming the field, its
// type, the format that added it, how it is written and how it is read, so
// that the writer (ebpf-gpu-cc) and the reader (the loader) cannot drift
// apart. The line after the magic names the format (`format 2`); a file
// without it is format 1, as ebpf-gpu-cc wrote them before the line
// existed, and still reads. A field may appear only in files of its format
// or later; a format newer than this reader's is refused, saying so.

#include "GpuObjectMeta.h"

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Support/EnumWords.h"

#include <cstdlib>
#include <sstream>

namespace ebpfgpu::abi {

namespace {

/// The first line of every format (its 1 is not the format: it was there
/// before the `format` line, and stays so that files of format 1 read).
constexpr const char *MetaMagic = "ebpf-gpu object 1";

/// The metadata's words for a map's origin (`origin=`).
constexpr EnumWord<platform::MapOrigin> OriginWords[] = {
    {platform::MapOrigin::BtfDefined, "btf"},
    {platform::MapOrigin::Legacy, "legacy"},
    {platform::MapOrigin::GlobalData, "data"},
};

bool readNumber(const std::string &V, uint32_t &Out) {
  char *End = nullptr;
  unsigned long long N = std::strtoull(V.c_str(), &End, 10);
  if (V.empty() || *End || N > UINT32_MAX)
    return false;
  Out = uint32_t(N);
  return true;
}

/// The row of `Table` for `Key`, or why a file of `Format` may not have it
/// (`What`: "metadata" for a line, "map attribute").
template <typename Row, size_t N>
Expected<const Row *> rowFor(const Row (&Table)[N], const std::string &Key, const char *What,
                             unsigned Format) {
  for (const Row &R : Table)
    if (Key == R.Key) {
      if (R.Since > Format)
        return Error(std::string(What) + " '" + Key + "' is of format " +
                     std::to_string(R.Since) + ", the object says format " +
                     std::to_string(Format));
      return &R;
    }
  return Error("unknown " + std::string(What) + " '" + Key + "'");
}

/// One attribute of a `map` line, `KEY=VALUE`.
struct MapField {
  const char *Key;
  const char *Type;
  unsigned Since;
  /// The value, or none where the attribute is left out.
  std::optional<std::string> (*Write)(const platform::MapSpec &);
  /// False when `Value` is malformed.
  bool (*Read)(platform::MapSpec &, const std::string &Value);
};

/// A member of the map's spec written always: text as it is, a u32 in
/// decimal.
template <std::string platform::MapSpec::*Member> MapField textField(const char *Key) {
  return {Key, "text", 1,
          [](const platform::MapSpec &M) -> std::optional<std::string> { return M.*Member; },
          [](platform::MapSpec &M, const std::string &V) {
            M.*Member = V;
            return true;
          }};
}
template <uint32_t platform::MapShape::*Member> MapField u32Field(const char *Key) {
  return {Key, "u32", 1,
          [](const platform::MapSpec &M) -> std::optional<std::string> {
            return std::to_string(M.*Member);
          },
          [](platform::MapSpec &M, const std::string &V) { return readNumber(V, M.*Member); }};
}

/// A BTF type id of the map's spec (format 3), written where not 0.
template <uint32_t platform::MapSpec::*Member> MapField btfIdField(const char *Key) {
  return {Key, "u32", 3,
          [](const platform::MapSpec &M) -> std::optional<std::string> {
            if (!(M.*Member))
              return std::nullopt;
            return std::to_string(M.*Member);
          },
          [](platform::MapSpec &M, const std::string &V) { return readNumber(V, M.*Member); }};
}

const MapField MapFields[] = {
    textField<&platform::MapSpec::Name>("name"),
    u32Field<&platform::MapShape::Type>("type"),
    u32Field<&platform::MapShape::KeySize>("key"),
    u32Field<&platform::MapShape::ValueSize>("value"),
    u32Field<&platform::MapShape::MaxEntries>("max_entries"),
    u32Field<&platform::MapShape::Flags>("flags"),
    {"origin", "btf|legacy|data", 1,
     [](const platform::MapSpec &M) -> std::optional<std::string> {
       return std::string(wordOf(OriginWords, M.Origin));
     },
     [](platform::MapSpec &M, const std::string &V) {
       std::optional<platform::MapOrigin> O = valueOf(OriginWords, V);
       M.Origin = O.value_or(M.Origin);
       return O.has_value();
     }},
    textField<&platform::MapSpec::ObjectGlobal>("object"),
    textField<&platform::MapSpec::DataGlobal>("data"),
    // map_extra (bloom filters): absent where 0, as before it was carried.
    {"extra", "u32", 1,
     [](const platform::MapSpec &M) -> std::optional<std::string> {
       if (!M.Extra)
         return std::nullopt;
       return std::to_string(M.Extra);
     },
     [](platform::MapSpec &M, const std::string &V) { return readNumber(V, M.Extra); }},
    // BTF type ids of key and value (a data section's DATASEC as value),
    // for the daemon's pretty-printing: absent where 0 (a format-2 file's
    // maps print in hex).
    btfIdField<&platform::MapSpec::BtfKeyTypeId>("btf_key"),
    btfIdField<&platform::MapSpec::BtfValueTypeId>("btf_value"),
    // What the programs may change (format 4): "none", "keys", "values" or
    // "keys,values"; absent (an older file): both, as nothing is known.
    {"program_writes", "none|keys|values|keys,values", 4,
     [](const platform::MapSpec &M) -> std::optional<std::string> {
       if (!M.ProgramChangesKeys && !M.ProgramWritesValues)
         return std::string("none");
       return std::string(M.ProgramChangesKeys ? "keys" : "") +
              (M.ProgramChangesKeys && M.ProgramWritesValues ? "," : "") +
              (M.ProgramWritesValues ? "values" : "");
     },
     [](platform::MapSpec &M, const std::string &V) {
       if (V != "none" && V != "keys" && V != "values" && V != "keys,values")
         return false;
       M.ProgramChangesKeys = V == "keys" || V == "keys,values";
       M.ProgramWritesValues = V == "values" || V == "keys,values";
       return true;
     }},
    // Where a value's bpf_spin_lock is (format 6), absent where it has
    // none: the loader's updates leave that word (MapAbi.h: spin_lock).
    {"spin_lock", "u32", 6,
     [](const platform::MapSpec &M) -> std::optional<std::string> {
       if (M.SpinLockOff < 0)
         return std::nullopt;
       return std::to_string(M.SpinLockOff);
     },
     [](platform::MapSpec &M, const std::string &V) {
       uint32_t Off = 0;
       if (!readNumber(V, Off) || Off > INT32_MAX)
         return false;
       M.SpinLockOff = int32_t(Off);
       return true;
     }},
    // SLOT:VALUE,... (program arrays: program id + 1; maps of maps: index
    // in the inner map table + 1).
    {"slots", "u32:u32,...", 1,
     [](const platform::MapSpec &M) -> std::optional<std::string> {
       if (M.ProgramSlots.empty())
         return std::nullopt;
       std::string Out;
       for (const auto &[Slot, Value] : M.ProgramSlots) {
         if (!Out.empty())
           Out += ',';
         Out += std::to_string(Slot);
         Out += ':';
         Out += std::to_string(Value);
       }
       return Out;
     },
     [](platform::MapSpec &M, const std::string &V) {
       std::istringstream P(V);
       for (std::string Pair; std::getline(P, Pair, ',');) {
         size_t Colon = Pair.find(':');
         uint32_t Slot = 0, Value = 0;
         if (Colon == std::string::npos || !readNumber(Pair.substr(0, Colon), Slot) ||
             !readNumber(Pair.substr(Colon + 1), Value))
           return false;
         M.ProgramSlots.push_back({Slot, Value});
       }
       return true;
     }},
    // NAME,... (maps of maps: the inner map table).
    {"inner", "text,...", 1,
     [](const platform::MapSpec &M) -> std::optional<std::string> {
       if (M.InnerMaps.empty())
         return std::nullopt;
       std::string Out;
       for (const std::string &N : M.InnerMaps)
         Out += (Out.empty() ? "" : ",") + N;
       return Out;
     },
     [](platform::MapSpec &M, const std::string &V) {
       std::istringstream P(V);
       for (std::string N; std::getline(P, N, ',');) {
         if (N.empty())
           return false;
         M.InnerMaps.push_back(N);
       }
       return true;
     }},
};

/// One line of the metadata, `KEY VALUE`, once per value.
struct ObjectField {
  const char *Key;
  const char *Type;
  unsigned Since;
  /// The line's values, one line each (none: the line is left out).
  std::vector<std::string> (*Write)(const GpuObjectSpec &);
  /// Reads one line's value (the rest of the line) of a file of `Format`.
  MaybeError (*Read)(GpuObjectSpec &, const std::string &Value, unsigned Format);
};

MaybeError readMap(GpuObjectSpec &S, const std::string &Line, unsigned Format) {
  platform::MapSpec M;
  std::istringstream L(Line);
  for (std::string KV; L >> KV;) {
    size_t Eq = KV.find('=');
    if (Eq == std::string::npos)
      return Error("bad map attribute '" + KV + "'");
    std::string K = KV.substr(0, Eq), V = KV.substr(Eq + 1);
    Expected<const MapField *> F = rowFor(MapFields, K, "map attribute", Format);
    if (!F)
      return F.takeError();
    if (!(*F)->Read(M, V))
      return Error("bad value for map attribute '" + K + "'");
  }
  S.Maps.push_back(std::move(M));
  return std::nullopt;
}

std::vector<std::string> one(const std::string &V) { return {V}; }

/// A text member of the object's spec, one line written always.
template <std::string GpuObjectSpec::*Member> ObjectField objectText(const char *Key) {
  return {Key, "text", 1, [](const GpuObjectSpec &S) { return one(S.*Member); },
          [](GpuObjectSpec &S, const std::string &V, unsigned) -> MaybeError {
            S.*Member = V;
            return std::nullopt;
          }};
}

const ObjectField ObjectFields[] = {
    objectText<&GpuObjectSpec::Program>("program"),
    objectText<&GpuObjectSpec::Section>("section"),
    {"platform", "xdp|raw", 1,
     [](const GpuObjectSpec &S) { return one(platform::platformName(S.Platform)); },
     [](GpuObjectSpec &S, const std::string &V, unsigned) -> MaybeError {
       std::optional<platform::PlatformKind> P = valueOf(platform::PlatformWords, V);
       if (!P)
         return Error("unknown platform '" + V + "'");
       S.Platform = *P;
       return std::nullopt;
     }},
    objectText<&GpuObjectSpec::Kernel>("kernel"),
    objectText<&GpuObjectSpec::Target>("target"),
    {"stack", "u32", 1, [](const GpuObjectSpec &S) { return one(std::to_string(S.StackBytes)); },
     [](GpuObjectSpec &S, const std::string &V, unsigned) -> MaybeError {
       uint32_t N;
       if (!readNumber(V, N))
         return Error("bad stack size '" + V + "'");
       S.StackBytes = N;
       return std::nullopt;
     }},
    {"verified", "yes|no", 1,
     [](const GpuObjectSpec &S) { return one(S.Verified ? "yes" : "no"); },
     [](GpuObjectSpec &S, const std::string &V, unsigned) -> MaybeError {
       S.Verified = V == "yes";
       return std::nullopt;
     }},
    {"runtime_abi", "u32", 1,
     [](const GpuObjectSpec &S) { return one(std::to_string(S.RuntimeAbi)); },
     [](GpuObjectSpec &S, const std::string &V, unsigned) -> MaybeError {
       if (!readNumber(V, S.RuntimeAbi))
         return Error("bad runtime ABI '" + V + "'");
       return std::nullopt;
     }},
    // Only where the verifier proved it; absent otherwise.
    {"packets", "read-only", 1,
     [](const GpuObjectSpec &S) {
       return S.PacketsReadOnly ? one("read-only") : std::vector<std::string>();
     },
     [](GpuObjectSpec &S, const std::string &V, unsigned) -> MaybeError {
       if (V != "read-only")
         return Error("bad packet access '" + V + "'");
       S.PacketsReadOnly = true;
       return std::nullopt;
     }},
    // Only where the atomics are at system scope (format 5); absent for
    // the default, .gpu.
    {"atomics", "system", 5,
     [](const GpuObjectSpec &S) {
       return S.SystemScopeAtomics ? one("system") : std::vector<std::string>();
     },
     [](GpuObjectSpec &S, const std::string &V, unsigned) -> MaybeError {
       if (V != "system")
         return Error("bad atomics scope '" + V + "'");
       S.SystemScopeAtomics = true;
       return std::nullopt;
     }},
    {"helper", "text", 1, [](const GpuObjectSpec &S) { return S.Helpers; },
     [](GpuObjectSpec &S, const std::string &V, unsigned) -> MaybeError {
       S.Helpers.push_back(V);
       return std::nullopt;
     }},
    {"map", "KEY=VALUE ...", 1,
     [](const GpuObjectSpec &S) {
       std::vector<std::string> Lines;
       for (const platform::MapSpec &M : S.Maps) {
         std::string L;
         for (const MapField &F : MapFields)
           if (std::optional<std::string> V = F.Write(M)) {
             if (!L.empty())
               L += ' ';
             L += F.Key;
             L += '=';
             L += *V;
           }
         Lines.push_back(L);
       }
       return Lines;
     },
     readMap},
};

} // namespace

std::vector<MetaField> metaSchema() {
  std::vector<MetaField> Out = {{"", "format", "u32", 2}};
  for (const ObjectField &F : ObjectFields)
    Out.push_back({"", F.Key, F.Type, F.Since});
  for (const MapField &F : MapFields)
    Out.push_back({"map", F.Key, F.Type, F.Since});
  return Out;
}

std::string metaText(const GpuObjectSpec &S) {
  std::string Out = std::string(MetaMagic) + "\nformat " + std::to_string(GpuObjectFormat) + "\n";
  for (const ObjectField &F : ObjectFields)
    for (const std::string &V : F.Write(S))
      Out += std::string(F.Key) + " " + V + "\n";
  return Out;
}

MaybeError parseMeta(const std::string &Text, GpuObjectSpec &S) {
  std::istringstream In(Text);
  std::string Line;
  if (!std::getline(In, Line) || Line != MetaMagic)
    return Error("not an ebpf-gpu object (no '" + std::string(MetaMagic) + "' header)");
  std::vector<std::string> Lines;
  while (std::getline(In, Line))
    Lines.push_back(Line);
  // The format: the line after the magic, or 1 where it is absent.
  uint32_t Format = 1;
  size_t First = 0;
  if (!Lines.empty() && Lines[0].rfind("format ", 0) == 0) {
    std::string V = Lines[0].substr(7);
    if (!readNumber(V, Format) || Format == 0)
      return Error("bad format '" + V + "'");
    if (Format > GpuObjectFormat)
      return Error("metadata of format " + V + "; this loader reads formats 1 to " +
                   std::to_string(GpuObjectFormat) + ": load it with a newer ebpf-gpu");
    First = 1;
  }
  S.RuntimeAbi = 0;
  bool HasPlatform = false;
  for (size_t I = First; I < Lines.size(); ++I) {
    std::istringstream L(Lines[I]);
    std::string Key, Value;
    L >> Key;
    std::getline(L >> std::ws, Value);
    if (Key.empty() || Key == "seal") // the seal is the container's (GpuObject.cpp)
      continue;
    Expected<const ObjectField *> F = rowFor(ObjectFields, Key, "metadata", Format);
    if (!F)
      return F.takeError();
    if (MaybeError E = (*F)->Read(S, Value, Format))
      return E;
    HasPlatform |= Key == "platform";
  }
  if (S.Kernel.empty() || !HasPlatform)
    return Error("metadata lacks the kernel or platform");
  if (S.RuntimeAbi != EBPFGPU_RUNTIME_ABI)
    return Error("compiled for runtime ABI " + std::to_string(S.RuntimeAbi) +
                 (S.RuntimeAbi ? "" : " (an older ebpf-gpu-cc)") + "; this loader has ABI " +
                 std::to_string(EBPFGPU_RUNTIME_ABI) +
                 " (map layouts, key hashing or kernel arguments differ): compile it again");
  return std::nullopt;
}

} // namespace ebpfgpu::abi

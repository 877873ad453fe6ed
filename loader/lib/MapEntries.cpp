// SPDX-License-Identifier: Apache-2.0
//
// Parsing map entries given as text.

#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Abi/Model.h"
#include "ebpf-gpu/Abi/Patterns.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <algorithm>
#include <cctype>

namespace ebpfgpu::loader {

std::optional<std::vector<uint8_t>> parseHexBytes(const std::string &Text) {
  std::string Digits;
  for (char C : Text)
    if (!std::isspace(static_cast<unsigned char>(C)))
      Digits += C;
  if (Digits.size() % 2)
    return std::nullopt;
  std::vector<uint8_t> Out;
  for (size_t I = 0; I < Digits.size(); I += 2) {
    if (!std::isxdigit(static_cast<unsigned char>(Digits[I])) ||
        !std::isxdigit(static_cast<unsigned char>(Digits[I + 1])))
      return std::nullopt;
    Out.push_back(uint8_t(std::stoul(Digits.substr(I, 2), nullptr, 16)));
  }
  return Out;
}

std::optional<MapEntry> parseMapEntry(const std::string &Text) {
  size_t A = Text.find(':');
  size_t B = A == std::string::npos ? A : Text.find(':', A + 1);
  if (A != std::string::npos && A > 0 && A + 1 < Text.size() && Text[A + 1] == '@') {
    // "MAP:@FILE": a pattern map's file (which may hold ':' itself).
    if (A + 2 >= Text.size())
      return std::nullopt;
    MapEntry E;
    E.Map = Text.substr(0, A);
    E.PatternFile = Text.substr(A + 2);
    return E;
  }
  if (A == std::string::npos || B == std::string::npos || A == 0)
    return std::nullopt;
  auto Key = parseHexBytes(Text.substr(A + 1, B - A - 1));
  if (B + 1 < Text.size() && Text[B + 1] == '@') {
    std::string Inner = Text.substr(B + 2);
    bool Ok = !Inner.empty() && std::all_of(Inner.begin(), Inner.end(), [](unsigned char C) {
      return std::isalnum(C) || C == '_' || C == '.';
    });
    if (!Key || Key->empty() || !Ok)
      return std::nullopt;
    return MapEntry{Text.substr(0, A), *Key, {}, Inner, ""};
  }
  // No key ("MAP::VALUEHEX"): a push into a queue, stack or bloom filter.
  auto Value = parseHexBytes(Text.substr(B + 1));
  if (!Key || !Value || Value->empty())
    return std::nullopt;
  return MapEntry{Text.substr(0, A), *Key, *Value, {}, ""};
}

Expected<std::vector<MapEntry>> parseMapText(const std::string &Text, const std::string &Name) {
  std::vector<MapEntry> Out;
  size_t At = 0;
  for (unsigned N = 1; At < Text.size(); ++N) {
    size_t End = Text.find('\n', At);
    std::string Line = Text.substr(At, End == std::string::npos ? std::string::npos : End - At);
    At = End == std::string::npos ? Text.size() : End + 1;
    Line = Line.substr(0, Line.find('#'));
    Line.erase(
        std::remove_if(Line.begin(), Line.end(), [](unsigned char C) { return std::isspace(C); }),
        Line.end());
    if (Line.empty())
      continue;
    auto E = parseMapEntry(Line);
    if (!E)
      return Error(Name + ":" + std::to_string(N) +
                   ": expected MAP:KEYHEX:VALUEHEX, MAP::VALUEHEX (no key: a queue, stack or "
                   "bloom filter), MAP:KEYHEX:@INNER or MAP:@FILE (a pattern map's rules)");
    Out.push_back(std::move(*E));
  }
  return Out;
}

Expected<std::vector<uint8_t>> compileMapContents(const std::string &Text,
                                                  const std::string &Name, bool *IsModel) {
  const bool Model = abi::looksLikeModelText(Text);
  if (IsModel)
    *IsModel = Model;
  if (Model) {
    auto Spec = abi::parseModelText(Text, Name);
    if (!Spec)
      return Spec.error();
    auto Out = abi::compileModel(*Spec);
    if (!Out)
      return Error(Name + ": " + Out.error().message());
    return Out;
  }
  auto Rules = abi::parsePatternText(Text, Name);
  if (!Rules)
    return Rules.error();
  return abi::compilePatterns(*Rules, Name);
}

MaybeError compilePatternEntry(MapEntry &E, const std::string &BaseDir) {
  if (E.PatternFile.empty())
    return std::nullopt;
  std::string Path = E.PatternFile;
  if (!BaseDir.empty() && Path[0] != '/')
    Path = BaseDir + "/" + Path;
  // A model file says so on its first line; any other file is rules.
  auto Text = readFileBytes(Path);
  if (!Text)
    return Error("map '" + E.Map + "': " + Text.error().message());
  auto Compiled = compileMapContents(std::string(Text->begin(), Text->end()), Path);
  if (!Compiled)
    return Error("map '" + E.Map + "': " + Compiled.error().message());
  E.Value = std::move(*Compiled);
  E.PatternFile = Path; // as read: a program loaded later reads it from here
  return std::nullopt;
}

Expected<std::vector<MapEntry>> readMapFile(const std::string &Path) {
  auto Bytes = readFileBytes(Path);
  if (!Bytes)
    return Bytes.takeError();
  auto Entries = parseMapText(std::string(Bytes->begin(), Bytes->end()), Path);
  if (!Entries)
    return Entries;
  size_t Slash = Path.rfind('/');
  std::string Dir = Slash == std::string::npos ? "." : Path.substr(0, Slash);
  for (MapEntry &E : *Entries)
    if (MaybeError Err = compilePatternEntry(E, Dir))
      return *Err;
  return Entries;
}

} // namespace ebpfgpu::loader

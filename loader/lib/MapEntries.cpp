// SPDX-License-Identifier: Apache-2.0
//
// Parsing map entries given as text.

#include "ebpf-gpu/Loader/MapEntries.h"
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
    return MapEntry{Text.substr(0, A), *Key, {}, Inner};
  }
  // No key ("MAP::VALUEHEX"): a push into a queue, stack or bloom filter.
  auto Value = parseHexBytes(Text.substr(B + 1));
  if (!Key || !Value || Value->empty())
    return std::nullopt;
  return MapEntry{Text.substr(0, A), *Key, *Value, {}};
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
                   "bloom filter) or MAP:KEYHEX:@INNER");
    Out.push_back(std::move(*E));
  }
  return Out;
}

Expected<std::vector<MapEntry>> readMapFile(const std::string &Path) {
  auto Bytes = readFileBytes(Path);
  if (!Bytes)
    return Bytes.takeError();
  return parseMapText(std::string(Bytes->begin(), Bytes->end()), Path);
}

} // namespace ebpfgpu::loader

// SPDX-License-Identifier: Apache-2.0
//
// Map entries an operator gives before a run, as text: one entry
// "MAP:KEYHEX:VALUEHEX" (the bytes as the map stores them; for a map of
// maps "MAP:KEYHEX:@INNER", the name of the map the slot holds; for a
// pattern map "MAP:@FILE", a pattern file compiled into the automaton that
// is the map's whole content: docs/KFUNCS.md), or a file of them, one a
// line, with '#' comments. Shared by the loader's --map-set / --map-file
// and the benchmark harness.

#ifndef EBPF_GPU_LOADER_MAPENTRIES_H
#define EBPF_GPU_LOADER_MAPENTRIES_H

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ebpfgpu::loader {

struct MapEntry {
  std::string Map;
  std::vector<uint8_t> Key, Value;
  /// Maps of maps: "MAP:KEYHEX:@INNER" makes the slot hold the map named
  /// INNER (Value is then empty).
  std::string Inner;
  /// Pattern and model maps: "MAP:@FILE" names a pattern file or a model
  /// file; compilePatternEntry makes Value its automaton or its model (Key
  /// stays empty).
  std::string PatternFile;
};

/// Bytes from hex text (white space ignored); nothing when it is not hex.
std::optional<std::vector<uint8_t>> parseHexBytes(const std::string &Text);

/// "MAP:KEYHEX:VALUEHEX", "MAP:KEYHEX:@INNER" or "MAP:@FILE"; nothing when
/// malformed or a part is empty, but for the key of "MAP::VALUEHEX" (maps
/// without keys: queue, stack, bloom filter, whose update is a push). Reads
/// no file.
std::optional<MapEntry> parseMapEntry(const std::string &Text);

/// A "MAP:@FILE" entry's file read and compiled into its Value: a model
/// (abi/Model.h) when its first line is `ebpf-gpu-model`, else a pattern
/// set (a relative FILE taken from `BaseDir` when that is not empty, and
/// PatternFile made the path it was read from); other entries are left
/// alone. Errors name the file and the line.
MaybeError compilePatternEntry(MapEntry &E, const std::string &BaseDir = "");

/// The text of a model file (its first line `ebpf-gpu-model`) or a pattern
/// file compiled into what a model or pattern map holds; `Name` is the
/// file's name in errors ("NAME:LINE: why"). Also says which it was.
Expected<std::vector<uint8_t>> compileMapContents(const std::string &Text,
                                                  const std::string &Name, bool *IsModel = nullptr);

/// Every entry of map-file text (one entry a line, '#' comments); errors
/// say "NAME:LINE: why".
Expected<std::vector<MapEntry>> parseMapText(const std::string &Text, const std::string &Name);
/// parseMapText of the file at `Path`, its pattern files (relative to the
/// file's folder) compiled; errors name the file and the line.
Expected<std::vector<MapEntry>> readMapFile(const std::string &Path);

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_MAPENTRIES_H

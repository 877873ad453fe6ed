// SPDX-License-Identifier: Apache-2.0
//
// Pattern sets for pattern maps (EBPFGPU_MAP_PATTERNS, the kfunc
// ebpf_gpu_match): the pattern file's text read into rules, the rules
// compiled into the automaton the scan runs (MapAbi.h: struct
// ebpfgpu_patterns, MapPatterns.inc), and an automaton's bytes checked
// before they go into a map, since the scan trusts them. Pure functions of
// their arguments; thread-safe. docs/KFUNCS.md gives the file format and
// the layout.

#ifndef EBPF_GPU_ABI_PATTERNS_H
#define EBPF_GPU_ABI_PATTERNS_H

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::abi {

/// One rule: its id (what ebpf_gpu_match returns) and its literal bytes.
struct PatternRule {
  uint32_t Id = 0;
  std::vector<uint8_t> Bytes;
};

/// The rules of pattern-file text: one a line, the id its line number
/// (from 1) or an explicit `id:N ` prefix; `\xHH`, `\\` and `\|` escapes,
/// `|41 42|` hex runs (Snort's content syntax); blank lines and lines
/// starting with '#' skipped. Errors say "NAME:LINE: why".
Expected<std::vector<PatternRule>> parsePatternText(const std::string &Text,
                                                    const std::string &Name);

/// The automaton of `Rules` (at least one), as a pattern map holds it.
/// Errors: no rules, more states than the layout holds.
Expected<std::vector<uint8_t>> compilePatterns(const std::vector<PatternRule> &Rules);

/// parsePatternText then compilePatterns of the file at `Path`.
Expected<std::vector<uint8_t>> compilePatternFile(const std::string &Path);

/// Why `Bytes` is not an automaton the scan may run, or "" when it is:
/// its header, sizes, classes and every transition are checked.
std::string checkPatterns(const uint8_t *Bytes, size_t Size);

/// "R rules, S states, C byte classes, B bytes" of a checked automaton.
std::string describePatterns(const uint8_t *Bytes);

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_PATTERNS_H

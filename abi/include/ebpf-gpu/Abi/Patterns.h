// SPDX-License-Identifier: Apache-2.0
//
// Pattern sets for pattern maps (EBPFGPU_MAP_PATTERNS, the kfunc
// ebpf_gpu_match): the pattern file's text read into rules, the rules
// compiled into the automata the scans run (MapAbi.h: struct
// ebpfgpu_patterns, MapPatterns.inc), and a set's bytes checked before
// they go into a map, since the scans trust them. Pure functions of
// their arguments; thread-safe. docs/KFUNCS.md gives the file format and
// the layout.

#ifndef EBPF_GPU_ABI_PATTERNS_H
#define EBPF_GPU_ABI_PATTERNS_H

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::abi {

/// One rule: its id (what ebpf_gpu_match returns) and its literal bytes,
/// or a regex of the subset docs/KFUNCS.md gives (`re:/REGEX/FLAGS`).
struct PatternRule {
  uint32_t Id = 0;
  std::vector<uint8_t> Bytes; ///< a literal rule's
  bool IsRegex = false;
  std::string Regex; ///< between the slashes, as written
  bool Nocase = false; ///< flag i: ASCII letters match either case
  uint32_t Line = 0; ///< in its file, for errors about the set (0: none)
};

/// The rules of pattern-file text: one a line, the id its line number
/// (from 1) or an explicit `id:N ` prefix; `\xHH`, `\\` and `\|` escapes,
/// `|41 42|` hex runs (Snort's content syntax), or `re:/REGEX/` with an
/// optional flag `i` (the regex's syntax checked here); blank lines and
/// lines starting with '#' skipped. Errors say "NAME:LINE: why".
Expected<std::vector<PatternRule>> parsePatternText(const std::string &Text,
                                                    const std::string &Name);

/// The pattern set of `Rules` (at least one), as a pattern map holds it:
/// the literal rules' Aho-Corasick automaton and the regex rules' DFA (at
/// most EBPFGPU_PATTERNS_MAX_DFA_STATES states), each where the rules
/// have some, behind the set's header. Errors: no rules, more states than
/// the layout holds, a regex outside the subset, a DFA past the cap
/// (naming the regex rule whose addition crosses it); "NAME:LINE: why"
/// when `Name` is given, else "rule on line LINE: why".
Expected<std::vector<uint8_t>> compilePatterns(const std::vector<PatternRule> &Rules,
                                               const std::string &Name = "");

/// parsePatternText then compilePatterns of the file at `Path`.
Expected<std::vector<uint8_t>> compilePatternFile(const std::string &Path);

/// Why `Bytes` is not a pattern set the scans may run, or "" when it is:
/// its header, each automaton's place, sizes, classes, every transition
/// and output list are checked.
std::string checkPatterns(const uint8_t *Bytes, size_t Size);

/// "R rules, S states, C byte classes, B bytes" of a checked set of one
/// automaton; "R rules: L literal (S states, C byte classes), X regex
/// (S states, C byte classes), B bytes" of one with both.
std::string describePatterns(const uint8_t *Bytes);

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_PATTERNS_H

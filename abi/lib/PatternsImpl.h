// SPDX-License-Identifier: Apache-2.0
//
// Between the pattern file's reader and compiler (Patterns.cpp) and the
// regex subset's compiler (PatternRegex.cpp): a regex rule's syntax
// checked alone, and the DFA of a file's first rules, literal or regex.

#ifndef EBPF_GPU_ABI_PATTERNSIMPL_H
#define EBPF_GPU_ABI_PATTERNSIMPL_H

#include "ebpf-gpu/Abi/Patterns.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The subset construction's cap (EBPFGPU_PATTERNS_MAX_DFA_STATES in
// MapAbi.h caps the minimised DFA, what the map holds): what a set may
// need before minimisation; the construction's memory is about
// 12 * nclasses bytes a state.
#ifndef EBPFGPU_PATTERNS_MAX_DFA_BUILD_STATES
#define EBPFGPU_PATTERNS_MAX_DFA_BUILD_STATES (4u * EBPFGPU_PATTERNS_MAX_DFA_STATES)
#endif

namespace ebpfgpu::abi::detail {

/// Why the regex of `R` is not in the subset, or "" (a literal rule: "").
std::string checkRegex(const PatternRule &R);

/// The DFA of the first `Count` rules, or Why and the rule that failed.
struct DfaResult {
  std::string Why;            ///< "" on success
  size_t Rule = 0;            ///< the rule Why is about (not for TooManyStates)
  bool TooManyStates = false; ///< the set, not one rule's syntax, is the reason
  uint8_t Classes[256] = {};
  uint32_t NClasses = 0;
  std::vector<uint32_t> Next;                ///< nstates * NClasses, no flags
  std::vector<std::vector<int32_t>> Outputs; ///< each state's rule ids, ascending
  uint32_t BuiltStates = 0;                  ///< states before minimisation
};
/// The subset construction stops past `BuildStates` states; the minimised
/// DFA may have at most `MaxStates` (without `Minimise`, as built: the
/// tests' reference).
DfaResult compileDfa(const std::vector<PatternRule> &Rules, size_t Count, uint32_t MaxStates,
                     uint32_t BuildStates, bool Minimise = true);

/// Replaces D's DFA (Next, Outputs) by the minimal one with the same
/// answers: two states merge when every input leads both to states with
/// the same output lists. State 0 stays the start.
void minimiseDfa(DfaResult &D);

} // namespace ebpfgpu::abi::detail

#endif // EBPF_GPU_ABI_PATTERNSIMPL_H

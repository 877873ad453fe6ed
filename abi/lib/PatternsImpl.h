// SPDX-License-Identifier: Apache-2.0
//
// Between the pattern file's reader and compiler (Patterns.cpp) and the
// regex subset's compiler (PatternRegex.cpp): a regex rule's syntax
// checked alone, and the DFA of a file's first rules, literal or regex.

#ifndef EBPF_GPU_ABI_PATTERNSIMPL_H
#define EBPF_GPU_ABI_PATTERNSIMPL_H

#include "ebpf-gpu/Abi/Patterns.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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
};
DfaResult compileDfa(const std::vector<PatternRule> &Rules, size_t Count, uint32_t MaxStates);

} // namespace ebpfgpu::abi::detail

#endif // EBPF_GPU_ABI_PATTERNSIMPL_H

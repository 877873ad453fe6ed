// SPDX-License-Identifier: Apache-2.0
//
// An enum's words where it is written as text (a `.gpu.o`'s metadata, a
// tool's option): one table of (value, word) per enum, written and read
// through the same two functions, so that a word and its value cannot drift
// apart between the side that writes and the side that reads.

#ifndef EBPF_GPU_SUPPORT_ENUMWORDS_H
#define EBPF_GPU_SUPPORT_ENUMWORDS_H

#include <cstddef>
#include <optional>
#include <string_view>

namespace ebpfgpu {

template <typename E> struct EnumWord {
  E Value;
  std::string_view Word;
};

/// The word of `V` in `Table` (a literal: NUL-terminated); empty when the
/// table lacks the value, which is a bug of the table.
template <typename E, size_t N>
constexpr std::string_view wordOf(const EnumWord<E> (&Table)[N], E V) {
  for (const EnumWord<E> &W : Table)
    if (W.Value == V)
      return W.Word;
  return {};
}

/// The value whose word is `Word` in `Table`, or none.
template <typename E, size_t N>
constexpr std::optional<E> valueOf(const EnumWord<E> (&Table)[N], std::string_view Word) {
  for (const EnumWord<E> &W : Table)
    if (W.Word == Word)
      return W.Value;
  return std::nullopt;
}

} // namespace ebpfgpu

#endif // EBPF_GPU_SUPPORT_ENUMWORDS_H

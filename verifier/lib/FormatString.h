// SPDX-License-Identifier: Apache-2.0
//
// The format strings of bpf_snprintf, parsed as the kernel's verifier
// parses them at load time (check_bpf_snprintf_call, which runs
// bpf_bprintf_prepare over the constant): which conversions it has, each
// taking one u64 of the data argument, and what each does with its u64:
// print it, or read memory through it. The runtime's formatter
// (compiler/lib/Runtime/FormatHelpers.inc) follows the same rules.

#ifndef EBPF_GPU_VERIFIER_FORMATSTRING_H
#define EBPF_GPU_VERIFIER_FORMATSTRING_H

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::verifier::detail {

/// What a conversion does with its u64.
enum class FormatArg : uint8_t {
  Number, ///< %d %i %u %x %X, with l or ll
  Char,   ///< %c
  String, ///< %s, %pks: reads a NUL-terminated string through it
  Ip4,    ///< %pI4, %pi4: reads 4 bytes through it
  Ip6,    ///< %pI6, %pi6: reads 16 bytes through it
};

/// The conversions of a format, or why it is refused (Error not empty).
struct FormatParse {
  std::vector<FormatArg> Args;
  std::string Error;
};

/// Parses the format in `Fmt`, up to its first NUL (or its end). Refused as
/// the kernel refuses them: a character neither printable nor a space, a
/// conversion other than the kernel's, %s followed by a letter or digit;
/// and, though the kernel takes them, the %p forms that print a kernel
/// address or symbol or read user memory (%p %pK %px %ps %pS %pB %pus),
/// which have no meaning here.
FormatParse parseFormat(const std::vector<uint8_t> &Fmt, size_t From);

/// "%s" and the like: how diagnostics name a conversion.
const char *formatArgName(FormatArg A);

} // namespace ebpfgpu::verifier::detail

#endif // EBPF_GPU_VERIFIER_FORMATSTRING_H

// SPDX-License-Identifier: Apache-2.0
//
// The program type a program is compiled for, as the code carries it from
// the compiler's Platform through a `.gpu.o` to the loader, and its one
// word where it is text (ebpf-gpu-cc's --platform, the `.gpu.o`'s
// `platform` line). Header-only, for the libraries built without the
// compiler.

#ifndef EBPF_GPU_PLATFORM_PLATFORMKIND_H
#define EBPF_GPU_PLATFORM_PLATFORMKIND_H

#include "ebpf-gpu/Support/EnumWords.h"

namespace ebpfgpu::platform {

enum class PlatformKind {
  Xdp, ///< XDP programs (context struct xdp_md), run over batches of packets.
  Raw, ///< bpf_conformance's memory model: r1 = input memory, r2 = its length.
};

inline constexpr EnumWord<PlatformKind> PlatformWords[] = {
    {PlatformKind::Xdp, "xdp"},
    {PlatformKind::Raw, "raw"},
};

/// The word of `K` ("xdp", "raw").
inline const char *platformName(PlatformKind K) { return wordOf(PlatformWords, K).data(); }

} // namespace ebpfgpu::platform

#endif // EBPF_GPU_PLATFORM_PLATFORMKIND_H

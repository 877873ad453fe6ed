// SPDX-License-Identifier: Apache-2.0
//
// The secrets of the SYN cookie helpers (compiler/lib/Runtime/
// SyncookieHelpers.inc): two SipHash keys, as the kernel's
// syncookie_secret, drawn once a process from the system's random source.
// The host back end reads them here and the loader copies them into every
// GPU module that has the helpers, so a cookie one back end makes checks on
// the other within a process.

#ifndef EBPF_GPU_ABI_SYNCOOKIESECRET_H
#define EBPF_GPU_ABI_SYNCOOKIESECRET_H

#include <cstddef>
#include <cstdint>

namespace ebpfgpu::abi {

/// The device library's global holding the secrets (uint64_t[4]).
inline constexpr const char *SyncookieSecretGlobal = "ebpfgpu_syncookie_secret";
inline constexpr size_t SyncookieSecretBytes = 4 * sizeof(uint64_t);

/// The process's secrets: four 64-bit words, the same for every call,
/// drawn at the first (getrandom; thread-safe). If the system gives no
/// random bytes, the process ends with a message: cookies anyone could
/// compute would defeat their purpose.
const uint64_t *syncookieSecret();

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_SYNCOOKIESECRET_H

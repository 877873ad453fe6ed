// SPDX-License-Identifier: Apache-2.0
//
// The SYN cookie secrets of the process, drawn once.

#include "ebpf-gpu/Abi/SyncookieSecret.h"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sys/random.h>

namespace ebpfgpu::abi {

const uint64_t *syncookieSecret() {
  static const std::array<uint64_t, 4> Secret = [] {
    std::array<uint64_t, 4> S{};
    auto *P = reinterpret_cast<unsigned char *>(S.data());
    size_t Got = 0;
    while (Got < sizeof(S)) {
      ssize_t N = getrandom(P + Got, sizeof(S) - Got, 0);
      if (N < 0 && errno == EINTR)
        continue;
      if (N <= 0) {
        std::fprintf(stderr, "ebpf-gpu: no random bytes for the SYN cookie secrets (getrandom)\n");
        std::abort();
      }
      Got += size_t(N);
    }
    return S;
  }();
  return Secret.data();
}

} // namespace ebpfgpu::abi

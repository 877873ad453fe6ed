// SPDX-License-Identifier: Apache-2.0
//
// Text the daemon's answers share (DaemonState.cpp, DaemonRecovery.cpp):
// bytes as a JSON list of hex strings, and the map helpers' negated errno
// values in words.

#ifndef EBPF_GPU_DAEMON_DAEMONTEXT_H
#define EBPF_GPU_DAEMON_DAEMONTEXT_H

#include "ebpf-gpu/Daemon/Json.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <string>

namespace ebpfgpu::tools {

inline json::Value hexList(const uint8_t *B, size_t N) {
  json::Value L = json::Value::array();
  char Buf[8];
  for (size_t I = 0; I < N; ++I) {
    std::snprintf(Buf, sizeof(Buf), "0x%02x", B[I]);
    L.push(Buf);
  }
  return L;
}

/// The helpers return the kernel's (Linux) errno values, negated.
inline std::string errnoText(int64_t Rc) {
  switch (-Rc) {
  case EEXIST:
    return "the key exists (EEXIST)";
  case ENOENT:
    return "no such key (ENOENT)";
  case E2BIG:
    return "the map is full (E2BIG)";
  case ENOSPC:
    return "the map is full (ENOSPC)";
  case EINVAL:
    return "invalid (EINVAL)";
  default:
    return "error " + std::to_string(Rc);
  }
}

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_DAEMON_DAEMONTEXT_H

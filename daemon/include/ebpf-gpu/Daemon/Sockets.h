// SPDX-License-Identifier: Apache-2.0
//
// What the daemon's two listeners (the control socket, the metrics
// endpoint) share about writing to a client.

#ifndef EBPF_GPU_DAEMON_SOCKETS_H
#define EBPF_GPU_DAEMON_SOCKETS_H

#include <cerrno>
#include <string>
#include <sys/socket.h>

namespace ebpfgpu::tools {

/// Writes all of `Text`; false when the client is gone or stuck (its
/// socket's send timeout ran out).
inline bool sendAll(int Fd, const std::string &Text) {
  size_t Done = 0;
  while (Done < Text.size()) {
    ssize_t N = send(Fd, Text.data() + Done, Text.size() - Done, MSG_NOSIGNAL);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Done += size_t(N);
  }
  return true;
}

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_DAEMON_SOCKETS_H

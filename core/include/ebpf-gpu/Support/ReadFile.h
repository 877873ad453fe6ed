// SPDX-License-Identifier: Apache-2.0
//
// Reading a whole input file (an object, a .gpu.o, a map or forwarding
// table file) without exceptions: std::ifstream opens a directory and
// then throws from its first read, which ended the tools (and the daemon)
// on a path that named a directory. Header-only: the loader, compiler and
// tools share it without a library between them.

#ifndef EBPF_GPU_SUPPORT_READFILE_H
#define EBPF_GPU_SUPPORT_READFILE_H

#include "ebpf-gpu/Support/Error.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ebpfgpu {

/// The bytes of the regular file at `Path`; errors name the path and say
/// why ("PATH: is a directory", "PATH: cannot open: No such file or
/// directory").
inline Expected<std::vector<uint8_t>> readFileBytes(const std::string &Path) {
  int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
  if (Fd < 0)
    return Error(Path + ": cannot open: " + std::strerror(errno));
  struct stat St;
  if (::fstat(Fd, &St) != 0 || !S_ISREG(St.st_mode)) {
    bool Dir = S_ISDIR(St.st_mode);
    ::close(Fd);
    return Error(Path + (Dir ? ": is a directory" : ": not a regular file"));
  }
  std::vector<uint8_t> Bytes;
  Bytes.reserve(size_t(St.st_size));
  uint8_t Buf[65536];
  for (;;) {
    ssize_t N = ::read(Fd, Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N < 0) {
      int E = errno;
      ::close(Fd);
      return Error(Path + ": cannot read: " + std::strerror(E));
    }
    if (N == 0)
      break;
    Bytes.insert(Bytes.end(), Buf, Buf + N);
  }
  ::close(Fd);
  return Bytes;
}

} // namespace ebpfgpu

#endif // EBPF_GPU_SUPPORT_READFILE_H

// SPDX-License-Identifier: Apache-2.0
//
// The back ends a program can run on, as one enum from the command line (or
// the daemon's request) to exec::load(), and the words users name them by.
// Header-only: the daemon's state, which builds without the back ends (the
// fuzzer links it so), carries the choice too.

#ifndef EBPF_GPU_EXEC_BACKEND_H
#define EBPF_GPU_EXEC_BACKEND_H

#include <optional>
#include <string>

namespace ebpfgpu::exec {

enum class Backend {
  Host,   ///< JIT-compiled for this CPU (builds with the compiler)
  Gpu,    ///< on GPU 0 through the CUDA driver (builds with CUDA headers)
  Kernel, ///< the Linux kernel's verifier and BPF_PROG_TEST_RUN (the oracle; root)
  Null,   ///< no program: every packet dropped (the data plane's own ceiling)
};

/// The word for `B`, as users give it and summaries print it.
inline const char *backendName(Backend B) {
  switch (B) {
  case Backend::Host:
    return "host";
  case Backend::Gpu:
    return "gpu";
  case Backend::Kernel:
    return "kernel";
  case Backend::Null:
    return "null";
  }
  return "?";
}

/// The back end `Word` names; nothing for any other word (each tool says
/// which of them it takes).
inline std::optional<Backend> parseBackend(const std::string &Word) {
  for (Backend B : {Backend::Host, Backend::Gpu, Backend::Kernel, Backend::Null})
    if (Word == backendName(B))
      return B;
  return std::nullopt;
}

} // namespace ebpfgpu::exec

#endif // EBPF_GPU_EXEC_BACKEND_H

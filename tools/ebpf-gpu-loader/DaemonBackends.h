// SPDX-License-Identifier: Apache-2.0
//
// The daemon's back ends: `prog load` through the host JIT (builds with the
// compiler) or the GPU (builds with CUDA headers: a .gpu.o, or an eBPF
// object compiled on the spot), each with what it takes to make it again
// after a fault. GPU programs get a CUDA context each, so that one whose
// kernel hangs can be stopped without touching the others.

#ifndef EBPF_GPU_TOOLS_LOADER_DAEMONBACKENDS_H
#define EBPF_GPU_TOOLS_LOADER_DAEMONBACKENDS_H

#include "ebpf-gpu/Daemon/DaemonState.h"

namespace ebpfgpu::tools {

class DaemonBackends final : public BackendMaker {
public:
  Expected<LoadedBackend> load(const LoadRequest &R) override;
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_LOADER_DAEMONBACKENDS_H

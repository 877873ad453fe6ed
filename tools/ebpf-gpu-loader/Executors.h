// SPDX-License-Identifier: Apache-2.0
//
// The back ends of ebpf-gpu-loader as runtime::BatchExecutor objects, with
// the loading that precedes them: choosing a program in an eBPF object,
// verifying it, JIT-compiling it for this CPU (builds with the compiler),
// or loading a .gpu.o (or compiling one on the spot) onto the GPU (builds
// with CUDA headers). Shared by the one-shot `run` and by `forward`, so the
// two paths run a program the same way. Errors are returned with the object
// path and program name in front; the tool prints them.

#ifndef EBPF_GPU_TOOLS_LOADER_EXECUTORS_H
#define EBPF_GPU_TOOLS_LOADER_EXECUTORS_H

#include "ebpf-gpu/Loader/GpuObject.h"
#include "ebpf-gpu/Runtime/BatchExecutor.h"

#include <memory>
#include <string>

namespace ebpfgpu::tools {

#ifdef EBPF_GPU_LOADER_WITH_COMPILER
/// When the host back end returns what hash-map deletions freed: after each
/// packet (as the kernel's BPF_PROG_TEST_RUN, which the one-shot run is
/// compared against) or after each batch (forwarding, where several workers
/// share the program and reclaim when none is inside a batch).
enum class HostReclaim { EachPacket, EachBatch };

/// Reads `Object`, chooses `Section` (or its only program), verifies and
/// JIT-compiles it.
Expected<std::unique_ptr<runtime::BatchExecutor>>
makeHostExecutor(const std::string &Object, const std::string &Section, HostReclaim Reclaim);

/// Reads `Object`, chooses and verifies a program, and compiles it for the
/// GPU in process.
Expected<loader::GpuObjectSpec> compileForGpu(const std::string &Object,
                                              const std::string &Section);
#endif

#ifdef EBPF_GPU_HAVE_CUDA
/// Opens GPU 0 and loads `Spec` (an XDP program). Each run() launches the
/// kernel over at most `LaunchSize` packets at a time (0: the whole batch at
/// once) and reclaims hash-map deletions between launches. Launches from
/// several threads are serialised.
Expected<std::unique_ptr<runtime::BatchExecutor>> makeGpuExecutor(const loader::GpuObjectSpec &Spec,
                                                                  size_t LaunchSize);
/// Milliseconds the GPU kernel ran over all of `Exec`'s launches (device
/// events); `Exec` must come from makeGpuExecutor.
double gpuKernelMs(const runtime::BatchExecutor &Exec);
#endif

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_LOADER_EXECUTORS_H

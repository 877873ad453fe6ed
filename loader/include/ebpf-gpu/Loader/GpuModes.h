// SPDX-License-Identifier: Apache-2.0
//
// How the GPU runs batches (GpuRunner.h), as enums and the words users
// name them by. Header-only and without CUDA: the tools and the daemon's
// state parse the words into these where they read them, also in builds
// that cannot run the GPU back end.

#ifndef EBPF_GPU_LOADER_GPUMODES_H
#define EBPF_GPU_LOADER_GPUMODES_H

#include <string>

namespace ebpfgpu::loader {

/// A kernel launch per batch, or one persistent kernel fed through a
/// doorbell ring in pinned memory.
enum class GpuMode { Launch, Persistent };
/// Batches copied to device memory and back, or read and written by the
/// kernel in mapped pinned host memory.
enum class GpuDataPath { Copy, Mapped };

inline const char *gpuModeName(GpuMode M) { return M == GpuMode::Launch ? "launch" : "persistent"; }
inline const char *gpuDataPathName(GpuDataPath P) {
  return P == GpuDataPath::Copy ? "copy" : "mapped";
}

/// "launch"/"persistent", "copy"/"mapped"; false (and `Out` untouched) for
/// other names.
inline bool parseGpuMode(const std::string &Name, GpuMode &Out) {
  for (GpuMode M : {GpuMode::Launch, GpuMode::Persistent})
    if (Name == gpuModeName(M)) {
      Out = M;
      return true;
    }
  return false;
}
inline bool parseGpuDataPath(const std::string &Name, GpuDataPath &Out) {
  for (GpuDataPath P : {GpuDataPath::Copy, GpuDataPath::Mapped})
    if (Name == gpuDataPathName(P)) {
      Out = P;
      return true;
    }
  return false;
}

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_GPUMODES_H

// SPDX-License-Identifier: Apache-2.0
//
// The CUDA driver API as the loader uses it: the entry points resolved from
// libcuda.so.1 at run time (so a machine without a driver gets one clear
// error), and the check that turns a failed call into an Error naming the
// call and the driver's error name. Private to loader/lib.

#ifndef EBPF_GPU_LOADER_LIB_CUDAAPI_H
#define EBPF_GPU_LOADER_LIB_CUDAAPI_H

#include "ebpf-gpu/Support/Error.h"

#include <cuda.h>
#include <dlfcn.h>

#include <string>

namespace ebpfgpu::loader {

/// The driver entry points the loader uses, resolved from libcuda.so.1.
struct CudaApi {
  void *Lib = nullptr;
// Each entry: the driver function (cuda.h's name, which may be a macro
  // for a versioned one) and the exact symbol to resolve.
#define EBPFGPU_CUDA_FNS(X)                                                                   \
  X(cuInit, "cuInit")                                                                         \
  X(cuGetErrorName, "cuGetErrorName")                                                         \
  X(cuDeviceGetCount, "cuDeviceGetCount")                                                     \
  X(cuDeviceGet, "cuDeviceGet")                                                               \
  X(cuDeviceGetName, "cuDeviceGetName")                                                       \
  X(cuDeviceGetAttribute, "cuDeviceGetAttribute")                                             \
  X(cuDeviceGetP2PAttribute, "cuDeviceGetP2PAttribute")                                       \
  X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess")                                           \
  X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                                     \
  X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")                                \
  X(cuCtxDestroy, "cuCtxDestroy_v2")                                                          \
  X(cuCtxSetCurrent, "cuCtxSetCurrent")                                                       \
  X(cuCtxSynchronize, "cuCtxSynchronize")                                                     \
  X(cuModuleLoadDataEx, "cuModuleLoadDataEx")                                                 \
  X(cuModuleUnload, "cuModuleUnload")                                                         \
  X(cuModuleGetFunction, "cuModuleGetFunction")                                               \
  X(cuModuleGetGlobal, "cuModuleGetGlobal_v2")                                                \
  X(cuMemsetD8, "cuMemsetD8_v2")                                                              \
  X(cuMemAlloc, "cuMemAlloc_v2")                                                              \
  X(cuMemFree, "cuMemFree_v2")                                                                \
  X(cuMemcpyHtoD, "cuMemcpyHtoD_v2")                                                          \
  X(cuMemcpyDtoH, "cuMemcpyDtoH_v2")                                                          \
  X(cuMemcpyDtoD, "cuMemcpyDtoD_v2")                                                          \
  X(cuLaunchKernel, "cuLaunchKernel")                                                         \
  X(cuEventCreate, "cuEventCreate")                                                           \
  X(cuEventRecord, "cuEventRecord")                                                           \
  X(cuEventSynchronize, "cuEventSynchronize")                                                 \
  X(cuEventElapsedTime, "cuEventElapsedTime")                                                 \
  X(cuEventDestroy, "cuEventDestroy_v2")                                                      \
  X(cuEventQuery, "cuEventQuery")                                                             \
  X(cuFuncGetAttribute, "cuFuncGetAttribute")                                                 \
  X(cuMemHostAlloc, "cuMemHostAlloc")                                                         \
  X(cuMemFreeHost, "cuMemFreeHost")                                                           \
  X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2")                                                \
  X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2")                                                \
  X(cuStreamCreate, "cuStreamCreate")                                                         \
  X(cuStreamDestroy, "cuStreamDestroy_v2")                                                    \
  X(cuStreamSynchronize, "cuStreamSynchronize")                                               \
  X(cuStreamQuery, "cuStreamQuery")                                                           \
  X(cuStreamWaitEvent, "cuStreamWaitEvent")                                                   \
  X(cuStreamWriteValue32, "cuStreamWriteValue32_v2")                                          \
  X(cuMemHostRegister, "cuMemHostRegister_v2")                                                \
  X(cuMemHostUnregister, "cuMemHostUnregister")                                               \
  X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2")                                \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor")
#define EBPFGPU_DECLARE(Fn, Sym) decltype(&::Fn) Fn = nullptr;
  EBPFGPU_CUDA_FNS(EBPFGPU_DECLARE)
#undef EBPFGPU_DECLARE
  /// cuCtxCreate as every driver since CUDA 4 has it (cuda.h's name now
  /// means a later version with a parameter block).
  CUresult (*cuCtxCreateV2)(CUcontext *, unsigned int, CUdevice) = nullptr;

  ~CudaApi() {
    if (Lib)
      dlclose(Lib);
  }

  /// "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY".
  Error error(const char *Call, CUresult R) const {
    const char *Name = nullptr;
    if (!cuGetErrorName || cuGetErrorName(R, &Name) != CUDA_SUCCESS || !Name)
      Name = "unknown CUDA error";
    return Error(std::string(Call) + ": " + Name);
  }
};

#define EBPFGPU_CHECK(Api, Call, ...)                                                         \
  do {                                                                                        \
    CUresult R_ = (Api).Call(__VA_ARGS__);                                                    \
    if (R_ != CUDA_SUCCESS)                                                                   \
      return (Api).error(#Call, R_);                                                          \
  } while (0)

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_LIB_CUDAAPI_H

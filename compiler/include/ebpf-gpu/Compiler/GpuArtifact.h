// SPDX-License-Identifier: Apache-2.0
//
// Builds the `.gpu.o` spec (abi/GpuObject.h) of a program compiled for
// the GPU: the compiler's side of the artifact the loader reads.

#ifndef EBPF_GPU_COMPILER_GPUARTIFACT_H
#define EBPF_GPU_COMPILER_GPUARTIFACT_H

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Compiler/GpuBackend.h"

namespace ebpfgpu::compiler {

/// Compiles `Prog` for the GPU and describes the result as a `.gpu.o`.
/// `Verified` records whether the safety verifier accepted the program.
llvm::Expected<abi::GpuObjectSpec> buildGpuObject(const object::ObjectSpec &Obj,
                                                  const object::ProgramSpec &Prog,
                                                  const LiftOptions &Lift,
                                                  const GpuOptions &Gpu, bool Verified);

} // namespace ebpfgpu::compiler

#endif // EBPF_GPU_COMPILER_GPUARTIFACT_H

// SPDX-License-Identifier: Apache-2.0
//
// The GPU back end: a lifted program, linked with the device helper
// library, wrapped in a generated batch kernel (one thread per packet; see
// Platform/GpuAbi.h) and compiled by LLVM's NVPTX target to PTX that the
// CUDA driver JIT-compiles at load time.

#ifndef EBPF_GPU_COMPILER_GPUBACKEND_H
#define EBPF_GPU_COMPILER_GPUBACKEND_H

#include "ebpf-gpu/Compiler/Lifter.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ebpfgpu::compiler {

struct GpuOptions {
  /// PTX target; the default is JIT-compiled by every GPU from Volta on.
  std::string Arch = "sm_70";
  unsigned OptLevel = 2;
  /// Registers a thread of the XDP kernels may use (PTX .maxnreg), 0 for
  /// what ptxas chooses. Fewer registers let more threads share a
  /// multiprocessor (the hashed-map programs, latency-bound, gain from
  /// that) at the price of spills to local memory.
  unsigned MaxRegisters = 0;
  /// Without MaxRegisters: also emit the batch kernel built with
  /// EBPFGPU_XDP_BUDGET_REGISTERS registers (GpuAbi.h), for the loader to
  /// time against the default build and keep the faster.
  bool BudgetVariant = true;
  /// The verifier proved that no program of the set changes a packet
  /// (verifier::Result::WritesPacket): a staged packet then needs no copy
  /// as it came and no write-back. Recorded in the `.gpu.o` too.
  bool PacketsReadOnly = false;
  /// Atomics at system scope (PTX `atom.sys`, `fence.acq_rel.sys`) in the
  /// program and the map library, for a program whose maps live once in
  /// one GPU's memory and are changed from several GPUs over peer access
  /// (docs/MAPS.md, "Several GPUs"); the default `.gpu` scope is coherent
  /// among one GPU's threads only. Recorded in the `.gpu.o`.
  bool SystemScopeAtomics = false;
};

struct GpuProgram {
  std::string Ptx;
  /// The generated __global__ entry (EBPFGPU_XDP_KERNEL or _RAW_KERNEL).
  std::string KernelName;
  std::vector<MapBinding> Maps;
  std::vector<std::string> HelpersUsed;
  /// Largest stack frame of the program's functions, in bytes.
  unsigned StackBytes = 0;
  /// The optimised LLVM IR the PTX was generated from.
  std::string Llvm;
};

/// Compiles `Prog` for the GPU. Fails with the helper's name when the
/// program calls a helper the device library does not provide.
llvm::Expected<GpuProgram> compileForGpu(const object::ProgramSpec &Prog,
                                         const std::vector<object::MapSpec> &Maps,
                                         const LiftOptions &Lift, const GpuOptions &Gpu);
/// The same for a set of programs that tail-call each other (one kernel,
/// the set's entry program first).
llvm::Expected<GpuProgram> compileForGpu(const ProgramSet &Set,
                                         const std::vector<object::MapSpec> &Maps,
                                         const LiftOptions &Lift, const GpuOptions &Gpu);

} // namespace ebpfgpu::compiler

#endif // EBPF_GPU_COMPILER_GPUBACKEND_H

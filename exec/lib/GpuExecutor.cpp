// SPDX-License-Identifier: Apache-2.0
//
// The GPU (CUDA driver) back end's entry points (Backends.h): the executor
// made and its fault operations (GpuExecutor.h; its lanes: GpuLanes.cpp).

#include "Backends.h"
#include "GpuExecutor.h"

namespace ebpfgpu::exec {

#ifdef EBPF_GPU_HAVE_CUDA
using gpu::GpuExecutor;
using runtime::BatchExecutor;

Expected<std::unique_ptr<BatchExecutor>>
makeGpuExecutor(const abi::GpuObjectSpec &Spec, const GpuExecOptions &Opts, bool AllowUnverified) {
  if (Spec.Platform != platform::PlatformKind::Xdp)
    return Error(Spec.Program + ": not an XDP program (platform " +
                 platform::platformName(Spec.Platform) + ")");
  if (!Spec.Verified && !AllowUnverified)
    return Error("program " + Spec.Program + " was compiled without the safety verifier "
                 "(ebpf-gpu-cc --no-verify): refusing to run it (--allow-unverified overrides, "
                 "for testing)");
  auto Dev = loader::GpuDevice::open(0, Opts.OwnContext);
  if (!Dev)
    return Dev.takeError().withContext("gpu back end");
  auto Prog = loader::GpuProgram::load(**Dev, Spec);
  if (!Prog)
    return Prog.takeError().withContext("gpu back end: " + Spec.Program);
  auto *Exec = new GpuExecutor(std::move(*Dev), std::move(*Prog), Spec.Program, Opts, Spec);
  std::unique_ptr<BatchExecutor> Owned(Exec);
  // A persistent kernel starts now, so a program that cannot have one
  // fails at load time, not at its first packet.
  if (Opts.Mode == loader::GpuMode::Persistent)
    if (MaybeError E = Exec->prepare())
      return std::move(*E).withContext("gpu back end: " + Spec.Program);
  return Owned;
}

std::string haltGpuExecutor(BatchExecutor &Exec) {
  return static_cast<GpuExecutor &>(Exec).halt();
}

std::string abandonGpuExecutor(BatchExecutor &Exec) {
  return static_cast<GpuExecutor &>(Exec).abandon();
}

double gpuKernelMs(const BatchExecutor &Exec) {
  return static_cast<const GpuExecutor &>(Exec).kernelMs();
}

double gpuLatencyUs(BatchExecutor &Exec, double Percent) {
  return static_cast<GpuExecutor &>(Exec).latencyUs(Percent);
}

int64_t gpuReclaims(BatchExecutor &Exec) { return static_cast<GpuExecutor &>(Exec).reclaims(); }
#endif // EBPF_GPU_HAVE_CUDA

} // namespace ebpfgpu::exec

// SPDX-License-Identifier: Apache-2.0
//
// The GPU (CUDA driver) back end's entry points (Backends.h): the executor
// made and its fault operations (GpuExecutor.h; its lanes: GpuLanes.cpp).

#include "Backends.h"
#include "GpuExecutor.h"

#include "ebpf-gpu/Exec/MultiGpu.h"

#include <algorithm>

namespace ebpfgpu::exec {

#ifdef EBPF_GPU_HAVE_CUDA
using gpu::GpuExecutor;
using runtime::BatchExecutor;

Expected<std::unique_ptr<BatchExecutor>>
makeGpuExecutor(const abi::GpuObjectSpec &Spec, const GpuExecOptions &Opts, bool AllowUnverified,
                const GpuPeerMaps *Peer) {
  if (Spec.Platform != platform::PlatformKind::Xdp)
    return Error(Spec.Program + ": not an XDP program (platform " +
                 platform::platformName(Spec.Platform) + ")");
  if (!Spec.Verified && !AllowUnverified)
    return Error("program " + Spec.Program + " was compiled without the safety verifier "
                 "(ebpf-gpu-cc --no-verify): refusing to run it (--allow-unverified overrides, "
                 "for testing)");
  auto Dev = loader::GpuDevice::open(Opts.Device, Opts.OwnContext);
  if (!Dev)
    return Dev.takeError().withContext("gpu back end");
  loader::GpuProgram::SharedMaps Shared;
  if (Peer) {
    // The first entry's maps, at their own addresses: this context reaches
    // its memory once peer access is on (unified addressing).
    auto &Owner = *static_cast<GpuExecutor *>(Peer->Owner);
    if (MaybeError E = (*Dev)->enablePeerAccess(Owner.device()))
      return std::move(*E).withContext("gpu back end: the first GPU's shared maps");
    Shared = Owner.program().sharedMaps(Peer->Names);
  }
  auto Prog = loader::GpuProgram::load(**Dev, Spec, Peer ? &Shared : nullptr);
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

namespace {
/// `Exec`'s GPU back ends: itself, or the members of one on several GPUs.
std::vector<GpuExecutor *> gpuExecutors(BatchExecutor &Exec) {
  std::vector<BatchExecutor *> Members = multiGpuMembers(Exec);
  if (Members.empty())
    Members.push_back(&Exec);
  std::vector<GpuExecutor *> Out;
  for (BatchExecutor *M : Members)
    Out.push_back(static_cast<GpuExecutor *>(M));
  return Out;
}

/// Each back end's message, those of several GPUs joined with the GPU.
std::string joined(BatchExecutor &Exec, std::string (GpuExecutor::*Do)()) {
  std::vector<GpuExecutor *> All = gpuExecutors(Exec);
  std::string Out;
  for (size_t I = 0; I < All.size(); ++I) {
    std::string What = (All[I]->*Do)();
    if (All.size() > 1 && !What.empty())
      What = "entry " + std::to_string(I) + ": " + What;
    Out += (Out.empty() || What.empty() ? "" : "; ") + What;
  }
  return Out;
}
} // namespace

std::string haltGpuExecutor(BatchExecutor &Exec) { return joined(Exec, &GpuExecutor::halt); }

std::string abandonGpuExecutor(BatchExecutor &Exec) {
  return joined(Exec, &GpuExecutor::abandon);
}

double gpuKernelMs(const BatchExecutor &Exec) {
  double Ms = 0;
  for (GpuExecutor *G : gpuExecutors(const_cast<BatchExecutor &>(Exec)))
    Ms += G->kernelMs();
  return Ms;
}

double gpuLatencyUs(BatchExecutor &Exec, double Percent) {
  double Us = -1;
  for (GpuExecutor *G : gpuExecutors(Exec))
    Us = std::max(Us, G->latencyUs(Percent));
  return Us;
}

int64_t gpuReclaims(BatchExecutor &Exec) {
  int64_t Sum = -1;
  for (GpuExecutor *G : gpuExecutors(Exec))
    if (int64_t R = G->reclaims(); R >= 0)
      Sum = std::max<int64_t>(Sum, 0) + R;
  return Sum;
}
#endif // EBPF_GPU_HAVE_CUDA

} // namespace ebpfgpu::exec

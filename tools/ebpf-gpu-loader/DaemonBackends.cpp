// SPDX-License-Identifier: Apache-2.0
//
// Loading a daemon program onto the host JIT or the GPU through
// exec::load(), which also gives the recipe that makes its back end again
// from the same code after a fault.

#include "DaemonBackends.h"

#include "ebpf-gpu/Exec/Executors.h"
#include "ebpf-gpu/Exec/MultiGpu.h"

#include "ebpf-gpu/Abi/GpuObject.h"

namespace ebpfgpu::tools {

Expected<LoadedBackend> DaemonBackends::load(const LoadRequest &R) {
  bool GpuObject = abi::isGpuObjectFile(R.Path);
  if (GpuObject && (!R.InnerMaps.empty() || !R.MapSizes.empty() || !R.KeySizes.empty() ||
                    !R.ValueSizes.empty()))
    return Error("inner_maps, map_sizes, map_key_sizes and map_value_sizes apply to eBPF "
                 "objects; a .gpu.o has its maps from ebpf-gpu-cc (give them there)");
  exec::Backend B = R.Backend.value_or(GpuObject ? exec::Backend::Gpu : exec::Backend::Host);
  // (A .gpu.o asked for on the host: load() says why not.)
  if (B == exec::Backend::Host && !GpuObject && (R.GpuMode || R.GpuPath || !R.Gpus.empty()))
    return Error("gpu_mode, gpu_path and gpus are options of the gpu back end");
  std::vector<int> Gpus;
  if (!R.Gpus.empty()) {
    auto G = exec::parseGpuList(R.Gpus);
    if (!G)
      return Error("gpus: " + G.error().message());
    Gpus = std::move(*G);
  }
  exec::LoadRequest L;
  L.Path = R.Path;
  L.Section = R.Section;
  L.Kind = B;
  L.InnerMaps = R.InnerMaps;
  L.MapSizes = R.MapSizes;
  L.KeySizes = R.KeySizes;
  L.ValueSizes = R.ValueSizes;
  L.AllowUnverified = R.AllowUnverified;
  L.Host.Reclaim = exec::HostReclaim::EachBatch;
  exec::GpuExecOptions &O = L.Gpu;
  O.Mode = R.GpuMode.value_or(loader::GpuMode::Launch);
  O.Path = R.GpuPath.value_or(loader::GpuDataPath::Copy);
  O.WatchdogMs = R.WatchdogMs;
  O.Blocks = R.Blocks;
  O.LaunchSize = R.LaunchSize;
  O.OwnContext = true;
  // Each worker's batches on runners of its own, several in flight
  // (launch mode; a launch size asked for keeps batches split through
  // run()); the fault guard wraps the lanes.
  O.AsyncLanes = R.LaunchSize == 0;
  O.PersistentLanes = false;
  L.Host.Cpus = R.Workers;
  L.Gpus = Gpus;
  auto Loaded = exec::load(L);
  if (!Loaded)
    return Loaded.takeError();
  LoadedBackend Out;
  Out.Exec = std::move(Loaded->Exec);
  Out.Backend = Loaded->Kind;
  Out.Section = Loaded->Section;
  Out.Verified = Loaded->Verified;
  Out.Btf = std::move(Loaded->Btf);
  Out.Remake = std::move(Loaded->Remake);
  Out.Describe = "host JIT";
  if (Loaded->Kind == exec::Backend::Gpu) {
    Out.Describe =
        std::string("gpu ") + loader::gpuModeName(O.Mode) + " " + loader::gpuDataPathName(O.Path);
    if (O.Mode == loader::GpuMode::Persistent)
      Out.Describe += ", watchdog " + std::to_string(O.WatchdogMs) + " ms";
    if (O.LaunchSize)
      Out.Describe += ", launches of " + std::to_string(O.LaunchSize);
    if (!Gpus.empty())
      Out.Describe += ", GPUs " + exec::gpuListText(Gpus);
#ifdef EBPF_GPU_HAVE_CUDA
    Out.Discard = [](std::shared_ptr<runtime::BatchExecutor> Exec) {
      return exec::abandonGpuExecutor(*Exec);
    };
#endif
  }
  return Out;
}

} // namespace ebpfgpu::tools

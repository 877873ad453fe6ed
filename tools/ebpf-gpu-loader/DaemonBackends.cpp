// SPDX-License-Identifier: Apache-2.0
//
// Loading a daemon program onto the host JIT or the GPU, and the recipes
// that make its back end again from the same code after a fault.

#include "DaemonBackends.h"

#include "ebpf-gpu/Exec/Executors.h"

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Support/ReadFile.h"
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include "ebpf-gpu/Object/Object.h"
#endif

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace ebpfgpu::tools {

namespace {

[[maybe_unused]] std::vector<uint8_t> readBytes(const std::string &Path) {
  auto Bytes = readFileBytes(Path);
  return Bytes ? std::move(*Bytes) : std::vector<uint8_t>();
}

#ifdef EBPF_GPU_LOADER_WITH_COMPILER
/// The host back end of the object whose bytes were `Bytes` at load: from
/// its file while that still holds them, else from a private copy (the file
/// was replaced since).
Expected<std::unique_ptr<runtime::BatchExecutor>>
remakeHost(const std::string &Path, const std::string &Section, const std::vector<uint8_t> &Bytes,
           const object::ReadOptions &Read) {
  if (readBytes(Path) == Bytes)
    return exec::makeHostExecutor(Path, Section, exec::HostReclaim::EachBatch, Read);
  char Tmp[] = "/tmp/ebpf-gpu-daemon-XXXXXX";
  int Fd = mkstemp(Tmp);
  if (Fd < 0)
    return Error(Path + ": changed since it was loaded, and no temporary copy can be made");
  bool Ok = write(Fd, Bytes.data(), Bytes.size()) == ssize_t(Bytes.size());
  close(Fd);
  auto E = Ok ? exec::makeHostExecutor(Tmp, Section, exec::HostReclaim::EachBatch, Read)
              : Expected<std::unique_ptr<runtime::BatchExecutor>>(
                    Error(Path + ": changed since it was loaded, and writing a copy failed"));
  unlink(Tmp);
  return E;
}
#endif

} // namespace

Expected<LoadedBackend> DaemonBackends::load(const LoadRequest &R) {
  Expected<abi::GpuObjectSpec> GpuObj = abi::readGpuObjectFile(R.Path);
  if (!GpuObj && abi::isGpuObjectFile(R.Path))
    return GpuObj.takeError(); // a .gpu.o, but damaged
  std::string B = R.Backend.empty() ? (GpuObj ? "gpu" : "host") : R.Backend;
  if (GpuObj && (!R.InnerMaps.empty() || !R.MapSizes.empty()))
    return Error("inner_maps and map_sizes apply to eBPF objects; a .gpu.o has its maps from "
                 "ebpf-gpu-cc (give them there)");
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
  object::ReadOptions Read;
  Read.InnerMapTemplates = R.InnerMaps;
  Read.MaxEntries = R.MapSizes;
#endif
  LoadedBackend L;
  L.Backend = B;
  if (B == "host") {
    if (GpuObj)
      return Error(R.Path + ": a .gpu.o holds GPU code only; give the host back end the eBPF "
                            "object");
    if (!R.GpuMode.empty() || !R.GpuPath.empty())
      return Error("gpu_mode and gpu_path are options of the gpu back end");
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
    std::vector<uint8_t> Bytes = readBytes(R.Path);
    auto Obj = object::readObjectFile(R.Path, Read);
    if (!Obj)
      return Obj.takeError();
    L.Btf = Obj->Btf;
    auto E = exec::makeHostExecutor(R.Path, R.Section, exec::HostReclaim::EachBatch, Read);
    if (!E)
      return E.takeError();
    L.Exec = std::move(*E);
    const object::ProgramSpec *Spec = Obj->findProgram(L.Exec->programName());
    L.Section = Spec ? Spec->Section : R.Section;
    L.Describe = "host JIT";
    L.Remake = [Path = R.Path, Section = L.Section, Bytes = std::move(Bytes), Read] {
      return remakeHost(Path, Section, Bytes, Read);
    };
    return L;
#else
    return Error("the host back end needs a loader built with the compiler");
#endif
  }
#ifdef EBPF_GPU_HAVE_CUDA
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
  GpuObj = exec::gpuProgram(std::move(GpuObj), R.Path, R.Section, &Read);
#else
  GpuObj = exec::gpuProgram(std::move(GpuObj), R.Path, R.Section);
#endif
  if (!GpuObj)
    return GpuObj.takeError();
  exec::GpuExecOptions O;
  O.AllowUnverified = R.AllowUnverified;
  if (!R.GpuMode.empty() && !loader::parseGpuMode(R.GpuMode, O.Mode))
    return Error("gpu_mode must be launch or persistent, not '" + R.GpuMode + "'");
  if (!R.GpuPath.empty() && !loader::parseGpuDataPath(R.GpuPath, O.Path))
    return Error("gpu_path must be copy or mapped, not '" + R.GpuPath + "'");
  O.WatchdogMs = R.WatchdogMs;
  O.Blocks = R.Blocks;
  O.LaunchSize = R.LaunchSize;
  O.OwnContext = true;
  auto E = exec::makeGpuExecutor(*GpuObj, O);
  if (!E)
    return E.takeError().withContext(R.Path);
  L.Exec = std::move(*E);
  L.Section = GpuObj->Section;
  L.Verified = GpuObj->Verified;
  L.Btf = GpuObj->Btf;
  L.Describe =
      std::string("gpu ") + loader::gpuModeName(O.Mode) + " " + loader::gpuDataPathName(O.Path);
  if (O.Mode == loader::GpuMode::Persistent)
    L.Describe += ", watchdog " + std::to_string(O.WatchdogMs) + " ms";
  if (O.LaunchSize)
    L.Describe += ", launches of " + std::to_string(O.LaunchSize);
  L.Remake = [Spec = std::move(*GpuObj), O]() { return exec::makeGpuExecutor(Spec, O); };
  L.Discard = [](std::shared_ptr<runtime::BatchExecutor> Exec) {
    return exec::abandonGpuExecutor(*Exec);
  };
  return L;
#else
  return Error("this loader was built without CUDA support (no cuda.h at build time)");
#endif
}

} // namespace ebpfgpu::tools

// SPDX-License-Identifier: Apache-2.0
//
// exec::load() (Executors.h): the one entry from a file to a back end. It
// reads the file once to tell a .gpu.o from an eBPF object, settles the
// back end, sees that the program is verified (by ebpf-gpu's verifier,
// the .gpu.o's record of it, or the kernel's) and hands it to that back
// end's factory (Backends.h).

#include "Backends.h"

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Exec/MultiGpu.h"
#ifdef EBPF_GPU_HAVE_CUDA
#include "ebpf-gpu/Loader/GpuLoader.h"
#endif

namespace ebpfgpu::exec {

namespace {

#ifdef EBPF_GPU_LOADER_WITH_COMPILER
object::ReadOptions readOptions(const LoadRequest &R) {
  object::ReadOptions Read;
  Read.InnerMapTemplates = R.InnerMaps;
  Read.MaxEntries = R.MapSizes;
  Read.KeySizes = R.KeySizes;
  Read.ValueSizes = R.ValueSizes;
  Read.MapFlags = R.MapFlags;
  Read.InitialValues = R.InitialValues;
  return Read;
}

Expected<LoadedProgram> loadHost(const LoadRequest &R) {
  Expected<std::shared_ptr<const VerifiedObject>> V =
      readVerified(R.Path, R.Image.get(), R.Section, readOptions(R));
  if (!V)
    return V.takeError();
  auto E = makeHostExecutor(**V, R.Path, R.Host);
  if (!E)
    return E.takeError();
  LoadedProgram L;
  L.Exec = std::move(*E);
  L.Kind = Backend::Host;
  L.Section = (*V)->Prog->Section;
  L.Btf = (*V)->Obj.Btf;
  // Compiled again from the object as it was read, whatever the file
  // holds now.
  L.Remake = [V = *V, Path = R.Path, Opts = R.Host] { return makeHostExecutor(*V, Path, Opts); };
  return L;
}

Expected<LoadedProgram> loadKernel(const LoadRequest &R) {
  if (R.Image)
    return Error(R.Path + ": the kernel back end loads an object from its file, not from memory");
  auto E = makeKernelExecutor(R);
  if (!E)
    return E.takeError();
  LoadedProgram L;
  L.Exec = std::move(*E);
  L.Kind = Backend::Kernel;
  return L;
}
#endif

#ifdef EBPF_GPU_HAVE_CUDA
/// `Spec` on GPU Opts.Device, or on each GPU of `Gpus` (two or more
/// entries: a context of its own each, one executor over them).
Expected<std::unique_ptr<runtime::BatchExecutor>>
makeGpuExecutors(const abi::GpuObjectSpec &Spec, GpuExecOptions Opts, bool AllowUnverified,
                 const std::vector<int> &Gpus) {
  if (Gpus.size() == 1)
    Opts.Device = Gpus[0];
  if (Gpus.size() < 2)
    return makeGpuExecutor(Spec, Opts, AllowUnverified);
  Opts.OwnContext = true;
  Opts.ContextGroup = true;
  // Maps that live once, in the first GPU's memory: every other GPU must
  // reach it with native atomics (asked of the driver before any context).
  GpuPeerMaps Peer;
  Peer.Names = sharedMapNames(Spec.Maps, Spec.SystemScopeAtomics);
  if (!Peer.Names.empty()) {
    Expected<std::string> Problem = loader::peerMapsProblem(Gpus);
    if (!Problem)
      return Problem.takeError().withContext("GPUs " + gpuListText(Gpus));
    if (!Problem->empty())
      return Error("cannot run on GPUs " + gpuListText(Gpus) + " (" +
                   std::to_string(Gpus.size()) + " contexts): map '" + Peer.Names[0] +
                   "' lives once, in GPU " + std::to_string(Gpus[0]) +
                   "'s memory, for every GPU of the list, and " + *Problem);
  }
  std::vector<std::unique_ptr<runtime::BatchExecutor>> Members;
  for (size_t I = 0; I < Gpus.size(); ++I) {
    // Making a context waits for every kernel of its GPU: in persistent
    // mode, the entries made before it have none running (ContextGroup:
    // each kernel starts at its entry's first batch).
    Opts.Device = Gpus[I];
    if (I == 1)
      Peer.Owner = Members[0].get();
    auto E = makeGpuExecutor(Spec, Opts, AllowUnverified,
                             I && !Peer.Names.empty() ? &Peer : nullptr);
    if (!E)
      return E.takeError().withContext("GPU " + std::to_string(Gpus[I]) + " (entry " +
                                       std::to_string(I) + " of " + gpuListText(Gpus) + ")");
    Members.push_back(std::move(*E));
  }
  return makeMultiGpuExecutor(std::move(Members), Gpus, Spec.Maps, Spec.SystemScopeAtomics);
}

/// `GpuObj`: R.Path read as a .gpu.o, or why it is not one (then it is an
/// eBPF object to compile now, where the loader has the compiler).
Expected<LoadedProgram> loadGpu(const LoadRequest &R, Expected<abi::GpuObjectSpec> GpuObj) {
  if (!GpuObj) {
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
    Expected<std::shared_ptr<const VerifiedObject>> V =
        readVerified(R.Path, R.Image.get(), R.Section, readOptions(R));
    if (!V)
      return V.takeError();
    GpuObj = compileForGpu(**V, R.Path);
    if (!GpuObj)
      return GpuObj.takeError();
    // Maps that several GPUs would change: compiled again with the atomics
    // at system scope, so that they can live once for all of them.
    if (R.Gpus.size() > 1 && needsSystemAtomics(GpuObj->Maps)) {
      GpuObj = compileForGpu(**V, R.Path, /*SystemAtomics=*/true);
      if (!GpuObj)
        return GpuObj.takeError();
    }
#else
    return Error(GpuObj.error().message() + " (this loader was built without the compiler: "
                                            "compile the program with ebpf-gpu-cc first)");
#endif
  }
  if (MaybeError E = checkMapsForGpus(GpuObj->Maps, R.Gpus, GpuObj->SystemScopeAtomics))
    return std::move(*E).withContext(R.Path + ": " + GpuObj->Program);
  auto E = makeGpuExecutors(*GpuObj, R.Gpu, R.AllowUnverified, R.Gpus);
  if (!E)
    return E.takeError().withContext(R.Path);
  LoadedProgram L;
  L.Exec = std::move(*E);
  L.Kind = Backend::Gpu;
  L.Section = GpuObj->Section;
  L.Verified = GpuObj->Verified;
  L.Btf = GpuObj->Btf;
  L.Remake = [Spec = std::move(*GpuObj), Opts = R.Gpu, Allow = R.AllowUnverified,
              Gpus = R.Gpus] { return makeGpuExecutors(Spec, Opts, Allow, Gpus); };
  return L;
}
#endif

} // namespace

Expected<LoadedProgram> load(const LoadRequest &R) {
  // An image in memory is a .gpu.o (a library's caller embeds one to run
  // it where there is no compiler) or an eBPF object to compile here.
  const bool GpuImage = R.Image && abi::isGpuObjectMemory(R.Image->data(), R.Image->size());
  Expected<abi::GpuObjectSpec> GpuObj =
      GpuImage  ? abi::readGpuObjectMemory(R.Image->data(), R.Image->size(), R.Path)
      : R.Image ? Expected<abi::GpuObjectSpec>(Error(R.Path + ": an eBPF object in memory"))
                : abi::readGpuObjectFile(R.Path);
  if (!GpuObj && (GpuImage || (!R.Image && abi::isGpuObjectFile(R.Path))))
    return GpuObj.takeError(); // a .gpu.o, but damaged
  Backend B = R.Kind.value_or(GpuObj ? Backend::Gpu : Backend::Host);
  if (!R.Gpus.empty() && B != Backend::Gpu)
    return Error(R.Path + ": a list of GPUs is for the gpu back end; the " + backendName(B) +
                 " back end runs " +
                 (B == Backend::Null ? "no program" : B == Backend::Host ? "on this CPU"
                                                                         : "in the kernel"));
  if (B == Backend::Null) {
    LoadedProgram L;
    L.Exec = makeNullExecutor();
    L.Kind = Backend::Null;
    L.Remake = [] { return Expected<std::unique_ptr<runtime::BatchExecutor>>(makeNullExecutor()); };
    return L;
  }
  if (B == Backend::Gpu) {
#ifdef EBPF_GPU_HAVE_CUDA
    return loadGpu(R, std::move(GpuObj));
#else
    return Error("this loader was built without CUDA support (no cuda.h at build time)");
#endif
  }
  if (GpuObj)
    return Error(R.Path + ": a .gpu.o holds GPU code only; give the " + backendName(B) +
                 " back end the eBPF object");
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
  return B == Backend::Host ? loadHost(R) : loadKernel(R);
#else
  return Error(std::string("the ") + backendName(B) + " back end needs a loader built with the "
                                                      "compiler");
#endif
}

} // namespace ebpfgpu::exec

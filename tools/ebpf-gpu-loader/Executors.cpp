// SPDX-License-Identifier: Apache-2.0
//
// Host (LLVM JIT) and GPU (CUDA driver) implementations of
// runtime::BatchExecutor, and the program loading in front of them.

#include "Executors.h"

#include "ebpf-gpu/Loader/TraceLog.h"

#ifdef EBPF_GPU_HAVE_CUDA
#include "ebpf-gpu/Loader/GpuLoader.h"
#endif
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include "ebpf-gpu/Compiler/GpuArtifact.h"
#include "ebpf-gpu/Compiler/HostJit.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Verifier/Verifier.h"

#include "llvm/Support/Error.h"
#endif

#include <algorithm>
#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace ebpfgpu::tools {

using runtime::BatchExecutor;
using runtime::PacketBatch;

namespace {
/// bpf_trace_printk lines taken from a program's log after each run, kept
/// until the caller takes them (at most 16 MiB; the rest is counted).
class TraceCollector {
public:
  void add(const loader::TraceText &T) {
    std::lock_guard Lock(M);
    Dropped += T.Dropped;
    if (Lines.size() + T.Lines.size() <= MaxBytes)
      Lines += T.Lines;
    else
      Dropped += uint64_t(std::count(T.Lines.begin(), T.Lines.end(), '\n'));
  }
  std::string take() {
    std::lock_guard Lock(M);
    std::string Out = std::move(Lines);
    if (Dropped)
      Out += "(" + std::to_string(Dropped) + " trace lines dropped: the log was full)\n";
    Lines.clear();
    Dropped = 0;
    return Out;
  }

private:
  static constexpr size_t MaxBytes = 64u << 20;
  std::mutex M;
  std::string Lines;
  uint64_t Dropped = 0;
};
} // namespace

#ifdef EBPF_GPU_LOADER_WITH_COMPILER
namespace {

/// Global data seen as an array of one entry whose value is the section.
ebpfgpu_map globalDataHeader(uint32_t Size, uint64_t Bytes) {
  ebpfgpu_map H{};
  H.type = EBPFGPU_MAP_ARRAY;
  H.key_size = 4;
  H.value_size = Size;
  H.max_entries = 1;
  H.value_stride = (Size + 7u) & ~7u;
  H.values = Bytes;
  H.nslices = 1;
  return H;
}

/// The program `Section` names in `Obj` (or its only one), verified.
Expected<const object::ProgramSpec *>
chooseVerified(const object::ObjectSpec &Obj, const std::string &Path, const std::string &Section) {
  const object::ProgramSpec *P = nullptr;
  if (!Section.empty())
    P = Obj.findProgram(Section);
  else if (Obj.Programs.size() == 1)
    P = &Obj.Programs[0];
  if (!P) {
    std::string Have;
    for (const object::ProgramSpec &Q : Obj.Programs)
      Have += (Have.empty() ? "" : ", ") + Q.Name;
    return Error(Path + ": " +
                 (Section.empty() ? "several programs; choose one with --section"
                                  : "no program or section named '" + Section + "'") +
                 " (have: " + Have + ")");
  }
  // A program that tail-calls brings every program it may reach: all are
  // verified.
  for (const object::ProgramSpec *Q : compiler::programSetFor(Obj, *P).Programs) {
    verifier::Result V = verifier::verify(*Q, Obj.Maps, verifier::Options());
    if (!V.ok())
      return Error(Path + ": program " + Q->Name +
                   ": refused by the verifier: " + verifier::formatDiagnostic(*V.Error, *Q));
  }
  return P;
}

class HostExecutor final : public BatchExecutor {
public:
  HostExecutor(std::unique_ptr<compiler::HostProgram> Prog, std::string Name, HostReclaim Reclaim)
      : Prog(std::move(Prog)), Name(std::move(Name)), Reclaim(Reclaim) {}

  MaybeError run(PacketBatch &Batch) override {
    if (Reclaim == HostReclaim::EachPacket) {
      std::unique_lock Lock(Running);
      for (size_t I = 0; I < Batch.size(); ++I) {
        runOne(Batch, I);
        Prog->reclaimMaps();
        Trace.add(Prog->takeTrace());
      }
      return std::nullopt;
    }
    {
      // An operator's map command waiting for the lock goes first: new
      // batches wait (readers overlapping without a gap would starve it).
      while (OperatorsWaiting.load(std::memory_order_acquire))
        std::this_thread::yield();
      std::shared_lock Lock(Running);
      for (size_t I = 0; I < Batch.size(); ++I)
        runOne(Batch, I);
    }
    // Deleted hash elements go back to the free lists only when no worker
    // is inside a batch; a worker that finds others running leaves it to
    // whoever finishes last.
    if (Running.try_lock()) {
      Prog->reclaimMaps();
      Trace.add(Prog->takeTrace());
      Running.unlock();
    }
    return std::nullopt;
  }

  Expected<std::string> dumpMaps() override { return Prog->dumpMaps(); }
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) override {
    return Prog->updateMap(Map, Key, Value);
  }
  MaybeError checkMaps() override { return Prog->checkMaps(); }

  std::vector<runtime::MapInfo> maps() const override {
    std::vector<runtime::MapInfo> Out;
    for (const auto &M : Prog->maps()) {
      const ebpfgpu_map &H = M->info();
      Out.push_back({M->name(), H.type, H.key_size, H.value_size, H.max_entries, H.flags,
                     false, false});
    }
    for (const compiler::HostProgram::DataView &D : Prog->globalData())
      Out.push_back({D.Name, EBPFGPU_MAP_ARRAY, 4, D.Size, 1, 0, true, D.ReadOnly});
    return Out;
  }

  MaybeError accessMap(const std::string &Name, const runtime::MapOperation &Op) override {
    OperatorsWaiting.fetch_add(1, std::memory_order_acq_rel);
    std::unique_lock Lock(Running);
    OperatorsWaiting.fetch_sub(1, std::memory_order_acq_rel);
    bool Changed = false;
    for (const auto &M : Prog->maps())
      if (M->name() == Name)
        return Op(*M->header(), Changed);
    for (const compiler::HostProgram::DataView &D : Prog->globalData())
      if (D.Name == Name) {
        ebpfgpu_map H = globalDataHeader(D.Size, reinterpret_cast<uint64_t>(D.Bytes));
        return Op(H, Changed);
      }
    return Error("no map named '" + Name + "' in program " + this->Name);
  }

  Expected<std::string> takeTrace() override {
    std::unique_lock Lock(Running);
    Trace.add(Prog->takeTrace());
    return Trace.take();
  }
  // The host reclaims between packets or batches of one worker's packets:
  // its spare elements never run out before the map is full.
  Expected<std::vector<std::string>> warnings() override { return std::vector<std::string>(); }
  const std::string &programName() const override { return Name; }
  const char *backendName() const override { return "host"; }

private:
  void runOne(PacketBatch &Batch, size_t I) {
    platform::XdpRuntimeContext Ctx;
    Batch.prepareContext(I, Ctx);
    uint64_t V = Prog->runXdp(Ctx);
    Batch.finish(I, Ctx, V);
  }

  std::unique_ptr<compiler::HostProgram> Prog;
  std::string Name;
  HostReclaim Reclaim;
  std::shared_mutex Running;
  std::atomic<unsigned> OperatorsWaiting{0};
  TraceCollector Trace;
};

} // namespace

Expected<std::unique_ptr<BatchExecutor>>
makeHostExecutor(const std::string &Object, const std::string &Section, HostReclaim Reclaim) {
  Expected<object::ObjectSpec> Obj = object::readObjectFile(Object);
  if (!Obj)
    return Obj.takeError();
  Expected<const object::ProgramSpec *> P = chooseVerified(*Obj, Object, Section);
  if (!P)
    return P.takeError();
  auto Prog = compiler::HostProgram::compile(compiler::programSetFor(*Obj, **P), Obj->Maps,
                                             compiler::LiftOptions());
  if (!Prog)
    return Error(Object + ": program " + (*P)->Name + ": " + llvm::toString(Prog.takeError()));
  return std::unique_ptr<BatchExecutor>(new HostExecutor(std::move(*Prog), (*P)->Name, Reclaim));
}

Expected<loader::GpuObjectSpec> compileForGpu(const std::string &Object,
                                              const std::string &Section) {
  Expected<object::ObjectSpec> Obj = object::readObjectFile(Object);
  if (!Obj)
    return Obj.takeError();
  Expected<const object::ProgramSpec *> P = chooseVerified(*Obj, Object, Section);
  if (!P)
    return P.takeError();
  auto G = compiler::buildGpuObject(*Obj, **P, compiler::LiftOptions(), compiler::GpuOptions(),
                                    /*Verified=*/true);
  if (!G)
    return Error(Object + ": program " + (*P)->Name + ": " + llvm::toString(G.takeError()));
  return std::move(*G);
}
#endif // EBPF_GPU_LOADER_WITH_COMPILER

#ifdef EBPF_GPU_HAVE_CUDA
namespace {

class GpuExecutor final : public BatchExecutor {
public:
  GpuExecutor(std::unique_ptr<loader::GpuDevice> Dev, std::unique_ptr<loader::GpuProgram> Prog,
              std::string Name, size_t LaunchSize, const loader::GpuObjectSpec &Spec)
      : Dev(std::move(Dev)), Prog(std::move(Prog)), Name(std::move(Name)), LaunchSize(LaunchSize) {
    for (const loader::GpuMapSpec &M : Spec.Maps) {
      bool Data = M.Origin == "data";
      MapList.push_back({M.Name, Data ? uint32_t(EBPFGPU_MAP_ARRAY) : M.Type, Data ? 4 : M.KeySize,
                         M.ValueSize, Data ? 1 : M.MaxEntries, M.Flags, Data,
                         Data && (M.Flags & ReadOnlyProg)});
    }
  }
  ~GpuExecutor() override { Prog.reset(); } // the program before its device

  MaybeError run(PacketBatch &Batch) override {
    std::lock_guard Lock(Launching);
    // Workers (DPDK lcores, the daemon's threads) are not the thread that
    // opened the device.
    if (MaybeError E = Dev->makeCurrent())
      return E;
    size_t N = Batch.size(), Step = LaunchSize ? LaunchSize : std::max<size_t>(N, 1);
    for (size_t First = 0; First < N; First += Step) {
      size_t Count = std::min(Step, N - First);
      Descs.resize(Count);
      for (size_t K = 0; K < Count; ++K) {
        ebpfgpu_packet_desc &D = Descs[K];
        D = {};
        D.buffer = K * Batch.stride();
        D.data_offset = Batch.offset(First + K);
        D.length = Batch.length(First + K);
        D.buffer_size = uint32_t(Batch.stride());
        D.ingress_ifindex = Batch.ingressIfindex();
        D.rx_queue_index = Batch.rxQueueIndex();
      }
      loader::BatchTiming T;
      if (MaybeError E = Prog->runBatch(Batch.frames() + First * Batch.stride(),
                                        Count * Batch.stride(), Descs, Verdicts, &T))
        return E;
      KernelMs += T.KernelMs;
      for (size_t K = 0; K < Count; ++K)
        if (!Batch.setOutcome(First + K, Verdicts[K].data_offset, Verdicts[K].length,
                              Verdicts[K].action, Verdicts[K].redirect_target))
          return Error("packet " + std::to_string(First + K) + " left its buffer");
      // What this launch deleted from hash maps goes back to the free
      // lists before the next launch.
      if (MaybeError E = Prog->reclaimMaps())
        return E;
      auto Lines = Prog->takeTrace();
      if (!Lines)
        return Lines.takeError();
      Trace.add(*Lines);
    }
    return std::nullopt;
  }

  Expected<std::string> dumpMaps() override {
    std::lock_guard Lock(Launching);
    return Prog->dumpMaps();
  }
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) override {
    std::lock_guard Lock(Launching);
    return Prog->updateMap(Map, Key, Value);
  }
  MaybeError checkMaps() override {
    std::lock_guard Lock(Launching);
    return Prog->checkMaps();
  }
  Expected<std::string> takeTrace() override {
    std::lock_guard Lock(Launching);
    return Trace.take();
  }
  Expected<std::vector<std::string>> warnings() override {
    std::lock_guard Lock(Launching);
    auto Starved = Prog->starvedMaps();
    if (!Starved)
      return Starved.takeError();
    std::vector<std::string> Out;
    for (const std::string &M : *Starved)
      Out.push_back("map " + M + " updates refused (E2BIG) because one launch unlinked every "
                    "spare element; smaller batches avoid it");
    return Out;
  }
  std::vector<runtime::MapInfo> maps() const override { return MapList; }
  MaybeError accessMap(const std::string &Map, const runtime::MapOperation &Op) override {
    std::lock_guard Lock(Launching);
    if (MaybeError E = Dev->makeCurrent())
      return E;
    return Prog->accessMap(Map, Op);
  }
  const std::string &programName() const override { return Name; }
  const char *backendName() const override { return "gpu"; }
  double kernelMs() const { return KernelMs; }

private:
  std::unique_ptr<loader::GpuDevice> Dev;
  std::unique_ptr<loader::GpuProgram> Prog;
  /// BPF_F_RDONLY_PROG (.rodata).
  static constexpr uint32_t ReadOnlyProg = 1u << 7;
  std::string Name;
  size_t LaunchSize;
  std::vector<runtime::MapInfo> MapList;
  std::mutex Launching;
  std::vector<ebpfgpu_packet_desc> Descs;
  std::vector<ebpfgpu_verdict> Verdicts;
  double KernelMs = 0;
  TraceCollector Trace;
};

} // namespace

Expected<std::unique_ptr<BatchExecutor>> makeGpuExecutor(const loader::GpuObjectSpec &Spec,
                                                         size_t LaunchSize) {
  if (Spec.Platform != "xdp")
    return Error(Spec.Program + ": not an XDP program (platform " + Spec.Platform + ")");
  auto Dev = loader::GpuDevice::open(0);
  if (!Dev)
    return Dev.takeError().withContext("gpu back end");
  auto Prog = loader::GpuProgram::load(**Dev, Spec);
  if (!Prog)
    return Prog.takeError().withContext("gpu back end: " + Spec.Program);
  return std::unique_ptr<BatchExecutor>(
      new GpuExecutor(std::move(*Dev), std::move(*Prog), Spec.Program, LaunchSize, Spec));
}

double gpuKernelMs(const BatchExecutor &Exec) {
  return static_cast<const GpuExecutor &>(Exec).kernelMs();
}
#endif // EBPF_GPU_HAVE_CUDA

} // namespace ebpfgpu::tools

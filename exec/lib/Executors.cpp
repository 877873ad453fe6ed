// SPDX-License-Identifier: Apache-2.0
//
// The host (LLVM JIT) and null implementations of runtime::BatchExecutor,
// and the reading, choosing and verifying in front of the host's and of a
// GPU compile on the spot (the GPU's back end: GpuExecutor.cpp; the one
// entry to all of them: Load.cpp).

#include "Backends.h"
#include "Collectors.h"
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Compiler/GpuArtifact.h"
#include "ebpf-gpu/Compiler/HostJit.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Verifier/Verifier.h"

#include "llvm/Support/Error.h"
#endif

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

namespace ebpfgpu::exec {

using runtime::BatchExecutor;
using runtime::PacketBatch;


#ifdef EBPF_GPU_LOADER_WITH_COMPILER
namespace {

/// The program `Section` names in `Obj` (or its only one), verified;
/// `ReadOnlyPackets`, when given, is told whether the verifier proved that
/// no program it may reach changes a packet; `RxMetadata` whether one
/// calls an XDP RX metadata kfunc.
Expected<const object::ProgramSpec *>
chooseVerified(const object::ObjectSpec &Obj, const std::string &Path, const std::string &Section,
               bool *ReadOnlyPackets = nullptr, bool *RxMetadata = nullptr) {
  const object::ProgramSpec *P = nullptr;
  if (!Section.empty())
    P = Obj.findProgram(Section);
  else if (Obj.programCount() == 1)
    P = Obj.Programs.empty() ? nullptr : &Obj.Programs[0];
  if (!P) {
    if (std::string Why = Obj.unlinkedReason(Section); !Why.empty())
      return Error(Path + ": " + Why);
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
  bool ReadOnly = true, Meta = false;
  for (const object::ProgramSpec *Q : compiler::programSetFor(Obj, *P).Programs) {
    verifier::Options VO;
    VO.License = Obj.License;
    verifier::Result V = verifier::verify(*Q, Obj.Maps, VO);
    if (!V.ok())
      return Error(Path + ": program " + Q->Name +
                   ": refused by the verifier: " + verifier::formatDiagnostic(*V.Error, *Q));
    ReadOnly &= !V.WritesPacket;
    Meta |= V.ReadsRxMetadata;
  }
  if (RxMetadata)
    *RxMetadata = Meta;
  if (ReadOnlyPackets)
    *ReadOnlyPackets = ReadOnly;
  return P;
}

class HostExecutor final : public BatchExecutor {
public:
  HostExecutor(std::unique_ptr<compiler::HostProgram> Prog, std::string Name, HostReclaim Reclaim,
               bool ReadOnlyPackets, bool RxMetadata, const std::vector<object::MapSpec> &Specs)
      : Prog(std::move(Prog)), Name(std::move(Name)), Reclaim(Reclaim),
        ReadOnlyPackets(ReadOnlyPackets), RxMetadata(RxMetadata),
        MapList(liveMaps(*this->Prog, Specs)) {}

  MaybeError run(PacketBatch &Batch) override { return runOn(Batch, 0); }

  /// A lane runs its batches in submit(), as its worker's CPU of the
  /// program's per-CPU maps (a worker runs one batch at a time).
  Expected<std::unique_ptr<runtime::BatchLane>> openLane(unsigned Depth, unsigned Worker) override {
    // Workers past the program's CPUs would share a slice: refused rather
    // than racing.
    if (Worker >= Prog->cpus())
      return Error("host back end: worker " + std::to_string(Worker) + " has no per-CPU slice (the "
                   "program was compiled for " + std::to_string(Prog->cpus()) + " worker(s))");
    return runtime::makeSynchronousLane(
        [this, Worker](PacketBatch &Batch) { return runOn(Batch, Worker); }, Depth);
  }

  MaybeError runOn(PacketBatch &Batch, uint32_t Cpu) {
    return runLocked(Batch.size(), [&](size_t I) { runOne(Batch, I, Cpu); });
  }

  bool runsInPlaceBursts() const override { return true; }
  MaybeError runInPlace(runtime::InPlaceBurst &B, unsigned Worker) override {
    if (Worker >= Prog->cpus())
      return Error("host back end: worker " + std::to_string(Worker) + " has no per-CPU slice");
    return runLocked(B.Count, [&](size_t I) {
      if (B.Prefetch && I + B.Prefetch < B.Count)
        __builtin_prefetch(B.Packets[I + B.Prefetch].Data);
      runtime::InPlacePacket &P = B.Packets[I];
      const uint64_t Data = reinterpret_cast<uint64_t>(P.Data);
      platform::XdpRuntimeContext Ctx;
      runtime::initXdpContext(Ctx, Data - runtime::dataOffsetFor(P.Headroom),
                              Data + std::min<uint64_t>(P.Cap, B.Stride - runtime::XdpHeadroom),
                              Data, P.Len, B.IngressIfindex, B.RxQueueIndex, 0, uint32_t(I));
      Ctx.cpu_id = Worker;
      P.Verdict = uint32_t(Prog->runXdp(Ctx));
      // Within the buffer: the helpers keep data and data_end in it.
      const int64_t Moved = int64_t(Ctx.data - Data);
      P.Data += Moved;
      P.Len = uint32_t(Ctx.data_end - Ctx.data);
      P.Headroom = uint32_t(int64_t(P.Headroom) + Moved);
      P.Cap = uint32_t(int64_t(P.Cap) - Moved);
      P.Redirect = uint32_t(Ctx.redirect_target);
    });
  }

  /// Runs `One(I)` for I in [0, N) under the program's lock: alone,
  /// reclaiming after each packet (HostReclaim::EachPacket), or beside other
  /// workers, reclaiming when none is inside a batch.
  template <typename OneFn> MaybeError runLocked(size_t N, OneFn &&One) {
    if (Reclaim == HostReclaim::EachPacket) {
      // The batch holds the program alone (as an operator's map command
      // does): no other worker can be between a deletion and its reclaim.
      std::unique_lock Lock(Running);
      for (size_t I = 0; I < N; ++I) {
        One(I);
        Prog->reclaimMaps();
        if (abi::TraceText T = Prog->takeTrace(); !T.Lines.empty() || T.Dropped)
          Trace.add(T);
      }
      return takeEventsLocked();
    }
    {
      // An operator's map command waiting for the lock goes first: new
      // batches wait (readers overlapping without a gap would starve it).
      while (OperatorsWaiting.load(std::memory_order_acquire))
        std::this_thread::yield();
      std::shared_lock Lock(Running);
      for (size_t I = 0; I < N; ++I)
        One(I);
    }
    // Deleted hash elements go back to the free lists only when no worker
    // is inside a batch; a worker that finds others running leaves it to
    // whoever finishes last.
    if (Running.try_lock()) {
      Prog->reclaimMaps();
      Trace.add(Prog->takeTrace());
      MaybeError E = takeEventsLocked();
      Running.unlock();
      return E;
    }
    return std::nullopt;
  }

  Expected<std::string> dumpMaps() override { return Prog->dumpMaps(); }
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) override {
    return Prog->updateMap(Map, Key, Value);
  }
  MaybeError setFib(const std::vector<uint8_t> &Block) override {
    std::unique_lock Lock(Running);
    Prog->setFib(Block);
    return std::nullopt;
  }

  MaybeError setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                         const std::string &Inner) override {
    // As accessMap: the daemon sets slots while workers run batches.
    OperatorsWaiting.fetch_add(1, std::memory_order_acq_rel);
    std::unique_lock Lock(Running);
    OperatorsWaiting.fetch_sub(1, std::memory_order_acq_rel);
    return Prog->setInnerMap(Outer, Key, Inner);
  }
  MaybeError checkMaps() override { return Prog->checkMaps(); }

  std::vector<runtime::MapInfo> maps() const override { return MapList; }

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
        ebpfgpu_map H =
            abi::globalDataHeader(D.Size, reinterpret_cast<uint64_t>(D.Bytes), D.SpinLockOff);
        return Op(H, Changed);
      }
    return Error("no map named '" + Name + "' in program " + this->Name);
  }

  Expected<std::string> takeTrace() override {
    std::unique_lock Lock(Running);
    Trace.add(Prog->takeTrace());
    return Trace.take();
  }
  Expected<std::string> takeEvents() override {
    std::unique_lock Lock(Running);
    if (MaybeError E = takeEventsLocked())
      return std::move(*E);
    return Events.take();
  }
  // The host reclaims between packets or batches of one worker's packets:
  // its spare elements never run out before the map is full.
  Expected<std::vector<std::string>> warnings() override { return Events.warnings(); }
  const std::string &programName() const override { return Name; }
  const char *backendName() const override { return "host"; }
  bool readsOnlyPackets() const override { return ReadOnlyPackets; }
  bool readsRxMetadata() const override { return RxMetadata; }

private:
  /// With no run in progress (Running held): the event maps' records.
  MaybeError takeEventsLocked() {
    abi::EventBatch B;
    if (MaybeError E = Prog->takeEvents(B))
      return E;
    Events.add(B);
    return std::nullopt;
  }
  void runOne(PacketBatch &Batch, size_t I, uint32_t Cpu) {
    platform::XdpRuntimeContext Ctx;
    Batch.prepareContext(I, Ctx);
    Ctx.cpu_id = Cpu;
    uint64_t V = Prog->runXdp(Ctx);
    Batch.finish(I, Ctx, V);
  }

  /// The maps and the global data `P` holds (those its code uses), each
  /// described from its spec in `Specs` (the object's, which P was
  /// compiled from): maps first, as the operator lists them.
  static std::vector<runtime::MapInfo> liveMaps(const compiler::HostProgram &P,
                                                const std::vector<object::MapSpec> &Specs) {
    std::vector<runtime::MapInfo> Out;
    auto Add = [&](const std::string &Name, bool Data) {
      auto It = std::find_if(Specs.begin(), Specs.end(), [&](const object::MapSpec &S) {
        return S.Name == Name && (S.Origin == platform::MapOrigin::GlobalData) == Data;
      });
      assert(It != Specs.end() && "the host program holds a map its object does not declare");
      Out.push_back(runtime::liveMap(*It));
    };
    for (const auto &M : P.maps())
      Add(M->name(), false);
    for (const compiler::HostProgram::DataView &D : P.globalData())
      Add(D.Name, true);
    return Out;
  }

  std::unique_ptr<compiler::HostProgram> Prog;
  std::string Name;
  HostReclaim Reclaim;
  bool ReadOnlyPackets;
  bool RxMetadata;
  std::vector<runtime::MapInfo> MapList;
  std::shared_mutex Running;
  std::atomic<unsigned> OperatorsWaiting{0};
  TraceCollector Trace;
  EventCollector Events;
};

} // namespace

Expected<std::shared_ptr<const VerifiedObject>>
readVerified(const std::string &Path, const std::vector<uint8_t> *Image,
             const std::string &Section, const object::ReadOptions &Read) {
  Expected<object::ObjectSpec> Obj =
      Image ? object::readObjectMemory(Image->data(), Image->size(), Path, Read)
            : object::readObjectFile(Path, Read);
  if (!Obj)
    return Obj.takeError();
  auto V = std::make_shared<VerifiedObject>();
  V->Obj = std::move(*Obj);
  Expected<const object::ProgramSpec *> P =
      chooseVerified(V->Obj, Path, Section, &V->ReadOnlyPackets, &V->RxMetadata);
  if (!P)
    return P.takeError();
  V->Prog = *P;
  return std::shared_ptr<const VerifiedObject>(std::move(V));
}

Expected<std::unique_ptr<BatchExecutor>>
makeHostExecutor(const VerifiedObject &V, const std::string &Path, const HostOptions &Opts) {
  const object::ProgramSpec &P = *V.Prog;
  auto Prog = compiler::HostProgram::compile(compiler::programSetFor(V.Obj, P), V.Obj.Maps,
                                             compiler::LiftOptions(), 2, Opts.Cpus);
  if (!Prog)
    return Error(Path + ": program " + P.Name + ": " + llvm::toString(Prog.takeError()));
  return std::unique_ptr<BatchExecutor>(
      new HostExecutor(std::move(*Prog), P.Name, Opts.Reclaim, V.ReadOnlyPackets, V.RxMetadata,
                       V.Obj.Maps));
}

Expected<abi::GpuObjectSpec> compileForGpu(const VerifiedObject &V, const std::string &Path,
                                           bool SystemAtomics) {
  compiler::GpuOptions Gpu;
  Gpu.PacketsReadOnly = V.ReadOnlyPackets;
  Gpu.SystemScopeAtomics = SystemAtomics;
  auto G = compiler::buildGpuObject(V.Obj, *V.Prog, compiler::LiftOptions(), Gpu,
                                    /*Verified=*/true);
  if (!G)
    return Error(Path + ": program " + V.Prog->Name + ": " + llvm::toString(G.takeError()));
  return std::move(*G);
}
#endif // EBPF_GPU_LOADER_WITH_COMPILER

namespace {

/// The null back end's lane: staged descriptors get XDP_DROP verdicts in
/// submitStaged, so the data plane's in-place path is measured as the
/// GPU's lanes use it, without the GPU.
class NullLane final : public runtime::BatchLane {
public:
  explicit NullLane(unsigned Depth) : Slots(Depth) {}
  unsigned depth() const override { return unsigned(Slots.size()); }
  MaybeError submit(unsigned Slot, PacketBatch &Batch) override {
    for (size_t I = 0; I < Batch.size(); ++I)
      Batch.setOutcome(I, Batch.offset(I), Batch.length(I), uint64_t(runtime::XdpAction::Drop), 0);
    return std::nullopt;
  }
  Expected<bool> poll(unsigned Slot, bool Wait) override { return true; }
  ebpfgpu_packet_desc *stage(unsigned Slot, uint32_t Capacity) override {
    Staged &S = Slots[Slot];
    if (S.Descs.size() < Capacity) {
      S.Descs.resize(Capacity);
      S.Verdicts.resize(Capacity);
    }
    return S.Descs.data();
  }
  MaybeError submitStaged(unsigned Slot, uint32_t Count) override {
    Staged &S = Slots[Slot];
    for (uint32_t K = 0; K < Count; ++K)
      S.Verdicts[K] = ebpfgpu_verdict{uint32_t(runtime::XdpAction::Drop), S.Descs[K].data_offset,
                                      S.Descs[K].length, 0};
    return std::nullopt;
  }
  const ebpfgpu_verdict *verdicts(unsigned Slot) const override {
    return Slots[Slot].Verdicts.data();
  }

private:
  struct Staged {
    std::vector<ebpfgpu_packet_desc> Descs;
    std::vector<ebpfgpu_verdict> Verdicts;
  };
  std::vector<Staged> Slots;
};

class NullExecutor final : public BatchExecutor {
public:
  MaybeError run(PacketBatch &Batch) override {
    for (size_t I = 0; I < Batch.size(); ++I)
      Batch.setOutcome(I, Batch.offset(I), Batch.length(I), uint64_t(runtime::XdpAction::Drop), 0);
    return std::nullopt;
  }
  Expected<std::unique_ptr<runtime::BatchLane>> openLane(unsigned Depth, unsigned) override {
    return std::unique_ptr<runtime::BatchLane>(new NullLane(std::max(Depth, 1u)));
  }
  Expected<std::string> dumpMaps() override { return std::string(); }
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &,
                       const std::vector<uint8_t> &) override {
    return Error("no map " + Map + " (the null back end runs no program)");
  }
  MaybeError setFib(const std::vector<uint8_t> &) override { return std::nullopt; }
  MaybeError setInnerMap(const std::string &Outer, const std::vector<uint8_t> &,
                         const std::string &) override {
    return Error("no map " + Outer + " (the null back end runs no program)");
  }
  MaybeError checkMaps() override { return std::nullopt; }
  Expected<std::string> takeTrace() override { return std::string(); }
  Expected<std::string> takeEvents() override { return std::string(); }
  Expected<std::vector<std::string>> warnings() override { return std::vector<std::string>(); }
  std::vector<runtime::MapInfo> maps() const override { return {}; }
  MaybeError accessMap(const std::string &Name, const runtime::MapOperation &) override {
    return Error("no map " + Name + " (the null back end runs no program)");
  }
  const std::string &programName() const override { return Name; }
  const char *backendName() const override { return "null"; }
  bool readsOnlyPackets() const override { return true; }

private:
  std::string Name = "(none)";
};

} // namespace

std::unique_ptr<BatchExecutor> makeNullExecutor() { return std::make_unique<NullExecutor>(); }

} // namespace ebpfgpu::exec

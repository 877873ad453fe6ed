// SPDX-License-Identifier: Apache-2.0
//
// The data plane workers' lanes to the GPU (GpuExecutor::openLane): a
// launch-mode runner per slot, or a persistent kernel of the worker's own
// with a ring slot per batch in flight.

#include "GpuExecutor.h"

#ifdef EBPF_GPU_HAVE_CUDA
namespace ebpfgpu::exec::gpu {

/// A worker's own way to the GPU (GpuExecOptions::AsyncLanes): a launch-mode
/// runner per slot, each with its stream and pinned buffers, so that the
/// worker's batches and other workers' run on the GPU while it receives
/// and acts on others. Only for programs whose batches need nothing from
/// the host between them (GpuProgram::needsHostBetweenBatches). A program
/// whose hashed maps the device reclaims has its lane's batches on one
/// stream of the executor's GpuReclaimBarrier: they overlap other lanes'
/// batches but never a reclaim.
class GpuLane final : public runtime::BatchLane {
public:
  GpuLane(GpuExecutor &X, unsigned Depth, int Stream)
      : X(X), Slots(Depth), BarrierStream(Stream) {}
  ~GpuLane() override {
    if (X.Dev->bindThread())
      return;
    for (Slot &S : Slots)
      S.Runner.reset(); // waits for a batch still in flight
    if (BarrierStream >= 0)
      X.Barrier->release(unsigned(BarrierStream));
  }
  unsigned depth() const override { return unsigned(Slots.size()); }

  MaybeError submit(unsigned Index, PacketBatch &Batch) override {
    if (MaybeError E = bind())
      return E;
    Slot &S = Slots[Index];
    S.Batch = &Batch;
    const uint32_t Count = uint32_t(Batch.size());
    // Mapped path with every packet in mapped packet memory (mbufs): the
    // kernel runs them where they are; otherwise they are copied into the
    // runner's frames.
    S.InPlace = X.Opts.Path == loader::GpuDataPath::Mapped && !X.PacketRanges.empty();
    if (S.InPlace) {
      if (MaybeError E = ensureRunner(S, std::max<uint32_t>(Count, 1), 0))
        return E;
      S.InPlace = X.describeInPlace(Batch, S.Runner->descs(), Hint, nullptr, 0);
      if (S.InPlace) {
        if (MaybeError E = start(S, Count, 0, true))
          return E;
        X.InPlacePackets += Count;
        S.InFlight = true;
        return std::nullopt;
      }
    }
    if (MaybeError E = ensureRunner(S, std::max<uint32_t>(Count, 1), GpuExecutor::frameBytes(Batch)))
      return E;
    size_t At =
        GpuExecutor::copyIntoFrames(Batch, S.Runner->descs(), S.Runner->frames(), nullptr, 0);
    S.Bytes = At;
    if (MaybeError E = start(S, Count, At, false))
      return E;
    S.InFlight = true;
    return std::nullopt;
  }

  ebpfgpu_packet_desc *stage(unsigned Index, uint32_t Capacity) override {
    if (X.Opts.Path != loader::GpuDataPath::Mapped || X.PacketRanges.empty() || bind())
      return nullptr;
    Slot &S = Slots[Index];
    if (ensureRunner(S, std::max<uint32_t>(Capacity, 1), 0))
      return nullptr;
    return S.Runner->descs();
  }

  MaybeError submitStaged(unsigned Index, uint32_t Count) override {
    if (MaybeError E = bind())
      return E;
    Slot &S = Slots[Index];
    if (MaybeError E = X.mapStaged(S.Runner->descs(), Count, Hint, nullptr))
      return E;
    S.Staged = Count;
    S.InPlace = true;
    S.Batch = nullptr;
    if (MaybeError E = start(S, Count, 0, true))
      return E;
    X.InPlacePackets += Count;
    S.InFlight = true;
    return std::nullopt;
  }

  const ebpfgpu_verdict *verdicts(unsigned Index) const override {
    return Slots[Index].Runner ? Slots[Index].Runner->verdicts() : nullptr;
  }

  Expected<bool> poll(unsigned Index, bool Wait) override {
    Slot &S = Slots[Index];
    if (!S.Runner || !S.InFlight)
      return true;
    if (MaybeError E = bind())
      return std::move(*E);
    auto Done = S.Runner->done(Wait);
    if (!Done) {
      S.InFlight = false;
      S.Batch = nullptr;
      return Done.takeError();
    }
    if (!*Done)
      return false;
    S.InFlight = false;
    PacketBatch *Batch = std::exchange(S.Batch, nullptr);
    if (MaybeError E = Batch ? GpuExecutor::takeOutcomes(*Batch, S.Runner->verdicts(),
                                                         S.Runner->frames(), S.InPlace)
                             : GpuExecutor::checkStaged(S.Runner->verdicts(), S.Runner->descs(),
                                                        S.Staged))
      return std::move(*E);
    return true;
  }

private:
  struct Slot {
    std::unique_ptr<loader::GpuRunner> Runner;
    PacketBatch *Batch = nullptr; ///< in flight (null: staged descriptors)
    bool InFlight = false, InPlace = false;
    uint32_t Staged = 0;
    size_t Bytes = 0;
  };

  /// Starts the slot's batch; through the reclaim barrier where there is
  /// one (never beside a reclaim or a host operation on the maps:
  /// GpuExecutor::lockMaps).
  MaybeError start(Slot &S, uint32_t Count, size_t Bytes, bool InPlace) {
    if (BarrierStream < 0)
      return S.Runner->start(Count, Bytes, InPlace);
    return X.Barrier->launch(unsigned(BarrierStream), Count,
                             [&] { return S.Runner->start(Count, Bytes, InPlace); });
  }

  /// The lane's context current on its worker (a no-op when it is).
  MaybeError bind() { return X.Dev->bindThread(); }

  MaybeError ensureRunner(Slot &S, uint32_t Count, size_t Bytes) {
    if (S.Runner && S.Runner->options().MaxPackets >= Count &&
        S.Runner->options().MaxFrameBytes >= Bytes)
      return std::nullopt;
    loader::GpuRunnerOptions RO;
    RO.Mode = loader::GpuMode::Launch;
    RO.Path = X.Opts.Path;
    RO.WatchdogMs = X.Opts.WatchdogMs;
    RO.Stage = X.stages();
    // A program whose maps the device reclaims: the lane's batches on its
    // stream of the reclaim barrier.
    RO.Stream = BarrierStream >= 0 ? X.Barrier->stream(unsigned(BarrierStream)) : nullptr;
    RO.MaxPackets = std::max(Count, S.Runner ? S.Runner->options().MaxPackets : 0);
    RO.MaxFrameBytes = std::max(Bytes, S.Runner ? S.Runner->options().MaxFrameBytes : 0);
    S.Runner.reset();
    auto R = loader::GpuRunner::create(*X.Dev, *X.Prog, RO);
    if (!R)
      return R.takeError().withContext("gpu back end");
    S.Runner = std::move(*R);
    return std::nullopt;
  }

  GpuExecutor &X;
  std::vector<Slot> Slots;
  size_t Hint = SIZE_MAX; ///< the packet range the last packet was in
  int BarrierStream;      ///< its stream of X.Barrier, or -1 (none)
};

/// A worker's own persistent kernel (GpuExecOptions::AsyncLanes, persistent
/// mode, packets in mapped packet memory): a runner whose ring has a slot
/// per batch in flight, each with arrays of its own, so that the worker
/// posts a batch while its earlier ones run and nothing waits for the GPU
/// unless every slot is busy. Each lane's kernel has blocks of its own
/// (every lane's resident at once) and CPUs of its own (worker w's threads
/// are CPUs w * threads ...), so that per-CPU maps stay per CPU. Only for
/// programs whose batches need nothing from the host, nor a reclaim,
/// between them.
class PersistentLane final : public runtime::BatchLane {
public:
  PersistentLane(GpuExecutor &X, std::unique_ptr<loader::GpuRunner> Runner)
      : X(X), Runner(std::move(Runner)),
        Batches(this->Runner->options().Slots, nullptr), Staged(Batches.size(), 0),
        InPlace(Batches.size(), false) {
    std::lock_guard Lock(X.LaneMutex);
    X.LaneRunners.push_back(this->Runner.get());
  }
  ~PersistentLane() override {
    {
      // Freeing the runner's memory may wait for an idle device: every
      // lane's kernel is asked to end first (the lanes of a binding go
      // together, their batches done).
      std::lock_guard Lock(X.LaneMutex);
      for (loader::GpuRunner *R : X.LaneRunners)
        R->stopSoon();
      X.LaneRunners.erase(std::find(X.LaneRunners.begin(), X.LaneRunners.end(), Runner.get()));
    }
    if (!X.Dev->bindThread())
      Runner.reset(); // stops the kernel once its batches are done
    else
      (void)Runner.release(); // no context to free it in
  }
  unsigned depth() const override { return unsigned(Batches.size()); }

  MaybeError submit(unsigned Index, PacketBatch &Batch) override {
    if (MaybeError E = bind())
      return E;
    const uint32_t Count = uint32_t(Batch.size());
    if (Count > Runner->options().MaxPackets)
      return Error("a batch of " + std::to_string(Count) + " packets in a lane of " +
                   std::to_string(Runner->options().MaxPackets));
    ebpfgpu_packet_desc *Descs = Runner->descs(Index);
    InPlace[Index] = X.describeInPlace(Batch, Descs, Hint, Runner.get(), Index);
    size_t At = 0;
    if (!InPlace[Index]) {
      if (GpuExecutor::frameBytes(Batch) > Runner->options().MaxFrameBytes)
        return Error("the batch's frames exceed the lane's buffers");
      At = GpuExecutor::copyIntoFrames(Batch, Descs, Runner->frames(Index), Runner.get(), Index);
    }
    if (MaybeError E = Runner->post(Index, Count, At, InPlace[Index]))
      return E;
    if (InPlace[Index])
      X.InPlacePackets += Count;
    Batches[Index] = &Batch;
    return std::nullopt;
  }

  ebpfgpu_packet_desc *stage(unsigned Index, uint32_t Capacity) override {
    if (Capacity > Runner->options().MaxPackets || Index >= Batches.size())
      return nullptr;
    return Runner->descs(Index);
  }

  MaybeError submitStaged(unsigned Index, uint32_t Count) override {
    if (MaybeError E = bind())
      return E;
    if (MaybeError E = X.mapStaged(Runner->descs(Index), Count, Hint, Runner.get(), Index))
      return E;
    if (MaybeError E = Runner->post(Index, Count, 0, true))
      return E;
    X.InPlacePackets += Count;
    Batches[Index] = nullptr;
    Staged[Index] = Count;
    return std::nullopt;
  }

  const ebpfgpu_verdict *verdicts(unsigned Index) const override {
    return Runner->verdicts(Index);
  }
  bool readsPacketBytes() const override { return Runner->inlines(); }

  Expected<bool> poll(unsigned Index, bool Wait) override {
    auto Done = Runner->done(Index, Wait);
    if (!Done || !*Done) {
      if (!Done)
        Batches[Index] = nullptr;
      return Done;
    }
    PacketBatch *Batch = std::exchange(Batches[Index], nullptr);
    if (MaybeError E = Batch ? GpuExecutor::takeOutcomes(*Batch, Runner->verdicts(Index),
                                                         Runner->frames(Index), InPlace[Index])
                             : GpuExecutor::checkStaged(Runner->verdicts(Index),
                                                        Runner->descs(Index), Staged[Index]))
      return std::move(*E);
    return true;
  }

private:
  /// The lane's context current on its worker (a no-op when it is).
  MaybeError bind() { return X.Dev->bindThread(); }

  GpuExecutor &X;
  std::unique_ptr<loader::GpuRunner> Runner;
  std::vector<PacketBatch *> Batches; ///< a slot's batch in flight (null: staged)
  std::vector<uint32_t> Staged;       ///< a staged slot's packets
  std::vector<bool> InPlace;
  size_t Hint = SIZE_MAX;
};

Expected<std::unique_ptr<runtime::BatchLane>> GpuExecutor::openPersistentLane(unsigned Depth,
                                                                              unsigned Worker) {
  std::lock_guard Lock(Launching);
  if (MaybeError E = Dev->bindThread())
    return std::move(*E);
  // Every lane's kernel is resident beside the others: the executor's own
  // kernel (run()) gives its blocks back, to start again only if run() is
  // called.
  Runner.reset();
  const uint32_t Batch = uint32_t(Opts.LaunchSize ? Opts.LaunchSize : 256);
  const uint32_t Blocks =
      Opts.Blocks ? Opts.Blocks : (Batch + loader::GpuBlockThreads - 1) / loader::GpuBlockThreads;
  auto Resident = loader::GpuRunner::persistentBlocksResident(*Dev, *Prog);
  if (!Resident)
    return Resident.takeError().withContext("gpu back end");
  const uint64_t Threads = uint64_t(Blocks) * loader::GpuBlockThreads;
  if (uint64_t(Worker + 1) * Blocks > *Resident || (Worker + 1) * Threads > Prog->cpus())
    return Error("gpu back end: persistent mode: " + std::to_string(Worker + 1) + " workers of " +
                 std::to_string(Blocks) + " blocks each exceed the " +
                 std::to_string(std::min<uint64_t>(*Resident, Prog->cpus() / loader::GpuBlockThreads)) +
                 " blocks the GPU holds at once for this program (fewer workers, a smaller "
                 "--batch or --gpu-blocks)");
  loader::GpuRunnerOptions RO;
  RO.Mode = loader::GpuMode::Persistent;
  RO.Path = loader::GpuDataPath::Mapped;
  RO.Blocks = Blocks;
  RO.WatchdogMs = Opts.WatchdogMs;
  RO.Stage = stages();
  RO.MaxPackets = Batch;
  RO.MaxFrameBytes = Batch * bufferBytes(Opts.MaxFrame);
  if (Depth > EBPFGPU_RING_SLOTS)
    return Error("gpu back end: persistent mode keeps at most " +
                 std::to_string(EBPFGPU_RING_SLOTS) + " batches in flight a worker, not " +
                 std::to_string(Depth));
  RO.Slots = Depth;
  RO.CpuBase = uint32_t(Worker * Threads);
  RO.StartAtFirstPost = true; // every lane's memory before any kernel runs
  auto R = loader::GpuRunner::create(*Dev, *Prog, RO);
  if (!R)
    return R.takeError().withContext("gpu back end");
  return std::unique_ptr<runtime::BatchLane>(new PersistentLane(*this, std::move(*R)));
}

Expected<std::unique_ptr<runtime::BatchLane>> GpuExecutor::openLane(unsigned Depth,
                                                                    unsigned Worker) {
  if (Opts.AsyncLanes && Opts.PersistentLanes && Opts.Mode == loader::GpuMode::Persistent &&
      Depth > 0 &&
      Opts.Path == loader::GpuDataPath::Mapped && !PacketRanges.empty() &&
      !Prog->needsHostBetweenBatches() && !Prog->reclaimsOnDevice())
    return openPersistentLane(Depth, Worker);
  // A lane runs each batch as one launch (the data plane's batches are at
  // most its batch size, which is what LaunchSize is set to there).
  bool Async = Opts.AsyncLanes && Opts.Mode == loader::GpuMode::Launch && Depth > 0 &&
               !Prog->needsHostBetweenBatches();
  if (!Async)
    return BatchExecutor::openLane(Depth, Worker);
  std::lock_guard Lock(Launching);
  if (MaybeError E = Dev->bindThread())
    return std::move(*E);
  int Stream = -1;
  if (Prog->reclaimsOnDevice()) {
    auto B = barrier();
    if (!B)
      return B.takeError().withContext("gpu back end");
    auto S = (*B)->addStream();
    if (!S)
      return S.takeError().withContext("gpu back end");
    Stream = int(*S);
  }
  return std::unique_ptr<runtime::BatchLane>(new GpuLane(*this, Depth, Stream));
}

} // namespace ebpfgpu::exec::gpu
#endif // EBPF_GPU_HAVE_CUDA

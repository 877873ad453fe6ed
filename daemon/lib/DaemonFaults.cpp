// SPDX-License-Identifier: Apache-2.0
//
// The guard around a daemon program's back end: counting and containing
// back-end failures, and the test-only fault injection.

#include "ebpf-gpu/Daemon/DaemonFaults.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

namespace ebpfgpu::tools {

namespace {
const char *const NoBackendText = "the back end failed and is being re-created";
}

Expected<FaultInjection> FaultInjection::parse(const std::string &Text) {
  FaultInjection F;
  size_t At = 0;
  while (At <= Text.size()) {
    size_t End = Text.find(',', At);
    std::string Part = Text.substr(At, End == std::string::npos ? std::string::npos : End - At);
    char *Stop = nullptr;
    unsigned long long N =
        Part.empty() || Part[0] == '-' ? 0 : std::strtoull(Part.c_str(), &Stop, 10);
    if (!N || !Stop || *Stop)
      return Error("batch numbers to fail must be whole numbers from 1, "
                   "separated by commas, not '" +
                   Text + "'");
    F.FailBatches.push_back(N);
    if (End == std::string::npos)
      break;
    At = End + 1;
  }
  std::sort(F.FailBatches.begin(), F.FailBatches.end());
  return F;
}

bool FaultInjection::fails(uint64_t Batch) const {
  return std::binary_search(FailBatches.begin(), FailBatches.end(), Batch);
}

GuardedExecutor::GuardedExecutor(std::shared_ptr<runtime::BatchExecutor> In, FaultInjection Inject,
                                 std::function<void()> OnFault)
    : Inner(std::move(In)), MapList(Inner->maps()), Name(Inner->programName()),
      Backend(Inner->backendName()), ReadOnlyPackets(Inner->readsOnlyPackets()),
      RxMetadata(Inner->readsRxMetadata()),
      Inject(std::move(Inject)), OnFault(std::move(OnFault)) {}

MaybeError GuardedExecutor::refuse(size_t Packets) {
  FailedBatches.fetch_add(1, std::memory_order_relaxed);
  FailedPackets.fetch_add(Packets, std::memory_order_relaxed);
  return ebpfgpu::Error("the back end failed and is being re-created; batch not run");
}

MaybeError GuardedExecutor::nextBatch() {
  uint64_t N = Batches.fetch_add(1, std::memory_order_relaxed) + 1;
  if (Inject.empty() || !Inject.fails(N))
    return std::nullopt;
  return ebpfgpu::Error("injected fault at batch " + std::to_string(N) +
                        " (test only: EBPF_GPU_LOADER_TEST_FAIL_BATCHES)");
}

void GuardedExecutor::fault(const Error &E, size_t Packets) {
  FailedBatches.fetch_add(1, std::memory_order_relaxed);
  FailedPackets.fetch_add(Packets, std::memory_order_relaxed);
  record(E);
}

void GuardedExecutor::record(const Error &E) {
  if (Faulted.exchange(true, std::memory_order_acq_rel))
    return;
  {
    std::lock_guard G(ErrorLock);
    ErrorText = E.message();
  }
  Faults.fetch_add(1, std::memory_order_relaxed);
  if (OnFault)
    OnFault();
}

MaybeError GuardedExecutor::run(runtime::PacketBatch &Batch) {
  // A failed back end is not called again: its batches fail here, and the
  // control thread's takeOut() cannot be starved by workers holding the
  // lock in turn.
  if (Faulted.load(std::memory_order_acquire))
    return refuse(Batch.size());
  std::shared_lock L(Lock, std::try_to_lock);
  if (!L.owns_lock() || !Inner)
    return refuse(Batch.size());
  MaybeError E = nextBatch();
  if (!E)
    E = Inner->run(Batch);
  if (E)
    fault(*E, Batch.size());
  return E;
}

/// A worker's lane into the guarded back end: a lane of the back end's own
/// (opened again after a recovery), whose batches are counted and whose
/// failures fault the guard as run()'s do. Its lock is held by the worker
/// inside each call and by the control thread closing the inner lane, which
/// it does only when no slot is in use (staged, in flight, or acted on and
/// not yet finished): the worker may read and write a slot's memory between
/// calls.
class GuardedLane final : public runtime::BatchLane {
public:
  GuardedLane(GuardedExecutor &G, unsigned Depth, unsigned Worker,
              std::unique_ptr<runtime::BatchLane> In)
      : G(G), Depth(In->depth()), Worker(Worker), Asked(Depth), Inner(std::move(In)),
        Use(this->Depth, Idle), Packets(this->Depth, 0) {}
  ~GuardedLane() override {
    G.forget(this);
    std::lock_guard L(M);
    Inner.reset();
  }
  unsigned depth() const override { return Depth; }

  MaybeError submit(unsigned Slot, runtime::PacketBatch &Batch) override {
    std::lock_guard L(M);
    Use[Slot] = Idle;
    return start(Slot, Batch.size(), [&](runtime::BatchLane &In) { return In.submit(Slot, Batch); });
  }
  ebpfgpu_packet_desc *stage(unsigned Slot, uint32_t Capacity) override {
    std::lock_guard L(M);
    runtime::BatchLane *In = current();
    ebpfgpu_packet_desc *D = In ? In->stage(Slot, Capacity) : nullptr;
    Use[Slot] = D ? Staged : Idle;
    return D;
  }
  MaybeError submitStaged(unsigned Slot, uint32_t Count) override {
    std::lock_guard L(M);
    if (Use[Slot] != Staged)
      return G.refuse(Count);
    Use[Slot] = Idle;
    return start(Slot, Count, [&](runtime::BatchLane &In) { return In.submitStaged(Slot, Count); });
  }
  Expected<bool> poll(unsigned Slot, bool Wait) override {
    std::lock_guard L(M);
    if (Use[Slot] != InFlight)
      return true;
    // A batch in flight runs to its end (or its failure) even when another
    // worker's batch faulted the back end meanwhile.
    Expected<bool> Done = Inner->poll(Slot, Wait);
    if (!Done) {
      Use[Slot] = Idle;
      G.fault(Done.error(), Packets[Slot]);
    } else if (*Done) {
      Use[Slot] = Acting;
    }
    return Done;
  }
  const ebpfgpu_verdict *verdicts(unsigned Slot) const override {
    std::lock_guard L(M);
    return Inner ? Inner->verdicts(Slot) : nullptr;
  }
  bool readsPacketBytes() const override {
    std::lock_guard L(M);
    return Inner && Inner->readsPacketBytes();
  }
  void finish(unsigned Slot) override {
    std::lock_guard L(M);
    if (Inner)
      Inner->finish(Slot);
    Use[Slot] = Idle;
  }

  /// The control thread, taking the back end out: whether the worker uses
  /// none of the lane's slots; then, with `Close`, the inner lane closed.
  bool idle(bool Close) {
    std::lock_guard L(M);
    if (Inner && std::any_of(Use.begin(), Use.end(), [](uint8_t U) { return U != Idle; }))
      return false;
    if (Close)
      Inner.reset();
    return true;
  }

private:
  enum : uint8_t { Idle, Staged, InFlight, Acting };

  /// The lane new batches go to: none while the back end is faulted or
  /// out; after a recovery, a lane of the new back end.
  runtime::BatchLane *current() {
    if (G.Faulted.load(std::memory_order_acquire))
      return nullptr;
    if (Inner)
      return Inner.get();
    std::shared_lock L(G.Lock, std::try_to_lock);
    if (!L.owns_lock() || !G.Inner)
      return nullptr;
    auto In = G.Inner->openLane(Asked, Worker);
    if (!In) {
      G.record(In.takeError().withContext("a lane of the re-created back end"));
      return nullptr;
    }
    if ((*In)->depth() != Depth) {
      G.record(Error("a lane of the re-created back end has " + std::to_string((*In)->depth()) +
                     " slots, not " + std::to_string(Depth)));
      return nullptr;
    }
    Inner = std::move(*In);
    return Inner.get();
  }

  template <typename Fn> MaybeError start(unsigned Slot, size_t Count, Fn &&Start) {
    runtime::BatchLane *In = current();
    if (!In)
      return G.refuse(Count);
    MaybeError E = G.nextBatch();
    if (!E)
      E = Start(*In);
    if (E) {
      G.fault(*E, Count);
      return E;
    }
    Use[Slot] = InFlight;
    Packets[Slot] = Count;
    return std::nullopt;
  }

  GuardedExecutor &G;
  const unsigned Depth, Worker, Asked;
  mutable std::mutex M;
  std::unique_ptr<runtime::BatchLane> Inner;
  std::vector<uint8_t> Use;
  std::vector<size_t> Packets; ///< a slot's batch in flight
};

Expected<std::unique_ptr<runtime::BatchLane>> GuardedExecutor::openLane(unsigned Depth,
                                                                        unsigned Worker) {
  std::shared_lock L(Lock);
  if (!Inner)
    return ebpfgpu::Error(NoBackendText);
  auto In = Inner->openLane(Depth, Worker);
  if (!In)
    return In.takeError();
  auto Out = std::make_unique<GuardedLane>(*this, Depth, Worker, std::move(*In));
  std::lock_guard G(LanesLock);
  Lanes.push_back(Out.get());
  return std::unique_ptr<runtime::BatchLane>(std::move(Out));
}

void GuardedExecutor::forget(GuardedLane *L) {
  std::lock_guard G(LanesLock);
  Lanes.erase(std::find(Lanes.begin(), Lanes.end(), L));
}

std::shared_ptr<void> GuardedExecutor::quiesce() {
  std::shared_lock L(Lock);
  return Inner ? Inner->quiesce() : nullptr;
}

std::string GuardedExecutor::faultError() const {
  std::lock_guard G(ErrorLock);
  return ErrorText;
}

std::shared_ptr<runtime::BatchExecutor>
GuardedExecutor::takeOut(const std::function<void(runtime::BatchExecutor &)> &WhileIdle) {
  Faulted.store(true, std::memory_order_release); // new batches stay out
  std::shared_ptr<runtime::BatchExecutor> Out;
  {
    std::unique_lock L(Lock);
    Out = std::move(Inner);
  }
  // Every worker acts on (or fails) the batches it has in flight, which
  // end by their watchdog at the latest; none starts another.
  auto WaitIdle = [&](bool Close) {
    for (;;) {
      bool Busy = false;
      {
        std::lock_guard G(LanesLock);
        for (GuardedLane *Lane : Lanes)
          Busy |= !Lane->idle(Close);
      }
      if (!Busy)
        return;
      std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  };
  WaitIdle(false);
  if (Out && WhileIdle)
    WhileIdle(*Out);
  // Its lanes go before it (closing a GPU lane whose kernel hangs aborts
  // it, after which its maps cannot be read).
  WaitIdle(true);
  return Out;
}

void GuardedExecutor::install(std::shared_ptr<runtime::BatchExecutor> In) {
  std::unique_lock L(Lock);
  Inner = std::move(In);
  Faulted.store(false, std::memory_order_release);
}


#define EBPFGPU_FORWARD(CALL)                                                                      \
  std::shared_lock L(Lock);                                                                        \
  if (!Inner)                                                                                      \
    return ebpfgpu::Error(NoBackendText);                                                              \
  return Inner->CALL

Expected<std::string> GuardedExecutor::dumpMaps() { EBPFGPU_FORWARD(dumpMaps()); }
MaybeError GuardedExecutor::updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                                      const std::vector<uint8_t> &Value) {
  EBPFGPU_FORWARD(updateMap(Map, Key, Value));
}
MaybeError GuardedExecutor::setFib(const std::vector<uint8_t> &Block) {
  EBPFGPU_FORWARD(setFib(Block));
}
MaybeError GuardedExecutor::setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                                        const std::string &In) {
  EBPFGPU_FORWARD(setInnerMap(Outer, Key, In));
}
MaybeError GuardedExecutor::checkMaps() { EBPFGPU_FORWARD(checkMaps()); }
Expected<std::string> GuardedExecutor::takeTrace() { EBPFGPU_FORWARD(takeTrace()); }
Expected<std::string> GuardedExecutor::takeEvents() { EBPFGPU_FORWARD(takeEvents()); }
Expected<std::vector<std::string>> GuardedExecutor::warnings() { EBPFGPU_FORWARD(warnings()); }
MaybeError GuardedExecutor::accessMap(const std::string &Name, const runtime::MapOperation &Op) {
  EBPFGPU_FORWARD(accessMap(Name, Op));
}

#undef EBPFGPU_FORWARD

} // namespace ebpfgpu::tools

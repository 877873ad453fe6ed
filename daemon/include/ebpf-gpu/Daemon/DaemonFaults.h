// SPDX-License-Identifier: Apache-2.0
//
// Back-end fault containment for the daemon: a BatchExecutor wrapper that
// the ports run instead of the back end itself. When the back end fails a
// batch (a driver error, a persistent GPU kernel the watchdog gave up on)
// the guard marks itself faulted and tells the daemon; from then on
// batches fail at once, without touching the broken back end (the worker
// counts their packets as exec_failed), until the daemon has swapped a new
// back end in. The swap waits until no call is inside the old one, so the
// old one can then be torn down safely. A test-only fault injection makes
// chosen batches fail, so the recovery path runs without a broken GPU.
//
// The data plane's workers reach the back end through lanes the guard
// wraps (openLane): each wraps a lane of the current back end, counted and
// contained like run(), and knows which of its slots the worker still
// uses (staged, in flight, or acted on: BatchLane::finish). Taking the
// back end out closes every inner lane once its worker is done with its
// slots, so no lane outlives its back end; the lanes of the next back end
// open at their workers' next batches.

#ifndef EBPF_GPU_DAEMON_DAEMONFAULTS_H
#define EBPF_GPU_DAEMON_DAEMONFAULTS_H

#include "ebpf-gpu/Runtime/BatchExecutor.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

/// Test only: batch numbers (1-based, counted per program) that fail.
struct FaultInjection {
  std::vector<uint64_t> FailBatches;

  /// "N[,N...]" (the daemon's EBPF_GPU_LOADER_TEST_FAIL_BATCHES).
  static Expected<FaultInjection> parse(const std::string &Text);
  bool fails(uint64_t Batch) const;
  bool empty() const { return FailBatches.empty(); }
};

class GuardedLane;

class GuardedExecutor final : public runtime::BatchExecutor {
public:
  /// `OnFault` is called (from the failing worker, once per fault) when
  /// the back end fails a batch.
  GuardedExecutor(std::shared_ptr<runtime::BatchExecutor> Inner, FaultInjection Inject,
                  std::function<void()> OnFault);

  // Workers.
  MaybeError run(runtime::PacketBatch &Batch) override;
  /// A lane of the back end's own (GPU runners with batches in flight, the
  /// host's per-worker CPU), guarded.
  Expected<std::unique_ptr<runtime::BatchLane>> openLane(unsigned Depth,
                                                         unsigned Worker) override;

  // Everything else forwards to the back end (fails while there is none).
  Expected<std::string> dumpMaps() override;
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) override;
  MaybeError setFib(const std::vector<uint8_t> &Block) override;
  MaybeError setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                         const std::string &Inner) override;
  MaybeError checkMaps() override;
  Expected<std::string> takeTrace() override;
  Expected<std::string> takeEvents() override;
  Expected<std::vector<std::string>> warnings() override;
  std::vector<runtime::MapInfo> maps() const override { return MapList; }
  MaybeError accessMap(const std::string &Name, const runtime::MapOperation &Op) override;
  std::shared_ptr<void> quiesce() override;
  const std::string &programName() const override { return Name; }
  const char *backendName() const override { return Backend.c_str(); }
  bool readsOnlyPackets() const override { return ReadOnlyPackets; }
  bool readsRxMetadata() const override { return RxMetadata; }

  // The control thread.
  bool faulted() const { return Faulted.load(std::memory_order_acquire); }
  /// The first error of the current fault.
  std::string faultError() const;
  uint64_t faults() const { return Faults.load(std::memory_order_relaxed); }
  /// Batches and packets refused because the back end had failed (the one
  /// that failed included).
  uint64_t failedBatches() const { return FailedBatches.load(std::memory_order_relaxed); }
  uint64_t failedPackets() const { return FailedPackets.load(std::memory_order_relaxed); }
  /// Takes the back end out: waits until no call is inside it and its
  /// lanes' workers are done with their batches in flight (a GPU batch
  /// returns by its watchdog at the latest), runs `WhileIdle` on it (its
  /// lanes still open, none running: the maps read as the batches left
  /// them), then closes its lanes; later calls fail until install(). The
  /// caller owns what it returns.
  std::shared_ptr<runtime::BatchExecutor>
  takeOut(const std::function<void(runtime::BatchExecutor &)> &WhileIdle = {});
  /// Puts a back end (of the same program) in and clears the fault.
  void install(std::shared_ptr<runtime::BatchExecutor> Inner);

private:
  friend class GuardedLane;
  MaybeError refuse(size_t Packets);
  /// The next batch's number; the injected fault, when it is one.
  MaybeError nextBatch();
  /// A batch of `Packets` the back end failed (`E`): counted, and the
  /// fault recorded and told once.
  void fault(const Error &E, size_t Packets);
  /// The fault recorded and told, once.
  void record(const Error &E);
  void forget(GuardedLane *L);

  mutable std::shared_mutex Lock; ///< shared: a call inside Inner
  std::shared_ptr<runtime::BatchExecutor> Inner;
  std::vector<runtime::MapInfo> MapList;
  std::string Name, Backend;
  bool ReadOnlyPackets = false; ///< the program's, whichever back end runs it
  bool RxMetadata = false;      ///< likewise
  FaultInjection Inject;
  std::function<void()> OnFault;
  std::atomic<bool> Faulted{false};
  std::atomic<uint64_t> Batches{0}, Faults{0}, FailedBatches{0}, FailedPackets{0};
  mutable std::mutex ErrorLock;
  std::string ErrorText;
  std::mutex LanesLock; ///< Lanes; taken before a lane's own lock
  std::vector<GuardedLane *> Lanes;
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_DAEMON_DAEMONFAULTS_H

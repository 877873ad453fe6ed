// SPDX-License-Identifier: Apache-2.0
//
// The default BatchLane: a batch runs to its end in submit(), through the
// executor's run(), for back ends that cannot overlap batches with the
// worker's own work (the host JIT runs on the worker's core anyway).

#include "ebpf-gpu/Runtime/BatchExecutor.h"

#include <algorithm>
#include <vector>

namespace ebpfgpu::runtime {

namespace {

class SynchronousLane final : public BatchLane {
public:
  SynchronousLane(std::function<MaybeError(PacketBatch &)> Run, unsigned Depth)
      : Run(std::move(Run)), Failures(std::max(Depth, 1u)) {}
  unsigned depth() const override { return unsigned(Failures.size()); }
  MaybeError submit(unsigned Slot, PacketBatch &Batch) override {
    // The outcome waits for poll(): a failure is the batch's, reported
    // where the caller collects its batches.
    Failures[Slot] = Run(Batch);
    return std::nullopt;
  }
  Expected<bool> poll(unsigned Slot, bool Wait) override {
    if (Failures[Slot]) {
      Error E = std::move(*Failures[Slot]);
      Failures[Slot].reset();
      return E;
    }
    return true;
  }

private:
  std::function<MaybeError(PacketBatch &)> Run;
  std::vector<MaybeError> Failures; ///< per slot, until polled
};

} // namespace

std::unique_ptr<BatchLane> makeSynchronousLane(std::function<MaybeError(PacketBatch &)> Run,
                                               unsigned Depth) {
  return std::make_unique<SynchronousLane>(std::move(Run), Depth);
}

Expected<std::unique_ptr<BatchLane>> BatchExecutor::openLane(unsigned Depth, unsigned Worker) {
  return makeSynchronousLane([this](PacketBatch &Batch) { return run(Batch); }, Depth);
}

} // namespace ebpfgpu::runtime

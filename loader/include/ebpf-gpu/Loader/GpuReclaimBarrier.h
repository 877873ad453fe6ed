// SPDX-License-Identifier: Apache-2.0
//
// Batches of one program queued from several threads, each on streams of
// its own, for a program whose hashed maps the device reclaims
// (GpuProgram::reclaimsOnDevice). The reclaim kernel returns retired
// elements to the free lists and must never run beside a batch (a batch
// may still hold a pointer into one). Instead of a reclaim after every
// batch, with every batch on one stream (one batch on the GPU at a time),
// the barrier lets batches on all streams overlap and, once `Period`
// packets went since the last reclaim, queues the next one on a stream of
// its own behind the last batch of every stream, and makes every stream's
// next batch wait for it: an epoch boundary, drained on the device, with
// nothing waited for on the host.

#ifndef EBPF_GPU_LOADER_GPURECLAIMBARRIER_H
#define EBPF_GPU_LOADER_GPURECLAIMBARRIER_H

#include "ebpf-gpu/Loader/GpuLoader.h"

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace ebpfgpu::loader {

class GpuReclaimBarrier {
public:
  /// For `Prog` (which must reclaim on the device) on `Dev`; both must
  /// outlive the barrier. `Period`: packets between reclaims (at least 1),
  /// GpuReclaimBarrier::periodFor(Prog) by default.
  static Expected<std::unique_ptr<GpuReclaimBarrier>> create(GpuDevice &Dev, GpuProgram &Prog,
                                                             uint64_t Period = 0);
  /// Packets between two reclaims for `Prog`: a quarter of the fewest spare
  /// elements of its hashed maps (GpuProgram::reclaimSpares), so that the
  /// batches of one epoch can retire that many each packet four times over
  /// before an insert finds the pool empty.
  static uint64_t periodFor(const GpuProgram &Prog);
  /// Waits for everything queued, then frees the streams and events. The
  /// calling thread must have the device's context current.
  ~GpuReclaimBarrier();
  GpuReclaimBarrier(const GpuReclaimBarrier &) = delete;
  GpuReclaimBarrier &operator=(const GpuReclaimBarrier &) = delete;

  /// A stream for one thread's batches (GpuRunnerOptions::Stream), owned by
  /// the barrier: returns its index for launch() and release().
  Expected<unsigned> addStream();
  /// Waits for the stream's batches and gives it back (its index may be
  /// handed out again).
  void release(unsigned Stream);
  void *stream(unsigned Stream);

  /// Queues a batch of `Packets` on stream `Stream`: `Start` does the
  /// queuing (a GpuRunner::start on that stream), after the stream was
  /// made to wait for the last reclaim; then the next reclaim is queued
  /// if it is due. Launches of all threads go one at a time.
  MaybeError launch(unsigned Stream, uint32_t Packets, const std::function<MaybeError()> &Start);

  /// No launch until the lock goes, and every stream idle: what host
  /// operations on the maps need.
  std::unique_lock<std::mutex> quiesce();

  uint64_t period() const { return Period; }
  /// Reclaims queued so far.
  uint64_t reclaims() const { return Epoch; }

private:
  GpuReclaimBarrier(GpuDevice &Dev, GpuProgram &Prog, uint64_t Period)
      : Dev(Dev), Prog(Prog), Period(Period) {}
  MaybeError reclaim();
  struct Lane {
    void *Stream = nullptr; ///< CUstream
    void *Tail = nullptr;   ///< CUevent: the stream's last batch, at a reclaim
    uint64_t Seen = 0;      ///< the last epoch the stream waited for
    bool InUse = false;
  };
  GpuDevice &Dev;
  GpuProgram &Prog;
  const uint64_t Period;
  std::mutex M;
  std::vector<Lane> Lanes;
  void *ReclaimStream = nullptr; ///< CUstream
  void *Done = nullptr;          ///< CUevent: the last reclaim
  uint64_t Epoch = 0;            ///< reclaims queued
  uint64_t Since = 0;            ///< packets launched since the last
};

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_GPURECLAIMBARRIER_H

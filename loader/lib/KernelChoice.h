// SPDX-License-Identifier: Apache-2.0
//
// Which build of a program's batch kernel its launches run: the default
// (registers as ptxas chooses) or the register-budget build the compiler
// emits beside it (GpuAbi.h: EBPFGPU_XDP_BUDGET_KERNEL). Neither is faster
// for every program: fewer registers let more threads share a
// multiprocessor and hide memory latency (a hashed-map program's lookups),
// but spill to local memory (a program that keeps much in registers). Both
// builds run the same program on the same arguments, so every launch is
// right whichever runs; the first large batches alternate between them,
// each timed with a pair of events read once done (never waited for), and
// from then on every launch runs the build with the lower median time a
// packet. Private to loader/lib.

#ifndef EBPF_GPU_LOADER_LIB_KERNELCHOICE_H
#define EBPF_GPU_LOADER_LIB_KERNELCHOICE_H

#include "CudaApi.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace ebpfgpu::loader {

class KernelChoice {
public:
  /// `Budget` null: only the default build (none emitted, or it would not
  /// use fewer registers than the default), nothing to time.
  KernelChoice(const CudaApi &A, CUfunction Default, CUfunction Budget);
  ~KernelChoice();
  KernelChoice(const KernelChoice &) = delete;
  KernelChoice &operator=(const KernelChoice &) = delete;

  /// Batches of fewer packets run whichever build is ahead, untimed: their
  /// time is mostly the launch's own.
  static constexpr uint32_t TrialPackets = 1024;
  /// Timed batches of each build before the choice.
  static constexpr unsigned TrialsEach = 5;

  struct Launch {
    CUfunction Fn = nullptr;
    int Build = 0;                  ///< 0: default, 1: budget
    uint32_t Packets = 0;
    CUevent Start = nullptr, Stop = nullptr; ///< a trial's events, else null
  };
  /// The build a batch of `Packets` launches on `Stream`; for a trial, its
  /// start event is recorded there.
  Launch begin(CUstream Stream, uint32_t Packets);
  /// After the launch (`Launched`: it was queued): a trial's stop event.
  void end(Launch &L, CUstream Stream, bool Launched);
  /// The builds a launch may run: the default, then the budget build where
  /// there are two to choose from.
  std::vector<CUfunction> builds() const;
  /// "default build (N registers)", "32-register build (N registers): ...",
  /// or "timing ..." while undecided.
  std::string describe() const;

private:
  /// With Mu held: the times of trials whose events are done.
  void collect();
  void decide();
  struct Trial {
    int Build;
    uint32_t Packets;
    CUevent Start, Stop;
  };
  const CudaApi &A;
  CUfunction Fns[2];
  int Registers[2] = {0, 0};
  mutable std::mutex Mu;
  int Chosen = -1; ///< -1: timing
  bool TwoBuilds = true;
  unsigned Started = 0;
  std::vector<Trial> Pending;
  std::vector<double> NsPerPacket[2];
};

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_LIB_KERNELCHOICE_H

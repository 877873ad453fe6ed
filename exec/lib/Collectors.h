// SPDX-License-Identifier: Apache-2.0
//
// Private to ebpf-gpu-loader's back ends (Executors.cpp, GpuExecutor.cpp):
// what a program's runs leave for the caller (trace lines, event records),
// gathered across workers.

#ifndef EBPF_GPU_EXEC_LIB_COLLECTORS_H
#define EBPF_GPU_EXEC_LIB_COLLECTORS_H

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Abi/TraceLog.h"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace ebpfgpu::exec {

/// bpf_trace_printk lines taken from a program's log after each run, kept
/// until the caller takes them (at most 64 MiB; the rest is counted).
class TraceCollector {
public:
  void add(const abi::TraceText &T) {
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
/// Event records taken from a program's maps after each run
/// (abi::EventLog), shared by the workers.
class EventCollector {
public:
  void add(abi::EventBatch &B) {
    std::lock_guard Lock(M);
    Log.add(B);
  }
  std::string take() {
    std::lock_guard Lock(M);
    return Log.take();
  }
  std::vector<std::string> warnings() {
    std::lock_guard Lock(M);
    return Log.warnings();
  }

private:
  std::mutex M;
  abi::EventLog Log;
};

} // namespace ebpfgpu::exec

#endif // EBPF_GPU_EXEC_LIB_COLLECTORS_H

// SPDX-License-Identifier: Apache-2.0
//
// Private to the DPDK runtime: the counters its data planes keep while
// other threads read them (statistics, progress), without locks on the
// hot path.

#ifndef EBPF_GPU_RUNTIME_LIB_COUNTERS_H
#define EBPF_GPU_RUNTIME_LIB_COUNTERS_H

#include <atomic>
#include <cstdint>

namespace ebpfgpu::runtime {

/// A counter one thread writes and others read meanwhile: a relaxed load
/// and store, no read-modify-write.
class Counter {
public:
  void add(uint64_t N) {
    V.store(V.load(std::memory_order_relaxed) + N, std::memory_order_relaxed);
  }
  uint64_t get() const { return V.load(std::memory_order_relaxed); }

private:
  std::atomic<uint64_t> V{0};
};

/// A counter several threads add to (per burst, not per packet).
class SharedCounter {
public:
  void add(uint64_t N) { V.fetch_add(N, std::memory_order_relaxed); }
  uint64_t get() const { return V.load(std::memory_order_relaxed); }

private:
  std::atomic<uint64_t> V{0};
};

} // namespace ebpfgpu::runtime

#endif // EBPF_GPU_RUNTIME_LIB_COUNTERS_H

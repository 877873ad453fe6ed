// SPDX-License-Identifier: Apache-2.0
//
// A latency histogram that one thread records into and others read while it
// runs: fixed log-linear buckets of nanoseconds (exact below 16 ns, then 8
// buckets per power of two: at most 12.5% of the value wide), counters as
// relaxed atomics, nothing allocated when recording. Percentiles come from
// merged copies of the counts.

#ifndef EBPF_GPU_RUNTIME_LATENCYHISTOGRAM_H
#define EBPF_GPU_RUNTIME_LATENCYHISTOGRAM_H

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>

namespace ebpfgpu::runtime {

class LatencyHistogram {
public:
  /// 16 exact buckets, then 8 per power of two from 2^4 to 2^43 ns.
  static constexpr unsigned Buckets = 16 + 40 * 8;
  using Counts = std::array<uint64_t, Buckets>;

  static unsigned bucketOf(uint64_t Ns) {
    if (Ns < 16)
      return unsigned(Ns);
    unsigned Exp = 63 - unsigned(std::countl_zero(Ns)); // >= 4
    if (Exp >= 44)
      return Buckets - 1;
    unsigned Sub = unsigned(Ns >> (Exp - 3)) & 7;
    return 16 + (Exp - 4) * 8 + Sub;
  }
  /// The largest value that lands in bucket `B`.
  static uint64_t upperBound(unsigned B) {
    if (B < 16)
      return B;
    unsigned Exp = 4 + (B - 16) / 8, Sub = (B - 16) % 8;
    return (uint64_t(8 + Sub + 1) << (Exp - 3)) - 1;
  }

  /// One writer.
  void record(uint64_t Ns) {
    std::atomic<uint64_t> &C = Count[bucketOf(Ns)];
    C.store(C.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    Sum.store(Sum.load(std::memory_order_relaxed) + Ns, std::memory_order_relaxed);
  }
  /// Every value recorded, added up (a Prometheus histogram's _sum).
  uint64_t sumNs() const { return Sum.load(std::memory_order_relaxed); }
  /// Adds this histogram's counts to `Into` (any thread).
  void addTo(Counts &Into) const {
    for (unsigned B = 0; B < Buckets; ++B)
      Into[B] += Count[B].load(std::memory_order_relaxed);
  }

  /// The value at quantile `Q` (0..1) of `C`: the upper bound of the
  /// bucket that holds it; 0 when empty.
  static uint64_t quantile(const Counts &C, double Q) {
    uint64_t Total = 0;
    for (uint64_t N : C)
      Total += N;
    if (Total == 0)
      return 0;
    uint64_t Rank = uint64_t(Q * double(Total - 1)) + 1, Seen = 0;
    for (unsigned B = 0; B < Buckets; ++B) {
      Seen += C[B];
      if (Seen >= Rank)
        return upperBound(B);
    }
    return upperBound(Buckets - 1);
  }

private:
  std::array<std::atomic<uint64_t>, Buckets> Count{};
  std::atomic<uint64_t> Sum{0};
};

} // namespace ebpfgpu::runtime

#endif // EBPF_GPU_RUNTIME_LATENCYHISTOGRAM_H

// SPDX-License-Identifier: Apache-2.0
//
// Hand-written CUDA twin of samples/xdp_ddos_cms.c: every IPv4 packet adds
// one to its source's counter in each of 4 rows of 2048 (the same hashes,
// so the same sketch), and is dropped when the smallest counter it saw is
// past the threshold; non-IPv4 passes. cms_sketch has the layout of the
// eBPF program's `sketch` array; cms_dropped counts drops (block counters
// in shared memory instead of the per-CPU array).
// Verdicts depend on the order packets reach the counters, so the harness
// checks the twin and the compiled program each against bounds it computes
// on the host (see bench/tools/ebpf-gpu-bench.cpp), not against each other.

#include "common.cuh"

using namespace twin;

constexpr unsigned Rows = 4, Columns = 2048;
constexpr unsigned long long Threshold = 400;

__device__ unsigned long long cms_sketch[Rows * Columns];
__device__ unsigned long long cms_dropped;

namespace {

__device__ __forceinline__ unsigned rowHash(unsigned v, unsigned seed) {
  unsigned h = v * 0x9e3779b1u ^ seed;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  return h;
}

} // namespace

extern "C" __global__ void cuda_ddos_cms(const ebpfgpu_packet_desc *descs,
                                         ebpfgpu_verdict *verdicts, unsigned count,
                                         unsigned long long seed) {
  __shared__ unsigned long long smem[1];
  BlockCounters<1> counters;
  counters.init(smem);
  forEachPacket(descs, verdicts, count, [&](unsigned char *data, const unsigned char *end) {
    if (data + 14 > end)
      return Result{XdpDrop, 0};
    if (be16(data + 12) != 0x0800)
      return Result{XdpPass, 0};
    const unsigned char *ip = data + 14;
    if (ip + 20 > end)
      return Result{XdpDrop, 0};
    unsigned saddr = le32(ip + 12);
    unsigned long long estimate = ~0ull;
#pragma unroll
    for (unsigned row = 0; row < Rows; ++row) {
      unsigned slot = row * Columns + rowHash(saddr, row * 0x5bd1e995u) % Columns;
      unsigned long long seen = atomicAdd(&cms_sketch[slot], 1ull) + 1;
      estimate = seen < estimate ? seen : estimate;
    }
    if (estimate <= Threshold)
      return Result{XdpPass, 0};
    counters.add(0);
    return Result{XdpDrop, 0};
  });
  counters.flush(&cms_dropped);
}

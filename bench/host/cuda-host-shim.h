// SPDX-License-Identifier: Apache-2.0
//
// Just enough of CUDA to compile a hand-written twin (bench/cuda/*.cu) as
// ordinary C++ and run it on one host thread: a grid of one thread, whose
// atomics are plain read-modify-writes. Lets the build machine, which has
// no GPU, check the twins' logic against the host back end packet by packet
// (scripts/bench.sh prepare). Not a CUDA emulator: no concurrency.

#ifndef EBPF_GPU_BENCH_CUDA_HOST_SHIM_H
#define EBPF_GPU_BENCH_CUDA_HOST_SHIM_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>

#define __device__
#define __global__
#define __forceinline__ inline
#define __shared__ static
#define __align__(N) alignas(N)

struct HostDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline HostDim3 gridDim{1, 1, 1}, blockDim{1, 1, 1}, threadIdx, blockIdx;
inline void __syncthreads() {}
inline void __threadfence() {}
template <typename T> T atomicAdd(T *P, T V) {
  T Old = *P;
  *P = Old + V;
  return Old;
}
inline unsigned atomicCAS(unsigned *P, unsigned Compare, unsigned V) {
  unsigned Old = *P;
  if (Old == Compare)
    *P = V;
  return Old;
}
inline unsigned atomicExch(unsigned *P, unsigned V) {
  unsigned Old = *P;
  *P = V;
  return Old;
}
using std::min;
struct uint2 {
  unsigned x, y;
};
struct uint4 {
  unsigned x, y, z, w;
};
inline uint2 loadVolatile2(const void *P) {
  uint2 V;
  std::memcpy(&V, P, sizeof(V));
  return V;
}
inline uint4 loadVolatile4(const void *P) {
  uint4 V;
  std::memcpy(&V, P, sizeof(V));
  return V;
}
/// The twins' clock (on the GPU, %globaltimer).
inline unsigned long long nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

#endif // EBPF_GPU_BENCH_CUDA_HOST_SHIM_H

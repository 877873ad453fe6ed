// SPDX-License-Identifier: Apache-2.0
//
// Doorbell round trips between the host and a persistent kernel through
// pinned mapped host memory, by where the host-written and GPU-written words
// lie (one cache line or separate lines) and how the GPU polls (ld.acquire.sys
// or ld.volatile) — the experiment behind the persistent mode's ring layout
// (GpuAbi.h). Build: nvcc -O2 -arch=sm_90 doorbell.cu -o doorbell
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

__device__ unsigned ld_acq(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ unsigned ld_vol(const unsigned *p) { return *(volatile const unsigned *)p; }

template <bool Volatile>
__global__ void k(const unsigned *ready, unsigned *done, unsigned *beat, int iters) {
  if (threadIdx.x || blockIdx.x) return;
  for (int i = 1; i <= iters; ++i) {
    for (unsigned long long n = 0;; ++n) {
      unsigned v = Volatile ? ld_vol(ready) : ld_acq(ready);
      if (v == (unsigned)i) break;
      if ((n & 1023) == 0 && beat) *(volatile unsigned *)beat += 1;
    }
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    asm volatile("st.release.sys.u32 [%0], %1;" ::"l"(done), "r"(i) : "memory");
    asm volatile("fence.sc.sys;" ::: "memory");
  }
}

int main() {
  unsigned *h;
  cudaHostAlloc((void **)&h, 1 << 16, cudaHostAllocMapped | cudaHostAllocPortable);
  unsigned *d;
  cudaHostGetDevicePointer((void **)&d, h, 0);
  const int N = 2000;
  struct V { const char *name; unsigned readyOff, doneOff, beatOff; bool vol; };
  V vs[] = {{"same line, acquire.sys, beat", 0, 1, 2, false},
            {"same line, volatile, beat", 0, 1, 2, true},
            {"same line, acquire.sys, no beat", 0, 1, ~0u, false},
            {"separate lines, acquire.sys, beat", 0, 1024, 2048, false},
            {"separate lines, volatile, beat", 0, 1024, 2048, true},
            {"separate lines, acquire.sys, no beat", 0, 1024, ~0u, false}};
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  for (const V &v : vs) {
    memset(h, 0, 1 << 16);
    unsigned *beat = v.beatOff == ~0u ? nullptr : d + v.beatOff;
    if (v.vol)
      k<true><<<1, 32, 0, s>>>(d + v.readyOff, d + v.doneOff, beat, N);
    else
      k<false><<<1, 32, 0, s>>>(d + v.readyOff, d + v.doneOff, beat, N);
    volatile unsigned *ready = h + v.readyOff, *done = h + v.doneOff;
    std::vector<double> t;
    for (int i = 1; i <= N; ++i) {
      auto a = std::chrono::steady_clock::now();
      *ready = i;
      while (*done != (unsigned)i) {}
      t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a).count());
    }
    cudaStreamSynchronize(s);
    std::sort(t.begin(), t.end());
    printf("%-40s p50 %8.2f us  p99 %8.2f us  (%s)\n", v.name, t[N / 2], t[N * 99 / 100],
           cudaGetErrorString(cudaGetLastError()));
  }
  return 0;
}

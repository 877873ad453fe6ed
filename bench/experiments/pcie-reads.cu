// SPDX-License-Identifier: Apache-2.0
//
// How many packets a second the GPU can read from pinned host memory over
// PCIe, by access pattern, with nothing else in the way: the ceiling of the
// data plane's GPU path on the mapped data path, where each packet's
// descriptor and first bytes are read where the host left them (docs/
// PERFORMANCE.md, issue 20). A thread per packet, as the batch kernel; a
// 32-byte descriptor each in one contiguous array; packets in buffers
// `stride` bytes apart (an mbuf pool: 2,176 bytes for 2 KiB of data, 384
// for --max-frame 128), their data 128 bytes in; a 16-byte verdict each
// written back to host memory. Patterns:
//   desc         the descriptors only (contiguous reads)
//   desc+32      then the packet's first 32 bytes (one sector), at the
//                address the descriptor holds (two dependent round trips)
//   desc+64      then its first 64 bytes (two sectors of one line)
//   pkt64        the packet's 64 bytes at an address computed from the
//                index (no descriptor: one round trip, scattered)
//   desc+inline  the descriptor and a 128-byte record of first bytes beside
//                it (both contiguous, independent: the persistent kernel's)
// Build: nvcc -O2 -arch=sm_90 pcie-reads.cu -o pcie-reads (no arguments;
// one line a pattern and stride: packets a launch, Mpps, GB/s of reads).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

struct Desc {
  uint64_t buffer;
  uint32_t offset, length, size, ifindex, queue, flags;
};

enum Pattern { DescOnly, Desc32, Desc64, Packet64, DescInline, Patterns };
static const char *Names[] = {"desc", "desc+32", "desc+64", "pkt64", "desc+inline"};
static const unsigned ReadBytes[] = {32, 64, 96, 64, 160};

__global__ void readPackets(const Desc *descs, const uint8_t *pool, const uint4 *inlines,
                            uint4 *verdicts, uint32_t n, uint32_t stride, int pattern) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  uint32_t sum = 0;
  if (pattern == Packet64) {
    const uint4 *p = (const uint4 *)(pool + (uint64_t)i * stride + 128);
    uint4 a = p[0], b = p[1], c = p[2], d = p[3];
    sum = a.x ^ b.y ^ c.z ^ d.w;
  } else {
    const uint4 *dp = (const uint4 *)(descs + i);
    uint4 d0 = dp[0], d1 = dp[1];
    sum = d0.z ^ d1.x;
    const uint8_t *data = (const uint8_t *)((uint64_t)d0.x | (uint64_t)d0.y << 32) + d0.z;
    if (pattern == Desc32 || pattern == Desc64) {
      const uint4 *p = (const uint4 *)data;
      uint4 a = p[0], b = p[1];
      sum ^= a.x ^ b.y;
      if (pattern == Desc64) {
        uint4 c = p[2], d = p[3];
        sum ^= c.z ^ d.w;
      }
    } else if (pattern == DescInline) {
      // The warp's 32 records read together, each load instruction 512
      // contiguous bytes (lane l takes chunks l, l + 32, ...), as the
      // persistent kernel's ebpfgpu_prestage_warp does; a thread reading
      // its own record in 16-byte pieces 128 bytes apart ran at 60 Mpps.
      const uint4 *r = inlines + (uint64_t)(i & ~31u) * 8;
      const uint32_t lane = i & 31u;
      uint4 v[8];
#pragma unroll
      for (int k = 0; k < 8; ++k)
        v[k] = r[lane + 32 * k];
#pragma unroll
      for (int k = 0; k < 8; ++k)
        sum ^= v[k].x ^ v[k].w;
    }
  }
  verdicts[i] = make_uint4(sum & 3, 128, 64, 0);
}

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                                \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  const uint32_t N = 1u << 18; // packets a launch (as a pool of mbufs)
  const int Reps = 20;
  const uint32_t Strides[] = {2176, 384};
  cudaDeviceProp P;
  CHECK(cudaGetDeviceProperties(&P, 0));
  std::printf("device %s, %u packets a launch, %d launches a measurement\n", P.name, N, Reps);
  uint8_t *Pool;
  Desc *Descs;
  uint4 *Inlines, *Verdicts;
  CHECK(cudaHostAlloc(&Pool, size_t(N) * Strides[0], cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&Descs, size_t(N) * sizeof(Desc), cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&Inlines, size_t(N) * 128, cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&Verdicts, size_t(N) * 16, cudaHostAllocMapped));
  std::memset(Pool, 0x5a, size_t(N) * Strides[0]);
  std::memset(Inlines, 0x3c, size_t(N) * 128);
  uint8_t *DevPool;
  uint4 *DevInlines, *DevVerdicts;
  Desc *DevDescs;
  CHECK(cudaHostGetDevicePointer((void **)&DevPool, Pool, 0));
  CHECK(cudaHostGetDevicePointer((void **)&DevDescs, Descs, 0));
  CHECK(cudaHostGetDevicePointer((void **)&DevInlines, Inlines, 0));
  CHECK(cudaHostGetDevicePointer((void **)&DevVerdicts, Verdicts, 0));
  cudaEvent_t A, B;
  CHECK(cudaEventCreate(&A));
  CHECK(cudaEventCreate(&B));
  for (uint32_t Stride : Strides) {
    for (uint32_t I = 0; I < N; ++I)
      Descs[I] = Desc{uint64_t(DevPool) + uint64_t(I) * Stride, 128, 64, Stride, 1, 0, 0};
    for (int Pat = 0; Pat < Patterns; ++Pat) {
      // One launch to warm up, then Reps timed back to back.
      readPackets<<<N / 256, 256>>>(DevDescs, DevPool, DevInlines, DevVerdicts, N, Stride, Pat);
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaEventRecord(A));
      for (int R = 0; R < Reps; ++R)
        readPackets<<<N / 256, 256>>>(DevDescs, DevPool, DevInlines, DevVerdicts, N, Stride, Pat);
      CHECK(cudaEventRecord(B));
      CHECK(cudaEventSynchronize(B));
      float Ms = 0;
      CHECK(cudaEventElapsedTime(&Ms, A, B));
      double Mpps = double(N) * Reps / (Ms * 1e3);
      std::printf("stride %4u  %-12s %8.1f Mpps  %6.1f GB/s read (%u B a packet)\n", Stride,
                  Names[Pat], Mpps, Mpps * ReadBytes[Pat] / 1e3, ReadBytes[Pat]);
    }
  }
  return 0;
}

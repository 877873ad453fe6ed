// SPDX-License-Identifier: Apache-2.0
//
// What the hand-written CUDA twins share: big-endian field reads (packet
// fields are not naturally aligned, so byte loads), XDP verdict codes, and
// the grid-stride loop of the batch ABI (GpuAbi.h): thread t of T takes
// packets t, t + T, ..., the same way the compiled kernels do, so the
// harness launches twin and compiled program identically.

#ifndef EBPF_GPU_BENCH_CUDA_COMMON_CUH
#define EBPF_GPU_BENCH_CUDA_COMMON_CUH

#include "ebpf-gpu/Platform/GpuAbi.h"

namespace twin {

constexpr unsigned XdpAborted = 0, XdpDrop = 1, XdpPass = 2, XdpTx = 3, XdpRedirect = 4;

__device__ __forceinline__ unsigned be16(const unsigned char *p) { return (p[0] << 8) | p[1]; }
__device__ __forceinline__ unsigned be32(const unsigned char *p) {
  return (unsigned(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}
/// A 32-bit field as a little-endian load of the wire bytes would give it
/// (what eBPF programs see when they read ip->saddr without bpf_ntohl).
__device__ __forceinline__ unsigned le32(const unsigned char *p) {
  return unsigned(p[0]) | (p[1] << 8) | (p[2] << 16) | (unsigned(p[3]) << 24);
}

#ifdef __CUDACC__
/// The GPU's global nanosecond timer, the clock bpf_ktime_get_ns reads on
/// the GPU (the host shim has its own).
__device__ __forceinline__ unsigned long long nowNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#endif

#ifdef __CUDACC__
/// 8 or 16 bytes (aligned) in one strong load (ld.volatile: from L2, never
/// a stale L1 line), for words another thread publishes.
__device__ __forceinline__ uint2 loadVolatile2(const void *p) {
  uint2 v;
  asm volatile("ld.volatile.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  return v;
}
__device__ __forceinline__ uint4 loadVolatile4(const void *p) {
  uint4 v;
  asm volatile("ld.volatile.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
#endif

struct Result {
  unsigned action;
  unsigned redirect;
};

/// Runs `decide(data, end) -> Result` over every packet of the batch.
template <typename Decide>
__device__ __forceinline__ void forEachPacket(const ebpfgpu_packet_desc *descs,
                                              ebpfgpu_verdict *verdicts, unsigned count,
                                              Decide decide) {
  unsigned stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    ebpfgpu_packet_desc d = descs[i];
    unsigned char *data = reinterpret_cast<unsigned char *>(d.buffer) + d.data_offset;
    Result r = decide(data, data + d.length);
    ebpfgpu_verdict v;
    v.action = r.action;
    v.data_offset = d.data_offset;
    v.length = d.length;
    v.redirect_target = r.redirect;
    verdicts[i] = v;
  }
}

/// Per-block counters in shared memory, added to the global ones once per
/// block: what a CUDA engineer does instead of one atomic per packet on a
/// handful of hot addresses (the eBPF programs use per-CPU arrays).
template <unsigned N> struct BlockCounters {
  unsigned long long *shared;
  __device__ void init(unsigned long long *smem) {
    shared = smem;
    for (unsigned k = threadIdx.x; k < N; k += blockDim.x)
      shared[k] = 0;
    __syncthreads();
  }
  __device__ __forceinline__ void add(unsigned k, unsigned long long v = 1) {
    atomicAdd(&shared[k], v);
  }
  __device__ void flush(unsigned long long *global) {
    __syncthreads();
    for (unsigned k = threadIdx.x; k < N; k += blockDim.x)
      if (shared[k])
        atomicAdd(&global[k], shared[k]);
  }
};

} // namespace twin

#endif // EBPF_GPU_BENCH_CUDA_COMMON_CUH

// SPDX-License-Identifier: Apache-2.0
//
// Where a persistent-mode batch's round trip goes (issue 20's latency mode):
// a persistent kernel polls a doorbell in pinned mapped host memory as
// compiler/lib/Runtime/PersistentLoop.inc does, and each variant adds one
// stage of what a batch costs, so the differences between variants place
// the time (no profiler reads a kernel that never ends):
//   bell      the doorbell alone: poll `ready`, publish `done`
//   slot      + the slot's count and addresses read after `ready`, in series
//               (ld.acquire.sys, then two relaxed loads), as the loop does
//   slot1     + the same fields in one 16-byte load with `ready` (one round
//               trip: the host writes them before `ready`)
//   blocks    + every block released through a word in device memory and
//               counted back in (132 blocks: one per SM)
//   descs     + each packet's thread reads its 32-byte descriptor from host
//               memory and writes a 16-byte verdict there
//   data      + it reads the packet's first bytes through the descriptor's
//               address (in host memory: the zero-copy data path)
//   parse     + three more loads of the packet, each depending on the one
//               before (a header parse), plain loads (as compiled programs'
//               are: the caches may keep the packet's lines)
//   parsev    the same with volatile loads (each one to host memory)
//   dirty     parse, the host writing every descriptor and frame of the
//               batch anew before it rings (as a data plane does: the GPU's
//               reads then find the lines modified in a CPU's cache)
//   nt        dirty, written with non-temporal stores (to memory, not
//               kept in the writer's cache), an sfence before ringing
//   gather    parse, after the thread copied the packet's first 128 bytes
//               into device memory with independent 16-byte loads, the
//               chain reading the copy
// Round trips are timed on the host (post to seeing done), p50 and p99 of
// 3,000. Build: nvcc -O2 -arch=sm_90 persistent-steps.cu -o persistent-steps
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <immintrin.h>
#include <vector>

struct Desc {
  uint64_t buffer;
  uint32_t data_offset, length, buffer_size, ifindex, queue, pad;
};
struct Verdict {
  uint32_t action, offset, length, target;
};
struct alignas(64) Slot {
  uint32_t ready, count;
  uint64_t descs;
  uint64_t verdicts;
  uint32_t pad[10];
  uint32_t done;
};

enum Stage { Bell, SlotSerial, SlotOne, Blocks, Descs, Data, Parse, ParseVolatile, Dirty, NonTemporal, Gather };
static const char *Names[] = {"bell", "slot", "slot1", "blocks", "descs", "data", "parse", "parsev", "dirty", "nt", "gather"};

__device__ uint32_t ld_acq(const uint32_t *p) {
  uint32_t v;
  asm volatile("ld.acquire.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ uint64_t ld_rlx64(const uint64_t *p) {
  uint64_t v;
  asm volatile("ld.relaxed.sys.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ void ld_acq_v2(const uint64_t *p, uint64_t &a, uint64_t &b) {
  asm volatile("ld.acquire.sys.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
}

__global__ void persistent(Slot *slot, uint32_t *go, uint32_t *arrived, uint8_t *scratch, int stage,
                           int iters) {
  const uint32_t tid = threadIdx.x, block = blockIdx.x;
  const bool many = stage >= Blocks;
  if (!many && block)
    return;
  __shared__ uint32_t count;
  __shared__ uint64_t descs, verdicts;
  for (int i = 1; i <= iters; ++i) {
    if (tid == 0) {
      if (block == 0) {
        if (stage == SlotOne || stage >= Blocks) {
          for (;;) {
            uint64_t a, b;
            ld_acq_v2(reinterpret_cast<const uint64_t *>(&slot->ready), a, b);
            if (uint32_t(a) == uint32_t(i)) {
              count = uint32_t(a >> 32);
              descs = b;
              verdicts = ld_rlx64(&slot->verdicts);
              break;
            }
          }
        } else {
          while (ld_acq(&slot->ready) != uint32_t(i)) {
          }
          if (stage == SlotSerial) {
            count = ld_acq(&slot->count);
            descs = ld_rlx64(&slot->descs);
            verdicts = ld_rlx64(&slot->verdicts);
          }
        }
        if (many) {
          *(volatile uint64_t *)&go[2] = descs;
          *(volatile uint64_t *)&go[4] = verdicts;
          go[1] = count;
          __threadfence();
          atomicExch(go, uint32_t(i));
        }
      } else {
        while (int32_t(atomicAdd(go, 0) - uint32_t(i)) < 0) {
        }
        __threadfence();
        count = *(volatile uint32_t *)&go[1];
        descs = *(volatile uint64_t *)&go[2];
        verdicts = *(volatile uint64_t *)&go[4];
      }
    }
    __syncthreads();
    if (stage >= Descs) {
      const uint32_t cpu = block * blockDim.x + tid, threads = gridDim.x * blockDim.x;
      for (uint32_t k = cpu; k < count; k += threads) {
        const Desc *d = reinterpret_cast<const Desc *>(descs) + k;
        uint64_t buf = d->buffer;
        uint32_t off = d->data_offset, len = d->length;
        uint32_t action = 2;
        if (stage == Data || stage == ParseVolatile) {
          const volatile uint8_t *p = reinterpret_cast<const uint8_t *>(buf) + off;
          uint32_t x = p[12];
          if (stage == ParseVolatile) {
            x = p[14 + (x & 1)]; // depends on the last load
            x = p[23 + (x & 1)]; // and again
            x = p[36 + (x & 1)]; // and again
          }
          action = 1 + (x & 1);
        } else if (stage == Parse || stage == Dirty || stage == NonTemporal) {
          const uint8_t *p = reinterpret_cast<const uint8_t *>(buf) + off;
          uint32_t x = p[12];
          x = p[14 + (x & 1)];
          x = p[23 + (x & 1)];
          x = p[36 + (x & 1)];
          action = 1 + (x & 1);
        } else if (stage == Gather) {
          const uint4 *from = reinterpret_cast<const uint4 *>(buf + off);
          uint4 *to = reinterpret_cast<uint4 *>(scratch) + size_t(cpu) * 8;
          uint4 w[8];
          for (int j = 0; j < 8; ++j)
            w[j] = from[j];
          for (int j = 0; j < 8; ++j)
            to[j] = w[j];
          const volatile uint8_t *p = reinterpret_cast<const uint8_t *>(to);
          uint32_t x = p[12];
          x = p[14 + (x & 1)];
          x = p[23 + (x & 1)];
          x = p[36 + (x & 1)];
          action = 1 + (x & 1);
        }
        Verdict *v = reinterpret_cast<Verdict *>(verdicts) + k;
        v->action = action;
        v->offset = off;
        v->length = len;
        v->target = 0;
      }
    }
    __syncthreads();
    if (tid == 0) {
      bool last = true;
      if (many) {
        last = atomicAdd(arrived, 1) == gridDim.x - 1;
        if (last)
          *(volatile uint32_t *)arrived = 0;
      }
      if (last) {
        asm volatile("fence.sc.sys;" ::: "memory");
        asm volatile("st.release.sys.u32 [%0], %1;" ::"l"(&slot->done), "r"(uint32_t(i))
                     : "memory");
        asm volatile("fence.sc.sys;" ::: "memory");
      }
    }
  }
}

int main(int argc, char **argv) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int N = 3000;
  const uint32_t MaxCount = 4096;
  Slot *slot;
  cudaHostAlloc((void **)&slot, sizeof(Slot), cudaHostAllocMapped | cudaHostAllocPortable);
  Desc *descs;
  Verdict *verdicts;
  uint8_t *frames;
  cudaHostAlloc((void **)&descs, MaxCount * sizeof(Desc), cudaHostAllocMapped);
  cudaHostAlloc((void **)&verdicts, MaxCount * sizeof(Verdict), cudaHostAllocMapped);
  cudaHostAlloc((void **)&frames, MaxCount * 2048, cudaHostAllocMapped);
  Slot *dslot;
  Desc *ddescs;
  Verdict *dverdicts;
  uint8_t *dframes;
  cudaHostGetDevicePointer((void **)&dslot, slot, 0);
  cudaHostGetDevicePointer((void **)&ddescs, descs, 0);
  cudaHostGetDevicePointer((void **)&dverdicts, verdicts, 0);
  cudaHostGetDevicePointer((void **)&dframes, frames, 0);
  memset(frames, 0x5a, MaxCount * 2048);
  for (uint32_t k = 0; k < MaxCount; ++k)
    descs[k] = Desc{uint64_t(dframes) + k * 2048ull, 128, 64, 2048, 1, 0, 0};
  uint32_t *go, *arrived;
  cudaMalloc(&go, 64);
  cudaMalloc(&arrived, 64);
  uint8_t *scratch;
  cudaMalloc(&scratch, size_t(sms) * 256 * 128);
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  std::printf("%-8s %6s %8s %8s\n", "stage", "count", "p50 us", "p99 us");
  for (uint32_t count : {32u, 256u}) {
    for (int stage = Bell; stage <= Gather; ++stage) {
      memset(slot, 0, sizeof(Slot));
      cudaMemset(go, 0, 64);
      cudaMemset(arrived, 0, 64);
      cudaDeviceSynchronize();
      persistent<<<stage >= Blocks ? sms : 1, 256, 0, s>>>(dslot, go, arrived, scratch, stage, N);
      volatile Slot *v = slot;
      std::vector<double> t;
      for (int i = 1; i <= N; ++i) {
        if (stage == Dirty || stage == NonTemporal) {
          // A new batch: each descriptor and each frame's first line written.
          for (uint32_t k = 0; k < count; ++k) {
            Desc D{uint64_t(dframes) + k * 2048ull, 128, 64, 2048, 1, uint32_t(i), 0};
            uint8_t *F = frames + k * 2048 + 128;
            if (stage == Dirty) {
              descs[k] = D;
              std::memset(F, 0x5a + (i & 1) * 0, 64);
            } else {
              const long long *W = reinterpret_cast<const long long *>(&D);
              for (int j = 0; j < 4; ++j)
                _mm_stream_si64(reinterpret_cast<long long *>(&descs[k]) + j, W[j]);
              for (int j = 0; j < 8; ++j)
                _mm_stream_si64(reinterpret_cast<long long *>(F) + j, 0x5a5a5a5a5a5a5a5all);
            }
          }
          _mm_sfence();
        }
        auto a = std::chrono::steady_clock::now();
        v->descs = uint64_t(ddescs);
        v->verdicts = uint64_t(dverdicts);
        v->count = count;
        __atomic_store_n(&slot->ready, uint32_t(i), __ATOMIC_RELEASE);
        while (__atomic_load_n(&slot->done, __ATOMIC_ACQUIRE) != uint32_t(i)) {
        }
        t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - a)
                        .count());
      }
      cudaStreamSynchronize(s);
      if (cudaError_t e = cudaGetLastError()) {
        std::printf("%s: %s\n", Names[stage], cudaGetErrorString(e));
        return 1;
      }
      std::sort(t.begin(), t.end());
      std::printf("%-8s %6u %8.2f %8.2f\n", Names[stage], count, t[t.size() / 2],
                  t[t.size() * 99 / 100]);
    }
  }
  return 0;
}

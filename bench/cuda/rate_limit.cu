// SPDX-License-Identifier: Apache-2.0
//
// Hand-written CUDA twin of samples/xdp_rate_limit.c: a token bucket per
// IPv4 source (BURST tokens to start with, one back every NS_PER_TOKEN of
// the GPU's global nanosecond timer, up to BURST); a packet takes a token
// or is dropped; non-IPv4 passes. Same decisions as the compiled program.
// The buckets are what a CUDA engineer would write: open addressing with
// linear probing over rl_slots (twice the eBPF map's 1024 entries), a slot
// claimed by a CAS on its state word (empty -> busy -> live; state and
// source read together with one strong load), the tokens then read and
// written with plain loads and stores, racy as the eBPF program's own (a few packets of a burst may pass twice when many
// arrive at once). A source the table cannot place within the probe limit
// is counted in rl_refused, which the harness requires to stay 0. A source
// seen first by several packets at once: each writes a fresh bucket, as
// the program's BPF_ANY update replaces the value. Passed and dropped
// packets are counted per block in shared memory (the program: atomics on
// an array).

#include "common.cuh"

using namespace twin;

constexpr unsigned RlSlots = 2048, RlMaxProbe = 64;
constexpr unsigned Empty = 0, Busy = 1, Live = 2;
constexpr unsigned long long Burst = 5, NsPerToken = 10000000000ull;

struct Bucket {
  unsigned state, saddr; // saddr: the wire bytes as a little-endian load
  unsigned long long tokens, refilled_ns;
};

__device__ Bucket rl_slots[RlSlots];
__device__ unsigned rl_refused;
__device__ unsigned long long rl_stats[2]; // passed, dropped

namespace {

/// The slot's state and source, in one strong (volatile: from L2, not a
/// possibly stale L1 line) load: a source read with a plain load after
/// its slot turned live could come from a line cached while the slot was
/// empty, and the source would be placed twice.
__device__ __forceinline__ uint2 loadHead(const Bucket &B) {
  return loadVolatile2(&B.state);
}

__device__ __forceinline__ unsigned hashSource(unsigned s) {
  unsigned h = s * 0x9e3779b1u;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  return h ^ (h >> 13);
}

/// The source's bucket: found, or claimed and filled as a fresh one
/// (`*fresh` set); null when the table has no room within the probe limit.
__device__ Bucket *bucketFor(unsigned s, unsigned long long now, bool *fresh) {
  unsigned h = hashSource(s);
  *fresh = false;
  for (unsigned k = 0; k < RlMaxProbe; ++k) {
    Bucket &B = rl_slots[(h + k) & (RlSlots - 1)];
    uint2 head = loadHead(B);
    if (head.x == Empty) {
      head.x = atomicCAS(&B.state, Empty, Busy);
      if (head.x == Empty) {
        B.saddr = s;
        B.tokens = Burst - 1;
        B.refilled_ns = now;
        __threadfence();
        atomicExch(&B.state, Live);
        *fresh = true;
        return &B;
      }
      head = loadHead(B); // taken meanwhile: read its state and key afresh
    }
    while (head.x == Busy)
      head = loadHead(B);
    if (head.y == s)
      return &B;
  }
  return nullptr;
}

} // namespace

extern "C" __global__ void cuda_rate_limit(const ebpfgpu_packet_desc *descs,
                                           ebpfgpu_verdict *verdicts, unsigned count,
                                           unsigned long long seed) {
  __shared__ unsigned long long smem[2];
  BlockCounters<2> counters;
  counters.init(smem);
  forEachPacket(descs, verdicts, count, [&](unsigned char *data, const unsigned char *end) {
    if (data + 14 > end)
      return Result{XdpDrop, 0};
    if (be16(data + 12) != 0x0800)
      return Result{XdpPass, 0};
    const unsigned char *ip = data + 14;
    if (ip + 20 > end)
      return Result{XdpDrop, 0};
    unsigned long long now = nowNs();
    bool fresh;
    Bucket *B = bucketFor(le32(ip + 12), now, &fresh);
    if (!B) {
      atomicAdd(&rl_refused, 1u);
      return Result{XdpAborted, 0};
    }
    if (fresh) {
      counters.add(0);
      return Result{XdpPass, 0};
    }
    unsigned long long elapsed = now - B->refilled_ns;
    if (elapsed >= NsPerToken) {
      unsigned long long add = elapsed / NsPerToken, tokens = B->tokens + add;
      B->tokens = tokens > Burst ? Burst : tokens;
      B->refilled_ns += add * NsPerToken;
    }
    if (B->tokens == 0) {
      counters.add(1);
      return Result{XdpDrop, 0};
    }
    B->tokens -= 1;
    counters.add(0);
    return Result{XdpPass, 0};
  });
  counters.flush(rl_stats);
}

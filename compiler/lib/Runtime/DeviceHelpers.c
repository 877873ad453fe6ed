/* SPDX-License-Identifier: Apache-2.0
 *
 * The device build of the helper functions (XdpHelpers.inc), compiled with
 * clang for nvptx64 to LLVM bitcode that the GPU back end links into every
 * module. Time comes from the GPU's global nanosecond timer. */

#include "ebpf-gpu/Platform/GpuAbi.h"
#include "ebpf-gpu/Platform/FibAbi.h"
#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Platform/XdpContext.h"
#include "ebpf-gpu/Abi/HelperDefs.h"

static inline uint64_t ebpfgpu_globaltimer(void) {
  uint64_t t;
  __asm__ volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Every clock is the global timer (HelperDefs.h); the coarse one stops at
 * the timer's last tick of EBPFGPU_JIFFIES_HZ. */
static inline uint64_t ebpfgpu_now_ns(int clock) {
  const uint64_t t = ebpfgpu_globaltimer();
  const uint64_t tick = 1000000000ull / EBPFGPU_JIFFIES_HZ;
  return clock == EBPFGPU_CLOCK_COARSE ? t - t % tick : t;
}

/* The host NUMA node nearest the GPU (GpuAbi.h: EBPFGPU_NUMA_NODE_GLOBAL),
 * which the loader writes; 0 until it does. */
uint32_t ebpfgpu_numa_node;

#define memcpy __builtin_memcpy
#define memmove __builtin_memmove
#define memset __builtin_memset
#define EBPFGPU_HELPER(name) ebpfgpu_##name
#define EBPFGPU_NOW_NS(clock) ebpfgpu_now_ns(clock)
#define EBPFGPU_NUMA_NODE() (*(volatile uint32_t *)&ebpfgpu_numa_node)
/* The scope of the library's own PTX fences, acquires and releases:
 * "gpu", or "sys" in its second build (EBPFGPU_SYS_SCOPE), linked into
 * programs whose maps live once for several GPUs (GpuOptions::
 * SystemScopeAtomics; their atomicrmw and cmpxchg get .sys from the back
 * end's SystemScope pass). The persistent loop's and the CPU groups' words
 * are one GPU's own and need no more than "gpu"; they take "sys" too
 * there, which is stronger, not wrong, and keeps one build switch. */
#ifdef EBPFGPU_SYS_SCOPE
#define EBPFGPU_MAP_SCOPE "sys"
#else
#define EBPFGPU_MAP_SCOPE "gpu"
#endif
#define EBPFGPU_FENCE() __asm__ volatile("fence.acq_rel." EBPFGPU_MAP_SCOPE ";" ::: "memory")

/* The loader's abort word (GpuAbi.h: EBPFGPU_ABORT_GLOBAL): a device address,
 * 0 until the loader binds it. */
uint64_t ebpfgpu_abort_word;

/* Whether the loader has asked the kernel to end (a watchdog fired). One
 * read of mapped host memory: callers ask now and then, not every turn. */
static inline __attribute__((always_inline)) int ebpfgpu_abort_requested(void) {
  const uint64_t at = *(volatile uint64_t *)&ebpfgpu_abort_word;
  if (!at)
    return 0;
  uint32_t v;
  __asm__ volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(at) : "memory");
  return v != 0;
}

/* Ends the calling thread once an abort is requested. Not a trap: a trap
 * is a sticky error of the whole process's CUDA state (every context, and
 * cuCtxCreate, fail with CUDA_ERROR_LAUNCH_FAILED after it, as seen on the
 * H100), while threads that exit let the kernel end normally: a barrier
 * stops waiting for exited threads, the persistent kernel's waits end on
 * the same word. Inlined, with no call in a lock wait: a call there gives
 * the compiler a reconvergence point where the waiting threads of a warp
 * would wait for the one holding the lock, which waits for them. */
static inline __attribute__((always_inline)) void ebpfgpu_abort_exit(void) {
  if (ebpfgpu_abort_requested()) {
    __asm__ volatile("exit;" ::: "memory");
    __builtin_unreachable();
  }
}

/* What the lifter calls every 65,536th backward jump of a function
 * (LiftOptions::LoopGuard). */
__attribute__((always_inline)) void ebpfgpu_loop_guard(void) { ebpfgpu_abort_exit(); }

/* A lock wait's turn: every 1,024th asks whether to end. */
#define EBPFGPU_SPIN_PAUSE(spins)                                                                 \
  do {                                                                                             \
    if ((++(spins) & 1023u) == 0)                                                                  \
      ebpfgpu_abort_exit();                                                                        \
  } while (0)

/* A wait for a map value's bpf_spin_lock backs off: 32 ns doubling to
 * 8 us a turn (nanosleep: PTX 6.3, which the back end asks for sm_70 and
 * sm_72 too). Thousands of threads may wait for one value's lock, and a
 * wait that polls at once keeps the memory system busy with the waiters'
 * loads and compare-and-swaps while the holder needs it to finish: on an
 * H100, 65,536 threads a launch over four locks (tests/gpu-device/stress/
 * spin-lock.test) ran 10,000 packets in 32 ms and 1M not in 150 s. The
 * ceiling, timed on an H100 (bench/NOTES.md, session 32): 1 us ran that
 * test's 1M packets in 3.8 s of kernel time, but a program taking six
 * locks of twelve values a packet (stress/spin-lock-update.test) did not
 * end a launch of 65,536 in 20 s; 8 us: 6.4 s and 3.1 s for its 1M; 32
 * us: 20.9 s and 3.5 s. The buckets' own locks, held for a few
 * instructions by a writer, do not back off. */
#define EBPFGPU_LOCK_BACKOFF(spins)                                                               \
  __asm__ volatile("nanosleep.u32 %0;" ::"r"(32u << ((spins) < 8u ? (spins) : 8u)))

static inline uint32_t ebpfgpu_load_acquire(uint32_t *p) {
  uint32_t v;
  __asm__ volatile("ld.acquire." EBPFGPU_MAP_SCOPE ".u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

static inline void ebpfgpu_store_release(uint32_t *p, uint32_t v) {
  __asm__ volatile("st.release." EBPFGPU_MAP_SCOPE ".u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
/* An atomic add whose result no one reads (BPF_ADD without BPF_FETCH:
 * `__sync_fetch_and_add(&counter, n)` with the result unused), aggregated
 * across the warp: the threads adding to the same address at once (match)
 * sum their amounts (the same amount: a multiply; otherwise shuffles) and
 * one of them adds the sum. Counters many packets hit (a rate limiter's
 * drop count, a firewall's hot flows) otherwise serialise one atomic per
 * packet at one L2 slice: 1.5M drops of xdp_rate_limit took 1.3 ms on
 * the H100 where the hand-written twin, counting per block, took 0.12.
 * Relaxed, as the kernel's arm64 JIT makes these adds (STADD). */
static inline __attribute__((always_inline)) uint64_t ebpfgpu_warp_sum(uint32_t peers, uint64_t v) {
  int same;
  __nvvm_match_all_sync_i64p(peers, v, &same);
  if (same)
    return v * (uint64_t)__builtin_popcount(peers);
  uint64_t sum = 0;
  for (uint32_t m = peers; m; m &= m - 1) {
    int src = __builtin_ctz(m);
    uint32_t lo = __nvvm_shfl_sync_idx_i32(peers, (uint32_t)v, src, 0x1f);
    uint32_t hi = __nvvm_shfl_sync_idx_i32(peers, (uint32_t)(v >> 32), src, 0x1f);
    sum += (uint64_t)hi << 32 | lo;
  }
  return sum;
}

/* The threads of the warp adding to `key` at once: their amounts summed
 * into the `*v` of the lowest of them; returns whether the caller is it. */
static inline __attribute__((always_inline)) int ebpfgpu_warp_combine(uint64_t key, uint64_t *v) {
  const uint32_t peers = __nvvm_match_any_sync_i64(__nvvm_activemask(), key);
  const uint32_t lane = __nvvm_read_ptx_sreg_laneid();
  if (peers != 1u << lane)
    *v = ebpfgpu_warp_sum(peers, *v);
  return (uint32_t)__builtin_ctz(peers) == lane;
}

__attribute__((always_inline)) void ebpfgpu_warp_add_u64(uint64_t *p, uint64_t v) {
  if (ebpfgpu_warp_combine((uint64_t)p, &v))
    __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}

__attribute__((always_inline)) void ebpfgpu_warp_add_u32(uint32_t *p, uint32_t v) {
  uint64_t sum = v;
  if (ebpfgpu_warp_combine((uint64_t)p, &sum))
    __atomic_fetch_add(p, (uint32_t)sum, __ATOMIC_RELAXED);
}

#include "BlockAdds.inc"
#include "XdpHelpers.inc"
#include "FormatHelpers.inc"

/* The SYN cookie secrets (Abi/SyncookieSecret.h: SyncookieSecretGlobal),
 * which the loader writes; zero until it does. */
uint64_t ebpfgpu_syncookie_secret[4];
#define EBPFGPU_SYNCOOKIE_SECRET() ((const uint64_t *)ebpfgpu_syncookie_secret)
#include "SyncookieHelpers.inc"
#include "ebpf-gpu/Abi/MapHelpers.inc"
#include "Staging.inc"
#include "PersistentLoop.inc"

/* The reclaim kernel's body (GpuAbi.h: EBPFGPU_RECLAIM_KERNEL). */
void ebpfgpu_reclaim_maps(struct ebpfgpu_map *const *maps, uint32_t count) {
  const uint32_t t = __nvvm_read_ptx_sreg_tid_x();
  if (t < count)
    ebpfgpu_hash_reclaim(maps[t]);
}
#include "CpuGroups.inc"
#include "FibHelpers.inc"
#include "EventHelpers.inc"

/* SPDX-License-Identifier: Apache-2.0
 *
 * The device build of the helper functions (XdpHelpers.inc), compiled with
 * clang for nvptx64 to LLVM bitcode that the GPU back end links into every
 * module. Time comes from the GPU's global nanosecond timer. */

#include "ebpf-gpu/Platform/GpuAbi.h"
#include "ebpf-gpu/Platform/FibAbi.h"
#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Platform/XdpContext.h"

static inline uint64_t ebpfgpu_globaltimer(void) {
  uint64_t t;
  __asm__ volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

#define memcpy __builtin_memcpy
#define memmove __builtin_memmove
#define memset __builtin_memset
#define EBPFGPU_HELPER(name) ebpfgpu_##name
#define EBPFGPU_NOW_NS(boot) ebpfgpu_globaltimer()
#define EBPFGPU_FENCE() __asm__ volatile("fence.acq_rel.gpu;" ::: "memory")
#define EBPFGPU_SPIN_PAUSE() ((void)0) /* nanosleep needs PTX 6.3; sm_70 PTX is 6.0 */

static inline uint32_t ebpfgpu_load_acquire(uint32_t *p) {
  uint32_t v;
  __asm__ volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

static inline void ebpfgpu_store_release(uint32_t *p, uint32_t v) {
  __asm__ volatile("st.release.gpu.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
#include "XdpHelpers.inc"
#include "MapHelpers.inc"
#include "PersistentLoop.inc"
#include "CpuGroups.inc"
#include "FibHelpers.inc"
#include "EventHelpers.inc"

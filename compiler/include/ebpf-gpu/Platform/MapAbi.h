/* SPDX-License-Identifier: Apache-2.0
 *
 * A map as the helper functions see it at run time, on the host and on the
 * GPU: one header followed by storage the loader allocates. The compiled
 * program holds a pointer to it in the module global named by its binding
 * (`ebpfgpu_map_<name>`), which the loader sets after loading. */

#ifndef EBPF_GPU_PLATFORM_MAPABI_H
#define EBPF_GPU_PLATFORM_MAPABI_H

#ifdef __cplusplus
#include <cstdint>
#else
#include <stdint.h>
#endif

struct ebpfgpu_map {
  uint32_t type; /* BPF_MAP_TYPE_* */
  uint32_t key_size;
  uint32_t value_size;
  uint32_t max_entries;
  uint32_t flags;
  uint32_t value_stride; /* value_size rounded up to 8 */
  uint64_t values;       /* array: address of max_entries * value_stride bytes */
  /* Hash maps: chained buckets, each with a lock for writers (readers take
   * none), elements from a pool. Elements a delete or a replacing update
   * unlinks go to a pending list, and return to the free list only when no
   * program runs (between batches): a program that still holds a pointer
   * into one never sees it reused, as RCU gives the kernel. */
  uint32_t nbuckets;    /* power of two >= max_entries */
  uint32_t elem_stride; /* 8 + key_stride + value_stride */
  uint32_t key_stride;  /* key_size rounded up to 8 */
  uint32_t pool_size;   /* elements: max_entries plus spares for replacements */
  uint64_t buckets;     /* u32 per bucket: first element + 1, 0 when empty */
  uint64_t locks;       /* u32 per bucket */
  uint64_t elems;       /* pool_size elements: u32 next + 1, u32 hash, key, value */
  uint64_t control;     /* u32[6]: never-used elements handed out, pool lock,
                           free list head + 1, pending list head + 1, live keys */
};

#endif /* EBPF_GPU_PLATFORM_MAPABI_H */

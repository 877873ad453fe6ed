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
  uint64_t values;       /* address of max_entries * value_stride bytes */
};

#endif /* EBPF_GPU_PLATFORM_MAPABI_H */

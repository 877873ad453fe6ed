/* SPDX-License-Identifier: Apache-2.0
 *
 * The ABI between the loader and the batch kernels the compiler generates:
 * one descriptor per packet in, one verdict per packet out; thread t of a
 * grid of T threads takes packets t, t + T, t + 2T, ... (the loader sizes the
 * grid: at most one thread per packet, at most what the GPU holds at once). In C, shared by the compiler (which emits the kernels) and the
 * loader (which fills and reads these arrays); no LLVM, no CUDA. */

#ifndef EBPF_GPU_PLATFORM_GPUABI_H
#define EBPF_GPU_PLATFORM_GPUABI_H

#ifdef __cplusplus
#include <cstdint>
#else
#include <stdint.h>
#endif

/* Kernel names. XDP: ebpfgpu_xdp_batch(const struct ebpfgpu_packet_desc *descs,
 * struct ebpfgpu_verdict *verdicts, uint32_t count, uint64_t seed).
 * Raw (conformance): ebpfgpu_raw_run(void *mem, uint64_t len, uint64_t *r0),
 * run by thread 0 only. */
#define EBPFGPU_XDP_KERNEL "ebpfgpu_xdp_batch"
#define EBPFGPU_RAW_KERNEL "ebpfgpu_raw_run"
/* Programs that call bpf_trace_printk: a u64 module global holding the
 * device address of their struct ebpfgpu_trace_log (XdpContext.h). */
#define EBPFGPU_TRACE_LOG_GLOBAL "ebpfgpu_trace_log"
/* Programs that call bpf_fib_lookup: a u64 module global holding the device
 * address of their forwarding table (struct ebpfgpu_fib, FibAbi.h), 0 for
 * none. */
#define EBPFGPU_FIB_GLOBAL "ebpfgpu_fib"

struct ebpfgpu_packet_desc {
  uint64_t buffer;      /* device address of the packet's buffer (headroom first) */
  uint32_t data_offset; /* where the packet starts in the buffer */
  uint32_t length;      /* packet bytes */
  uint32_t buffer_size; /* whole buffer: headroom + packet + tailroom */
  uint32_t ingress_ifindex;
  uint32_t rx_queue_index;
  uint32_t reserved;
};

struct ebpfgpu_verdict {
  uint32_t action;      /* r0 (XDP_*), truncated to 32 bits */
  uint32_t data_offset; /* where the program left the packet's start */
  uint32_t length;      /* and its length (after adjust_head/tail) */
  uint32_t redirect_target;
};

#endif /* EBPF_GPU_PLATFORM_GPUABI_H */

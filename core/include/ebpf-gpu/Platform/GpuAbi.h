/* SPDX-License-Identifier: Apache-2.0
 *
 * The ABI between the loader and the batch kernels the compiler generates:
 * one descriptor per packet in, one verdict per packet out; thread t of a
 * grid of T threads takes packets t, t + T, t + 2T, ... (the loader sizes the
 * grid: a thread per packet; a program with per-CPU maps compiled before
 * EBPFGPU_CPU_GROUPS_GLOBAL existed, at most what the GPU holds at once).
 * In C, shared by the compiler (which emits the kernels) and the loader
 * (which fills and reads these arrays); no LLVM, no CUDA. */

#ifndef EBPF_GPU_PLATFORM_GPUABI_H
#define EBPF_GPU_PLATFORM_GPUABI_H

#ifdef __cplusplus
#include <cstdint>
#else
#include <stdint.h>
#endif

/* Kernel names. XDP: ebpfgpu_xdp_batch(const struct ebpfgpu_packet_desc *descs,
 * struct ebpfgpu_verdict *verdicts, uint32_t count, uint64_t seed,
 * uint8_t *stage, uint32_t *done, uint32_t *arrived, uint32_t seq), `stage`
 * null or EBPFGPU_STAGE_SLOT bytes of device memory per packet of the batch
 * (below); `done` null or a u32 of mapped host memory that the last block
 * to finish sets to `seq` once the batch's verdicts and packets are visible
 * to the host, `arrived` then a u32 of device memory, zero at the launch,
 * by which the blocks find the last (it leaves it zero again).
 * Raw (conformance): ebpfgpu_raw_run(void *mem, uint64_t len, uint64_t *r0),
 * run by thread 0 only. */
#define EBPFGPU_XDP_KERNEL "ebpfgpu_xdp_batch"
/* XDP, the same batch kernel built with at most EBPFGPU_XDP_BUDGET_REGISTERS
 * registers a thread (PTX .maxnreg), beside the default build unless the
 * compiler was given a budget: which of the two is faster depends on the
 * program (more resident threads hide more memory latency; spills cost),
 * so the loader times both on a program's first large batches and keeps
 * the faster (GpuProgram::kernelChoice). Same arguments, same program. */
#define EBPFGPU_XDP_BUDGET_KERNEL "ebpfgpu_xdp_batch_budget"
#define EBPFGPU_XDP_BUDGET_REGISTERS 32
#define EBPFGPU_RAW_KERNEL "ebpfgpu_raw_run"
/* XDP, persistent mode: ebpfgpu_xdp_persistent(struct ebpfgpu_ring *ring,
 * struct ebpfgpu_ring_sync *sync, uint64_t seed, uint8_t *stage), `stage`
 * as the batch kernel's for the largest batch. Launched once; runs the
 * batches the host posts in `ring` until the host sets ring->stop. Every
 * block must be resident at once (the loader sizes the grid so). */
#define EBPFGPU_XDP_PERSISTENT_KERNEL "ebpfgpu_xdp_persistent"
/* XDP: ebpfgpu_reclaim(struct ebpfgpu_map *const *maps, uint32_t count),
 * one thread a map: the elements earlier batches retired from hashed maps
 * (not LPM tries) join the free lists (ebpfgpu_hash_reclaim). Launched on
 * the stream of the batches, after them: nothing may run on the maps
 * meanwhile. Modules compiled before it lack it (the host reclaims). */
#define EBPFGPU_RECLAIM_KERNEL "ebpfgpu_reclaim"
/* Programs that call bpf_trace_printk: a u64 module global holding the
 * device address of their struct ebpfgpu_trace_log (XdpContext.h). */
#define EBPFGPU_TRACE_LOG_GLOBAL "ebpfgpu_trace_log"
/* Programs that call bpf_fib_lookup: a u64 module global holding the device
 * address of their forwarding table (struct ebpfgpu_fib, FibAbi.h), 0 for
 * none. */
#define EBPFGPU_FIB_GLOBAL "ebpfgpu_fib"
/* Every module with a loop or a lock wait: a u64 module global holding the
 * device address of a u32 in mapped host memory (0: none). Once the host sets
 * that word, the next loop guard to read it (every 65,536th backward jump of
 * a function's activation, every 1,024th turn of a lock wait, the persistent
 * kernel's waits) ends its thread (PTX exit) or its wait: the kernel ends
 * normally instead of running on for ever, and its context stays usable. */
#define EBPFGPU_ABORT_GLOBAL "ebpfgpu_abort_word"
/* Programs that call bpf_get_numa_node_id: a u32 module global holding the
 * host NUMA node nearest the GPU (CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID; 0 where
 * the system has no NUMA, as the kernel's numa_node_id() there), which the
 * loader writes before any launch. */
#define EBPFGPU_NUMA_NODE_GLOBAL "ebpfgpu_numa_node"
/* The function the lifter calls from loops on the GPU (void(void)). */
#define EBPFGPU_LOOP_GUARD "ebpfgpu_loop_guard"
/* Programs with per-CPU maps: a struct ebpfgpu_cpu_groups module global.
 * Their batch kernel hands the per-CPU slices out a block at a time: each
 * block claims a free group of ntid slices in `table` (one u32 a group, 0
 * when free), runs its packets as CPUs group * ntid + tid and frees the
 * group when it ends, so the grid can have a thread per packet while no
 * two running threads share a slice. The loader allocates the table
 * (zeroed) with `groups` = its CPUs / ntid and writes the global before
 * the first launch. With `per_sm` (1-32) groups a multiprocessor (the
 * blocks one holds at once), the table instead has groups / per_sm words
 * of per_sm bits, one a group (set while held): a block looks first in
 * the word of its multiprocessor. The persistent kernel does not use it:
 * its blocks are all resident and thread t is CPU t; the two kernels of
 * one program must not run at once. */
#define EBPFGPU_CPU_GROUPS_GLOBAL "ebpfgpu_cpu_groups"

struct ebpfgpu_cpu_groups {
  uint64_t table; /* device address of the table: `groups` u32 words, or groups / per_sm */
  uint32_t groups;
  uint32_t per_sm; /* 0: a word a group; else a bit a group, per_sm to a word */
};

/* Staging: packets in host memory (the mapped data path) cost a PCIe round
 * trip for each load that misses the caches, one after another as a
 * program parses its headers, and a PCIe write for each store (byte stores
 * of a MAC address: one each). A packet whose 16-byte chunks span at most
 * EBPFGPU_STAGE_BYTES, in a 16-byte aligned buffer, is copied into its slot
 * of device memory with independent 16-byte loads, runs there, and only the
 * chunks it changed go back, as 16-byte stores. Not for programs that move
 * packet bounds (xdp_adjust_*: their room is the buffer's). A slot: the
 * copy the program runs on, then the bytes as they came. */
#define EBPFGPU_STAGE_BYTES 256u
#define EBPFGPU_STAGE_SLOT (2u * EBPFGPU_STAGE_BYTES)

/* Persistent mode on the mapped path, staging: the host copies each
 * packet's 16-byte chunks (from its data's 16-byte aligned start, at most
 * EBPFGPU_INLINE_BYTES) into a record beside the descriptors
 * (ebpfgpu_ring::inline_bytes, a record per packet) and sets
 * EBPFGPU_DESC_INLINE in the descriptor's flags when they hold the whole
 * packet: the kernel reads descriptor and bytes in one PCIe round trip
 * (the packet's address no longer waits for the descriptor's) and stages
 * the packet from them. */
#define EBPFGPU_INLINE_BYTES 128u
#define EBPFGPU_DESC_INLINE 1u
/* The packet's buffer starts with its struct ebpfgpu_rx_meta (XdpContext.h):
 * it came from a port, for a program that calls the XDP RX metadata kfuncs.
 * Without it those kfuncs answer -EOPNOTSUPP (no device). */
#define EBPFGPU_DESC_RX_META 2u

struct ebpfgpu_packet_desc {
  uint64_t buffer;      /* device address of the packet's buffer (headroom first) */
  uint32_t data_offset; /* where the packet starts in the buffer */
  uint32_t length;      /* packet bytes */
  uint32_t buffer_size; /* whole buffer: headroom + packet + tailroom */
  uint32_t ingress_ifindex;
  uint32_t rx_queue_index;
  uint32_t flags; /* EBPFGPU_DESC_INLINE, EBPFGPU_DESC_RX_META, else 0 */
};

struct ebpfgpu_verdict {
  uint32_t action;      /* r0 (XDP_*), truncated to 32 bits */
  uint32_t data_offset; /* where the program left the packet's start */
  uint32_t length;      /* and its length (after adjust_head/tail) */
  uint32_t redirect_target;
};

/* Persistent mode: the doorbell ring, in pinned host memory the GPU reads
 * and writes over PCIe. Batches are numbered 1, 2, ...; batch n uses slot
 * i = (n - 1) % slots and its arrays: the descriptors, verdicts and first
 * bytes from packet i * slot_packets of the ring's arrays. The host writes
 * a slot's descriptors, then stores post = n | count << 32 (one release
 * store: the kernel learns the batch and its size in one PCIe round trip);
 * the kernel runs the batches in order and stores done = n (release,
 * system scope) once every verdict of batch n is written. With several
 * slots the host posts batch n + 1 while batch n runs (at most `slots`
 * batches posted and not done). Thread t of the kernel runs its packets as
 * CPU cpu_base + t, so that several persistent kernels of one program (a
 * data plane worker's each) keep to their own per-CPU slices. */
#define EBPFGPU_RING_SLOTS 16

struct ebpfgpu_ring_slot {
  uint64_t post;     /* host: batch | packets << 32 */
  uint32_t done;     /* GPU: the last batch of this slot that finished */
  uint32_t reserved;
};

struct ebpfgpu_ring {
  uint32_t stop;      /* host: 1 makes the kernel return once idle */
  uint32_t slots;     /* slots in use, 1..EBPFGPU_RING_SLOTS */
  uint64_t heartbeat; /* GPU: advanced while the kernel waits */
  uint64_t descs;     /* device-visible address of the descriptors (fixed) */
  uint64_t verdicts;  /* and of the verdicts */
  uint64_t inline_bytes; /* and of the packets' first bytes (EBPFGPU_INLINE_BYTES), or 0 */
  uint32_t slot_packets; /* packets of each slot's arrays (0: the slots share one) */
  uint32_t cpu_base;     /* the CPU of the kernel's thread 0 */
  struct ebpfgpu_ring_slot slot[EBPFGPU_RING_SLOTS];
};

/* Device memory, zeroed before the launch: how the blocks agree. Block 0
 * alone reads the ring in host memory; a batch larger than a block goes
 * to the other blocks through `go`. */
struct ebpfgpu_ring_sync_slot {
  uint32_t arrived; /* blocks done with the slot's batch */
  uint32_t reserved;
};

struct ebpfgpu_ring_sync {
  uint64_t go;   /* the newest batch other blocks take part in: batch | packets << 32 */
  uint32_t stop; /* block 0 saw ring->stop */
  /* The newest batch of several blocks that all of them are done with:
   * block 0 gives the next such batch `go` only then (a block still in the
   * one before would miss it). */
  uint32_t finished;
  struct ebpfgpu_ring_sync_slot slot[EBPFGPU_RING_SLOTS];
};

#endif /* EBPF_GPU_PLATFORM_GPUABI_H */

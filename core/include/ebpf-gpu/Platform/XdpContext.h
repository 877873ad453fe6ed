/* SPDX-License-Identifier: Apache-2.0
 *
 * The context the runtime passes to an XDP program, in C so that the host
 * runtime, the device helper library (compiled for nvptx64) and the lifter
 * agree on one layout. The lifter rewrites the program's struct xdp_md
 * accesses to these fields; the fields after egress_ifindex are private to
 * the runtime and its helpers. */

#ifndef EBPF_GPU_PLATFORM_XDPCONTEXT_H
#define EBPF_GPU_PLATFORM_XDPCONTEXT_H

#ifdef __cplusplus
#include <cstdint>
#else
#include <stdint.h>
#endif

struct ebpfgpu_xdp_ctx {
  uint64_t data;
  uint64_t data_end;
  uint64_t data_meta;
  uint32_t ingress_ifindex;
  uint32_t rx_queue_index;
  uint32_t egress_ifindex;
  /* The lowest byte of the buffer the program has been shown: one plus its
   * offset from buffer_start, 0 until a head or meta adjustment first
   * records it (the packet's start at entry). Below it the headroom holds
   * whatever an earlier packet left in a reused buffer: the adjustments
   * zero what they expose of it (XdpHelpers.inc). */
  uint32_t seen_start;
  /* First byte of the buffer (start of headroom) and one past its last byte. */
  uint64_t buffer_start;
  uint64_t buffer_end;
  /* Set by bpf_redirect: the target ifindex (below 2^30), a broadcast's
   * set of ports (EBPFGPU_REDIRECT_BROADCAST), a CPU of a cpumap
   * (EBPFGPU_REDIRECT_CPU), or an xskmap's consumer (EBPFGPU_REDIRECT_XSK). */
  uint64_t redirect_target;
  /* State of bpf_get_prandom_u32, seeded by the runtime per packet. */
  uint64_t random_state;
  /* What bpf_get_smp_processor_id returns. */
  uint32_t cpu_id;
  /* The packet's index in its run (batch or launch): event records carry
   * it, so records written concurrently can be put in packet order. */
  uint32_t packet_index;
  /* Where bpf_trace_printk appends its lines (struct ebpfgpu_trace_log);
   * 0 when the program has no trace log. */
  uint64_t trace_log;
  /* bpf_tail_call: the program to run next (its id + 1; 0: none), set by a
   * successful call, and the tail calls made so far for this packet. */
  uint32_t tail_target;
  uint32_t tail_calls;
  /* The forwarding table bpf_fib_lookup reads (struct ebpfgpu_fib,
   * FibAbi.h); 0 when the runtime has none. */
  uint64_t fib;
  /* What the XDP RX metadata kfuncs read: the address of the packet's
   * struct ebpfgpu_rx_meta, or 0 where the packet came from no port (a
   * pcap given to `run`): then they are the kernel's generic
   * implementations, -EOPNOTSUPP. */
  uint64_t rx_meta;
};

/* What a port received with a packet, as a driver's descriptor says it,
 * for bpf_xdp_metadata_rx_timestamp, _rx_hash and _rx_vlan_tag: a field
 * whose flag is clear is -ENODATA, as a driver answers when its NIC gave
 * none. The runtime writes it at the start of the packet's buffer, in the
 * EBPFGPU_XDP_FRAME_SIZE bytes the kernel keeps there for its struct
 * xdp_frame, which no program can reach (bpf_xdp_adjust_head and _meta
 * stop short of them), and only for programs that call those kfuncs. */
/* The kernel keeps the first bytes of the headroom for the struct xdp_frame
 * it builds there on XDP_REDIRECT: neither the packet's start nor its
 * metadata may move into them. 40 bytes on x86-64 kernels (Linux 6.18
 * here: bpf_xdp_adjust_head(ctx, -216) is the furthest its test runs, with
 * 256 bytes of headroom, accept). */
#define EBPFGPU_XDP_FRAME_SIZE 40

#define EBPFGPU_RX_META_TIMESTAMP 1u
#define EBPFGPU_RX_META_HASH 2u
#define EBPFGPU_RX_META_VLAN 4u

struct ebpfgpu_rx_meta {
  uint32_t flags;     /* EBPFGPU_RX_META_* */
  uint32_t hash;      /* the RSS hash */
  uint32_t hash_type; /* enum xdp_rss_hash_type */
  uint16_t vlan_proto; /* network order, as the kernel's __be16 */
  uint16_t vlan_tci;
  uint64_t timestamp; /* ns */
};

/* The redirect target of a broadcast (bpf_redirect_map with
 * BPF_F_BROADCAST on a devmap): the helper resolves the map's devices as it
 * runs, less the ingress one with BPF_F_EXCLUDE_INGRESS, into a set the
 * verdict carries in its 32 bits (the host reads no GPU map per packet).
 * Bit i - 1 stands for ifindex i up to EBPFGPU_REDIRECT_BROADCAST_PORTS;
 * EBPFGPU_REDIRECT_BROADCAST_FAR says that some entry named a device past
 * those, which the runtime cannot reach (it counts the copy as failed). */
#define EBPFGPU_REDIRECT_BROADCAST 0x80000000u
#define EBPFGPU_REDIRECT_BROADCAST_FAR 0x40000000u
#define EBPFGPU_REDIRECT_BROADCAST_PORTS 30u
/* The redirect target of bpf_redirect_map into a cpumap: this bit (without
 * EBPFGPU_REDIRECT_BROADCAST) and the CPU (the key). The kernel hands such a packet to its network stack on
 * that CPU; the runtime hands it to the exception port, as XDP_PASS. An
 * ifindex is below EBPFGPU_REDIRECT_XSK (bpf_redirect stores 0, no port,
 * for larger ones). */
#define EBPFGPU_REDIRECT_CPU 0x40000000u
/* The redirect target of bpf_redirect_map into an xskmap: this bit
 * (without the two above) and the AF_XDP-style consumer's id, the entry's
 * value (docs/MAPS.md, "xskmap"). The kernel delivers such a packet to the
 * socket if it is bound to the packet's device and queue; the runtime, to
 * the consumer's port under the same rule. Ifindexes that bpf_redirect
 * and devmaps name are below it. */
#define EBPFGPU_REDIRECT_XSK 0x20000000u

/* The log of bpf_trace_printk: lines appended at `head` (reserved with an
 * atomic add) into `capacity` bytes that follow the header; a line that
 * does not fit is counted in `dropped`. The host takes the lines between
 * runs and resets `head`. */
struct ebpfgpu_trace_log {
  uint32_t head;
  uint32_t capacity;
  uint32_t dropped;
  uint32_t reserved;
};

#endif /* EBPF_GPU_PLATFORM_XDPCONTEXT_H */

/* SPDX-License-Identifier: Apache-2.0
 *
 * The forwarding table bpf_fib_lookup reads, as one position-independent
 * block of bytes the loader builds from a FIB file (loader/Fib.h) and
 * copies as is to host or device memory: a header, then links, routes and
 * neighbours, each array at a byte offset from the start of the block, so
 * the same bytes serve the host and the GPU. Programs only read it; the
 * host replaces it between batches. In C, shared by the loader and the
 * helper (FibHelpers.inc); the kernel's numbers where the kernel has them
 * (address families, route types, table ids). */

#ifndef EBPF_GPU_PLATFORM_FIBABI_H
#define EBPF_GPU_PLATFORM_FIBABI_H

#ifdef __cplusplus
#include <cstdint>
#else
#include <stdint.h>
#endif

#define EBPFGPU_FIB_MAGIC 0x31424946u /* "FIB1" */

#define EBPFGPU_AF_INET 2
#define EBPFGPU_AF_INET6 10

/* Route types (the kernel's RTN_*). */
enum {
  EBPFGPU_RTN_UNICAST = 1,
  EBPFGPU_RTN_LOCAL = 2,
  EBPFGPU_RTN_BROADCAST = 3,
  EBPFGPU_RTN_ANYCAST = 4,
  EBPFGPU_RTN_MULTICAST = 5,
  EBPFGPU_RTN_BLACKHOLE = 6,
  EBPFGPU_RTN_UNREACHABLE = 7,
  EBPFGPU_RTN_PROHIBIT = 8,
  EBPFGPU_RTN_THROW = 9,
};

/* Routing table ids (the kernel's RT_TABLE_*). */
#define EBPFGPU_RT_TABLE_DEFAULT 253
#define EBPFGPU_RT_TABLE_MAIN 254
#define EBPFGPU_RT_TABLE_LOCAL 255

/* Link forwarding bits. */
#define EBPFGPU_FIB_FWD4 1
#define EBPFGPU_FIB_FWD6 2

struct ebpfgpu_fib {
  uint32_t magic;
  uint32_t nlinks;
  uint32_t nroutes;
  uint32_t nneighs;
  uint32_t links;  /* byte offset of nlinks struct ebpfgpu_fib_link, by ifindex */
  uint32_t routes; /* byte offset of the routes, in lookup order (below) */
  uint32_t neighs; /* byte offset of the neighbours, by family, ifindex, address */
  uint32_t reserved;
};

struct ebpfgpu_fib_link {
  uint32_t ifindex;
  uint32_t mtu;
  uint8_t mac[6];
  uint8_t forwarding; /* EBPFGPU_FIB_FWD* */
  uint8_t reserved;
};

/* Routes in lookup order: by family, then prefix length (longest first),
 * then metric (lowest first), then the order of the file; a lookup takes
 * the first route that matches. */
struct ebpfgpu_fib_route {
  uint8_t family;    /* EBPFGPU_AF_* */
  uint8_t type;      /* EBPFGPU_RTN_* */
  uint8_t prefixlen; /* 0..32 or 0..128 */
  uint8_t gw_family; /* 0: directly connected; else the gateway's family */
  uint32_t table;
  uint32_t ifindex; /* the egress link; 0 for routes without one */
  uint32_t metric;
  uint32_t mtu; /* a locked route MTU (`mtu lock N`); 0: the link's */
  uint32_t reserved;
  uint8_t prefix[16]; /* network order, masked to prefixlen */
  uint8_t gw[16];
};

/* Neighbours (ARP and NDP entries): the link-layer address of `addr` on
 * link `ifindex`; `valid` is 0 for entries in states the kernel does not
 * forward to (INCOMPLETE, FAILED). */
struct ebpfgpu_fib_neigh {
  uint8_t family;
  uint8_t valid;
  uint8_t mac[6];
  uint32_t ifindex;
  uint32_t reserved;
  uint8_t addr[16]; /* network order; IPv4 in the first 4 bytes */
};

#endif /* EBPF_GPU_PLATFORM_FIBABI_H */

// SPDX-License-Identifier: Apache-2.0
//
// Hand-written CUDA twin of samples/xdp_router.c: IPv4 longest-prefix
// match of the destination, MAC rewrite, TTL decrement with the RFC 1624
// incremental checksum, redirect to the route's port; no route, TTL <= 1,
// IP options or not IPv4 go to the stack (XDP_PASS). Same verdicts,
// redirect targets and output bytes as the compiled program.
// The routes are a small table sorted by prefix length, longest first (the
// harness writes it from the same map file as the compiled program's LPM
// trie): the first match is the longest. All threads scan the same entries
// in the same order, so the loads are broadcasts served from L1; for a few
// routes this beats any trie or hash. router_stats counts [0] routed,
// [1] to the stack.

#include "common.cuh"

using namespace twin;

constexpr unsigned MaxRoutes = 1024;

struct Route {        // the LPM trie's key, then its value, as the map file has them
  unsigned prefixlen; // little-endian, as the key
  unsigned char addr[4];
  unsigned ifindex;
  unsigned char dmac[6];
  unsigned char smac[6];
};
static_assert(sizeof(Route) == 24, "Route is the map's key (8) followed by its value (16)");

__device__ Route router_routes[MaxRoutes];
__device__ unsigned router_route_count;
__device__ unsigned long long router_stats[2];

extern "C" __global__ void cuda_router(const ebpfgpu_packet_desc *descs,
                                       ebpfgpu_verdict *verdicts, unsigned count,
                                       unsigned long long seed) {
  __shared__ unsigned long long smem[2];
  BlockCounters<2> counters;
  counters.init(smem);
  unsigned routes = min(router_route_count, MaxRoutes);
  forEachPacket(descs, verdicts, count, [&](unsigned char *data, const unsigned char *end) {
    if (data + 14 > end)
      return Result{XdpDrop, 0};
    if (be16(data + 12) != 0x0800) {
      counters.add(1);
      return Result{XdpPass, 0};
    }
    unsigned char *ip = data + 14;
    if (ip + 20 > end)
      return Result{XdpDrop, 0};
    if ((ip[0] & 0xf) != 5 || ip[8] <= 1) {
      counters.add(1);
      return Result{XdpPass, 0};
    }
    unsigned dst = be32(ip + 16);
    const Route *hit = nullptr;
    for (unsigned r = 0; r < routes; ++r) {
      const Route &R = router_routes[r];
      unsigned len = R.prefixlen;
      unsigned mask = len >= 32 ? ~0u : len == 0 ? 0u : ~0u << (32 - len);
      unsigned prefix = (unsigned(R.addr[0]) << 24) | (R.addr[1] << 16) | (R.addr[2] << 8) |
                        R.addr[3];
      if (((dst ^ prefix) & mask) == 0) {
        hit = &R;
        break;
      }
    }
    if (!hit) {
      counters.add(1);
      return Result{XdpPass, 0};
    }
    unsigned sum = (~be16(ip + 10) & 0xffff) + (~0x0100u & 0xffff);
    sum = (sum & 0xffff) + (sum >> 16);
    unsigned check = ~sum & 0xffff;
    ip[10] = check >> 8;
    ip[11] = check & 0xff;
    ip[8] -= 1;
    for (int k = 0; k < 6; ++k) {
      data[k] = hit->dmac[k];
      data[6 + k] = hit->smac[k];
    }
    counters.add(0);
    return Result{XdpRedirect, hit->ifindex};
  });
  counters.flush(router_stats);
}

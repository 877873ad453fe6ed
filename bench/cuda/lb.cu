// SPDX-License-Identifier: Apache-2.0
//
// Hand-written CUDA twin of samples/xdp_lb.c: TCP/UDP to 192.168.0.0/16 is
// spread over 8 backends by the same FNV-1a-style hash of the 5-tuple; the
// backend's MAC becomes the destination and the packet is redirected to the
// backend's port, or passed when the slot has no port. Same verdicts,
// redirect targets and output bytes as the compiled program.
// Tables: lb_macs (8 x 8 bytes, as the backend_macs map's values) and
// lb_ports (8 ifindexes, 0 = no port), written by the harness from the same
// map file as the compiled program's; lb_packets counts per backend (block
// counters in shared memory, one atomic per block and backend).

#include "common.cuh"

using namespace twin;

constexpr unsigned NumBackends = 8;

__device__ unsigned char lb_macs[NumBackends][8];
__device__ unsigned lb_ports[NumBackends];
__device__ unsigned long long lb_packets[NumBackends];

namespace {

__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) {
  h ^= v;
  h *= 0x01000193u;
  return h ^ (h >> 15);
}

} // namespace

extern "C" __global__ void cuda_lb(const ebpfgpu_packet_desc *descs, ebpfgpu_verdict *verdicts,
                                   unsigned count, unsigned long long seed) {
  __shared__ unsigned long long smem[NumBackends];
  BlockCounters<NumBackends> counters;
  counters.init(smem);
  forEachPacket(descs, verdicts, count, [&](unsigned char *data, const unsigned char *end) {
    if (data + 14 > end)
      return Result{XdpDrop, 0};
    if (be16(data + 12) != 0x0800)
      return Result{XdpPass, 0};
    const unsigned char *ip = data + 14;
    if (ip + 20 > end)
      return Result{XdpDrop, 0};
    if (be16(ip + 16) != 0xc0a8)
      return Result{XdpPass, 0};
    unsigned proto = ip[9];
    if (proto != 6 && proto != 17)
      return Result{XdpPass, 0};
    const unsigned char *l4 = ip + (ip[0] & 0xf) * 4;
    if (l4 + 8 > end)
      return Result{XdpDrop, 0};
    // The eBPF program hashes the fields as little-endian loads of the wire
    // bytes; the ports word is (source << 16 | dest) of those loads.
    unsigned h = 0x811c9dc5u;
    h = mix(h, le32(ip + 12));
    h = mix(h, le32(ip + 16));
    unsigned sport = l4[0] | (l4[1] << 8), dport = l4[2] | (l4[3] << 8);
    h = mix(h, sport << 16 | dport);
    h = mix(h, proto);
    unsigned backend = h % NumBackends;
    const unsigned char *mac = lb_macs[backend];
    for (int k = 0; k < 6; ++k)
      data[k] = mac[k];
    counters.add(backend);
    unsigned port = lb_ports[backend];
    return port ? Result{XdpRedirect, port} : Result{XdpPass, 0};
  });
  counters.flush(lb_packets);
}

// SPDX-License-Identifier: Apache-2.0
//
// Hand-written CUDA twin of samples/xdp_port_filter.c, written as a CUDA
// engineer would: same parsing and decisions, same batch ABI as the
// compiled program (thread t takes packets t, t + T, ... of a grid of T
// threads; ebpfgpu_packet_desc in, ebpfgpu_verdict out), so the benchmark
// launches both identically.
// Headers are read with byte loads (packet fields are not naturally
// aligned), the blocked ports are compile-time constants.

#include "ebpf-gpu/Platform/GpuAbi.h"

namespace {

__device__ __forceinline__ unsigned be16(const unsigned char *p) { return (p[0] << 8) | p[1]; }

constexpr unsigned XdpDrop = 1, XdpPass = 2;

__device__ unsigned decide(const unsigned char *data, const unsigned char *end) {
  if (data + 14 > end)
    return XdpDrop;
  unsigned proto = be16(data + 12);
  const unsigned char *next = data + 14;
  if (proto == 0x8100) {
    if (next + 4 > end)
      return XdpDrop;
    proto = be16(next + 2);
    next += 4;
  }
  if (proto != 0x0800)
    return XdpPass;
  if (next + 20 > end)
    return XdpDrop;
  unsigned ihl = (next[0] & 0xf) * 4;
  if (ihl < 20)
    return XdpDrop;
  unsigned l4proto = next[9];
  unsigned first_octet = next[12];
  const unsigned char *l4 = next + ihl;
  unsigned dport = 0;
  if (l4proto == 6) {
    if (l4 + 20 > end)
      return XdpDrop;
    dport = be16(l4 + 2);
  } else if (l4proto == 17) {
    if (l4 + 8 > end)
      return XdpDrop;
    dport = be16(l4 + 2);
  }
  if (first_octet == 10)
    return XdpPass;
  if (l4proto == 6 && (dport == 80 || dport == 443))
    return XdpDrop;
  if (l4proto == 17 && dport == 53)
    return XdpDrop;
  return XdpPass;
}

} // namespace

extern "C" __global__ void cuda_port_filter(const ebpfgpu_packet_desc *descs,
                                            ebpfgpu_verdict *verdicts, unsigned count,
                                            unsigned long long seed) {
  unsigned stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
    ebpfgpu_packet_desc d = descs[i];
    const unsigned char *data = reinterpret_cast<const unsigned char *>(d.buffer) + d.data_offset;
    ebpfgpu_verdict v;
    v.action = decide(data, data + d.length);
    v.data_offset = d.data_offset;
    v.length = d.length;
    v.redirect_target = 0;
    verdicts[i] = v;
  }
}

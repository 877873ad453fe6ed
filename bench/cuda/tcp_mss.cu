// SPDX-License-Identifier: Apache-2.0
//
// Hand-written CUDA twin of samples/xdp_tcp_mss.c: every IPv4 TCP
// segment's options are walked (EOL ends them, NOP is one byte, the others
// carry a length that must be at least 2, stay inside the header and fit
// the kind); malformed options drop the segment; the MSS option of a SYN
// above the clamp (tcp_mss_clamp, written by the harness from the map
// file; 0: off) is lowered in place with the checksum fixed incrementally
// (RFC 1624, the bytes swapped at an odd offset) and the segment goes back
// out (XDP_TX). Same verdicts and output bytes as the compiled program.
// The walk is the loop a CUDA engineer writes over the header's bytes:
// threads of a warp whose packets carry different options diverge there,
// as the compiled program's do. Counters (SYNs, clamped, malformed) per
// block in shared memory, one atomic per block and counter (the program:
// atomics on an array).

#include "common.cuh"

using namespace twin;

__device__ unsigned tcp_mss_clamp;
__device__ unsigned long long tcp_mss_stats[3]; // SYNs, clamped, malformed

namespace {

__device__ __forceinline__ bool lengthOk(unsigned kind, unsigned len) {
  switch (kind) {
  case 2: return len == 4;
  case 3: return len == 3;
  case 4: return len == 2;
  case 5: return len >= 10 && len <= 34 && (len - 2) % 8 == 0;
  case 8: return len == 10;
  default: return true;
  }
}

/// RFC 1624 eqn. 3, numbers in network order.
__device__ __forceinline__ unsigned csumReplace(unsigned check, unsigned old, unsigned now) {
  unsigned sum = (~check & 0xffff) + (~old & 0xffff) + now;
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return ~sum & 0xffff;
}

__device__ __forceinline__ unsigned swap16(unsigned v) { return ((v & 0xff) << 8) | (v >> 8); }

} // namespace

extern "C" __global__ void cuda_tcp_mss(const ebpfgpu_packet_desc *descs, ebpfgpu_verdict *verdicts,
                                        unsigned count, unsigned long long seed) {
  __shared__ unsigned long long smem[3];
  BlockCounters<3> counters;
  counters.init(smem);
  unsigned clampAll = tcp_mss_clamp;
  forEachPacket(descs, verdicts, count, [&](unsigned char *data, const unsigned char *end) {
    if (data + 14 > end)
      return Result{XdpDrop, 0};
    if (be16(data + 12) != 0x0800)
      return Result{XdpPass, 0};
    unsigned char *ip = data + 14;
    if (ip + 20 > end || (ip[0] & 0xf) < 5)
      return Result{XdpDrop, 0};
    if (ip[9] != 6)
      return Result{XdpPass, 0};
    unsigned char *tcp = ip + (ip[0] & 0xf) * 4;
    if (tcp + 20 > end || (tcp[12] >> 4) < 5)
      return Result{XdpDrop, 0};
    unsigned optLen = (tcp[12] >> 4) * 4 - 20;
    unsigned char *opts = tcp + 20;
    if (opts + optLen > end)
      return Result{XdpDrop, 0};
    unsigned clamp = 0;
    if (tcp[13] & 0x02) {
      counters.add(0);
      clamp = clampAll;
    }
    bool clamped = false;
    unsigned off = 0;
    while (off < optLen) {
      unsigned kind = opts[off];
      if (kind == 0)
        break;
      if (kind == 1) {
        ++off;
        continue;
      }
      unsigned len = off + 2 <= optLen ? opts[off + 1] : 0;
      if (len < 2 || off + len > optLen || !lengthOk(kind, len)) {
        counters.add(2);
        return Result{XdpDrop, 0};
      }
      if (kind == 2 && clamp) {
        unsigned old = be16(opts + off + 2), now = clamp & 0xffff;
        if (old > now) {
          opts[off + 2] = (unsigned char)(now >> 8);
          opts[off + 3] = (unsigned char)now;
          unsigned was = old, is = now;
          if (off & 1)
            was = swap16(old), is = swap16(now);
          unsigned c = csumReplace(be16(tcp + 16), was, is);
          tcp[16] = (unsigned char)(c >> 8), tcp[17] = (unsigned char)c;
          clamped = true;
        }
      }
      off += len;
    }
    if (!clamped)
      return Result{XdpPass, 0};
    counters.add(1);
    return Result{XdpTx, 0};
  });
  counters.flush(tcp_mss_stats);
}

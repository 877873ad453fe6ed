// SPDX-License-Identifier: Apache-2.0
//
// Hand-written CUDA twin of samples/xdp_conntrack.c: TCP from outside
// 10.0.0.0/8 passes only on flows a SYN opened; SYN (without ACK) inserts
// the flow if absent, later segments count packets and bytes and pass,
// FIN or RST delete the flow, segments of unknown flows drop; non-TCP
// passes. Same decisions as the compiled program.
// The flow table is what a CUDA engineer would write: open addressing with
// linear probing over ct_slots (a power of two, twice the eBPF map's 4096
// entries), each slot claimed by a CAS on its state word (empty -> busy ->
// live; deleted slots become tombstones and are not reused; state and key
// read together with one strong 16-byte load), counters
// updated with atomics. Readers that meet a slot being filled wait for it
// (independent thread scheduling, sm_70 and later). Unlike the LRU hash it
// does not evict: an insert that finds no free slot within the probe limit
// is refused and counted in ct_refused, which the harness requires to stay
// 0 (the benchmark's flows fit).

#include "common.cuh"

using namespace twin;

constexpr unsigned CtSlots = 8192, CtMaxProbe = 64;
constexpr unsigned Empty = 0, Busy = 1, Live = 2, Deleted = 3;

struct Slot {
  unsigned state;
  unsigned saddr, daddr, ports; // wire bytes as little-endian loads; ports = sport | dport << 16
  unsigned long long packets, bytes;
};

__device__ Slot ct_slots[CtSlots];
__device__ unsigned ct_refused;

namespace {

__device__ __forceinline__ unsigned hashFlow(unsigned s, unsigned d, unsigned p) {
  unsigned h = s * 0x9e3779b1u;
  h ^= d + 0x7f4a7c15u + (h << 6) + (h >> 2);
  h ^= p + 0x94d049bbu + (h << 6) + (h >> 2);
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  return h ^ (h >> 13);
}

/// The slot's state and key, in one strong (volatile: from L2, not a
/// possibly stale L1 line) 16-byte load: a key read with plain loads after
/// its slot turned live could come from a line cached while the slot was
/// empty (a flow missed, or placed twice).
__device__ __forceinline__ uint4 loadHead(const Slot &S) {
  return loadVolatile4(&S.state);
}

__device__ __forceinline__ bool holds(uint4 head, unsigned s, unsigned d, unsigned p) {
  return head.x == Live && head.y == s && head.z == d && head.w == p;
}

/// The live slot holding the flow, or null. Waits out slots being filled.
__device__ Slot *find(unsigned h, unsigned s, unsigned d, unsigned p) {
  for (unsigned k = 0; k < CtMaxProbe; ++k) {
    Slot &S = ct_slots[(h + k) & (CtSlots - 1)];
    uint4 head = loadHead(S);
    while (head.x == Busy)
      head = loadHead(S);
    if (head.x == Empty)
      return nullptr;
    if (holds(head, s, d, p))
      return &S;
  }
  return nullptr;
}

/// BPF_NOEXIST insert: a no-op when the flow is there.
__device__ void insert(unsigned h, unsigned s, unsigned d, unsigned p, unsigned len) {
  for (unsigned k = 0; k < CtMaxProbe; ++k) {
    Slot &S = ct_slots[(h + k) & (CtSlots - 1)];
    uint4 head = loadHead(S);
    if (head.x == Empty) {
      head.x = atomicCAS(&S.state, Empty, Busy);
      if (head.x == Empty) {
        S.saddr = s, S.daddr = d, S.ports = p;
        S.packets = 1, S.bytes = len;
        __threadfence();
        atomicExch(&S.state, Live);
        return;
      }
      head = loadHead(S); // taken meanwhile: read its state and key afresh
    }
    while (head.x == Busy)
      head = loadHead(S);
    if (holds(head, s, d, p))
      return;
  }
  atomicAdd(&ct_refused, 1u);
}

} // namespace

extern "C" __global__ void cuda_conntrack(const ebpfgpu_packet_desc *descs,
                                          ebpfgpu_verdict *verdicts, unsigned count,
                                          unsigned long long seed) {
  forEachPacket(descs, verdicts, count, [&](unsigned char *data, const unsigned char *end) {
    if (data + 14 > end)
      return Result{XdpDrop, 0};
    if (be16(data + 12) != 0x0800)
      return Result{XdpPass, 0};
    const unsigned char *ip = data + 14;
    if (ip + 20 > end)
      return Result{XdpDrop, 0};
    if (ip[9] != 6 || ip[12] == 10)
      return Result{XdpPass, 0};
    const unsigned char *tcp = ip + (ip[0] & 0xf) * 4;
    if (tcp + 20 > end)
      return Result{XdpDrop, 0};
    unsigned s = le32(ip + 12), d = le32(ip + 16), p = le32(tcp);
    unsigned len = unsigned(end - data);
    unsigned flags = tcp[13];
    unsigned h = hashFlow(s, d, p);
    if ((flags & 0x12) == 0x02) { // SYN without ACK
      insert(h, s, d, p, len);
      return Result{XdpPass, 0};
    }
    Slot *S = find(h, s, d, p);
    if (!S)
      return Result{XdpDrop, 0};
    atomicAdd(&S->packets, 1ull);
    atomicAdd(&S->bytes, (unsigned long long)len);
    if (flags & 0x05) // FIN or RST
      atomicCAS(&S->state, Live, Deleted);
    return Result{XdpPass, 0};
  });
}

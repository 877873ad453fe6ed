// SPDX-License-Identifier: Apache-2.0
//
// Hand-written CUDA twin of samples/xdp_ids.c: the payload of every IPv4
// TCP or UDP packet (after IPv4 and TCP options) run through the pattern
// set's automata, one transition a byte; a packet that matches a rule is
// dropped and counted under the rule's id, the others pass. Same parsing,
// same verdicts as the compiled program, over the same automaton bytes:
// ids_dfa holds the pattern map's whole content (MapAbi.h's struct
// ebpfgpu_patterns: the set's header naming the literal rules' automaton
// and the regexes' DFA, each a struct ebpfgpu_automaton, next[nstates *
// nclasses], match[nstates], then the output lists that only
// ebpf_gpu_match_all reads), copied there by the harness from the
// compiled program's map file (ebpf-gpu-bench's twin-map=rules:ids_dfa).
// As the kfunc, the literal automaton runs first and the regex DFA only up
// to the byte where its match ends. What a CUDA engineer does differently
// from the kfunc: the 256-byte class tables are staged in shared memory
// once per block, the outcome counters are block counters (one atomic per
// block and counter), and the headers are read once per block.
// ids_hits counts per rule id (below IdsMaxRule, else under 0), as the
// sample's `hits`; ids_stats as its `stats` (0 no match, 1 dropped, 2 no
// automaton loaded, 3 not scanned).

#include "common.cuh"
#include "ebpf-gpu/Platform/MapAbi.h"

using namespace twin;

/// The largest automaton the twin holds: the benchmark's pattern map's
/// size (ebpf-gpu-cc --map-size rules=268435456 in scripts/bench.sh).
constexpr unsigned long long IdsDfaBytes = 256ull << 20;
constexpr unsigned IdsMaxRule = 16384;

__device__ __align__(16) unsigned char ids_dfa[IdsDfaBytes];
__device__ unsigned long long ids_hits[IdsMaxRule];
__device__ unsigned long long ids_stats[4];

/// The first match of automaton `a` in [p, end): its id (-1 for none) and,
/// in `at`, the byte where it ends.
__device__ int idsFirst(const ebpfgpu_automaton *a, const unsigned char *classes,
                        const unsigned char *p, const unsigned char *end,
                        const unsigned char *&at) {
  const unsigned nclasses = a->nclasses;
  const unsigned *next = reinterpret_cast<const unsigned *>(a + 1);
  const int *match = reinterpret_cast<const int *>(next + (unsigned long long)a->nstates * nclasses);
  unsigned s = 0;
  for (; p < end; ++p) {
    const unsigned t = next[(unsigned long long)s * nclasses + classes[*p]];
    if (t & EBPFGPU_PATTERNS_MATCH) {
      at = p;
      return match[t & ~EBPFGPU_PATTERNS_MATCH];
    }
    s = t;
  }
  return -1;
}

extern "C" __global__ void cuda_ids(const ebpfgpu_packet_desc *descs, ebpfgpu_verdict *verdicts,
                                    unsigned count, unsigned long long seed) {
  __shared__ unsigned long long smem[4];
  __shared__ unsigned char classes[2][256];
  BlockCounters<4> counters;
  const ebpfgpu_patterns *a = reinterpret_cast<const ebpfgpu_patterns *>(ids_dfa);
  const bool loaded = a->magic == EBPFGPU_PATTERNS_MAGIC && a->version == EBPFGPU_PATTERNS_VERSION;
  const ebpfgpu_automaton *lit =
      loaded && a->literals ? reinterpret_cast<const ebpfgpu_automaton *>(ids_dfa + a->literals)
                            : nullptr;
  const ebpfgpu_automaton *re =
      loaded && a->regexes ? reinterpret_cast<const ebpfgpu_automaton *>(ids_dfa + a->regexes)
                           : nullptr;
  for (unsigned k = threadIdx.x; k < 256; k += blockDim.x) {
    classes[0][k] = lit ? lit->classes[k] : 0;
    classes[1][k] = re ? re->classes[k] : 0;
  }
  counters.init(smem); // its barrier also publishes `classes`
  forEachPacket(descs, verdicts, count, [&](unsigned char *data, const unsigned char *end) {
    if (data + 14 > end || be16(data + 12) != 0x0800) {
      counters.add(3);
      return Result{XdpPass, 0};
    }
    const unsigned char *ip = data + 14;
    unsigned ihl = ip[0] & 0xf;
    if (ip + 20 > end || ihl < 5) {
      counters.add(3);
      return Result{XdpPass, 0};
    }
    const unsigned char *p = ip + ihl * 4;
    if (ip[9] == 6) {
      if (p + 20 > end) {
        counters.add(3);
        return Result{XdpPass, 0};
      }
      p += (p[12] >> 4) * 4;
    } else if (ip[9] == 17) {
      p += 8;
    } else {
      counters.add(3);
      return Result{XdpPass, 0};
    }
    if (p > end) {
      counters.add(3);
      return Result{XdpPass, 0};
    }
    if (!loaded) {
      counters.add(2);
      return Result{XdpPass, 0};
    }
    const unsigned char *at = end;
    int id = lit ? idsFirst(lit, classes[0], p, end, at) : -1;
    if (re) {
      const unsigned char *rat = end;
      const int rid = idsFirst(re, classes[1], p, id >= 0 ? at + 1 : end, rat);
      if (rid >= 0 && (id < 0 || rat < at || rid < id))
        id = rid;
    }
    if (id < 0) {
      counters.add(0);
      return Result{XdpPass, 0};
    }
    atomicAdd(&ids_hits[unsigned(id) < IdsMaxRule ? id : 0], 1ull);
    counters.add(1);
    return Result{XdpDrop, 0};
  });
  counters.flush(ids_stats);
}

// SPDX-License-Identifier: Apache-2.0
//
// Sums of a data-plane port's per-queue counters. Apart from the DPDK data
// plane so that code reading the counters (the daemon's request handling,
// its fuzz target) links without DPDK.

#include "ebpf-gpu/Runtime/Dataplane.h"

namespace ebpfgpu::runtime {

uint64_t PortStats::rxPackets() const {
  uint64_t N = 0;
  for (const QueueStats &Q : Queues)
    N += Q.RxPackets;
  return N;
}

ActionStats PortStats::actions() const {
  ActionStats A;
  for (const QueueStats &Q : Queues) {
    for (unsigned I = 0; I < NumXdpActions; ++I) {
      A.Packets[I] += Q.Actions.Packets[I];
      A.Bytes[I] += Q.Actions.Bytes[I];
    }
    A.Invalid += Q.Actions.Invalid;
  }
  return A;
}

} // namespace ebpfgpu::runtime

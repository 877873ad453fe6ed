// SPDX-License-Identifier: Apache-2.0
//
// Private to the DPDK runtime: what the one-shot forwarder and the daemon's
// data plane do to ports alike: set a port up (queues, promiscuous mode,
// start) with DPDK's reason in any error, and put a program's result back
// into an mbuf.

#ifndef EBPF_GPU_RUNTIME_LIB_DPDKPORT_H
#define EBPF_GPU_RUNTIME_LIB_DPDKPORT_H

#include "DpdkEal.h"

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>

struct rte_mbuf;
struct rte_mempool;

namespace ebpfgpu::runtime::dpdk {

/// `Msg`, with what DPDK logged meanwhile in parentheses.
std::string withLog(std::string Msg, Eal &E);

/// Configures port `Port` with `RxQueues` rx queues (mbufs from `Pool`)
/// and `TxQueues` tx queues of about `RxDescs`/`TxDescs` descriptors (as
/// the driver adjusts them), enables promiscuous mode where the driver has
/// one, and starts it. Errors name the device as the user gave it.
MaybeError setUpPort(uint16_t Port, const DeviceSpec &D, uint16_t RxQueues, uint16_t TxQueues,
                     uint16_t RxDescs, uint16_t TxDescs, rte_mempool *Pool, Eal &E);

/// Puts the program's result into `M` as one segment. False when it does
/// not fit the mbuf's buffer.
bool storeResult(rte_mbuf *M, const uint8_t *Data, uint32_t Len);

} // namespace ebpfgpu::runtime::dpdk

#endif // EBPF_GPU_RUNTIME_LIB_DPDKPORT_H

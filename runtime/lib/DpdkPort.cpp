// SPDX-License-Identifier: Apache-2.0
//
// Port set-up and mbuf results, shared by the forwarder and the data plane.

#include "DpdkPort.h"

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <algorithm>
#include <cstring>

namespace ebpfgpu::runtime::dpdk {

std::string withLog(std::string Msg, Eal &E) {
  std::string Log = E.takeLog();
  return Log.empty() ? Msg : Msg + " (" + Log + ")";
}

MaybeError setUpPort(uint16_t Port, const DeviceSpec &D, uint16_t RxQueues, uint16_t TxQueues,
                     uint16_t RxDescs, uint16_t TxDescs, rte_mempool *Pool, Eal &E) {
  auto Fail = [&](const std::string &Call, int Ret) {
    return Error(
        withLog("port '" + D.Given + "': " + Call + ": " + std::strerror(Ret < 0 ? -Ret : Ret), E));
  };
  rte_eth_conf Conf;
  std::memset(&Conf, 0, sizeof(Conf));
  if (int R = rte_eth_dev_configure(Port, RxQueues, TxQueues, &Conf))
    return Fail("configure", R);
  uint16_t NumRx = RxDescs, NumTx = TxDescs;
  if (int R = rte_eth_dev_adjust_nb_rx_tx_desc(Port, &NumRx, &NumTx))
    return Fail("descriptors", R);
  int Socket = rte_eth_dev_socket_id(Port);
  for (uint16_t Q = 0; Q < RxQueues; ++Q)
    if (int R = rte_eth_rx_queue_setup(Port, Q, NumRx, Socket, nullptr, Pool))
      return Fail("rx queue " + std::to_string(Q), R);
  for (uint16_t Q = 0; Q < TxQueues; ++Q)
    if (int R = rte_eth_tx_queue_setup(Port, Q, NumTx, Socket, nullptr))
      return Fail("tx queue " + std::to_string(Q), R);
  // Traffic for other MACs must reach the program too; drivers that have
  // no such mode (vdevs) say so, which is fine.
  rte_eth_promiscuous_enable(Port);
  if (int R = rte_eth_dev_start(Port))
    return Fail("start", R);
  return std::nullopt;
}

bool storeResult(rte_mbuf *M, const uint8_t *Data, uint32_t Len) {
  if (M->nb_segs > 1) {
    rte_pktmbuf_free(M->next);
    M->next = nullptr;
    M->nb_segs = 1;
  }
  if (Len > M->buf_len)
    return false;
  uint16_t Off = uint16_t(std::min<uint32_t>(RTE_PKTMBUF_HEADROOM, M->buf_len - Len));
  std::memcpy(static_cast<uint8_t *>(M->buf_addr) + Off, Data, Len);
  M->data_off = Off;
  M->data_len = uint16_t(Len);
  M->pkt_len = Len;
  return true;
}

} // namespace ebpfgpu::runtime::dpdk

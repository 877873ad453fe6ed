// SPDX-License-Identifier: Apache-2.0
//
// The `gen` port's traffic source (DpdkGenerator.h).

#include "DpdkGenerator.h"

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_ring.h>

#include <cstring>

namespace ebpfgpu::runtime::dpdk {

namespace {
constexpr unsigned Burst = 32;
constexpr unsigned RingSize = 1024;
} // namespace

Expected<std::unique_ptr<Generator>> Generator::create(const std::string &Name,
                                                       const PacketBatch &Templates,
                                                       uint32_t FrameSize, uint16_t RxQueues,
                                                       uint16_t TxQueues, rte_mempool *Pool) {
  if (Templates.size() == 0)
    return Error("port '" + Name + "': the generator has no packets to send (--gen-pcap)");
  std::unique_ptr<Generator> G(new Generator());
  G->Pool = Pool;
  G->FrameSize = FrameSize;
  G->Count = Templates.size();
  G->Frames.resize(G->Count * FrameSize);
  uint64_t State = 0x243f6a8885a308d3ull ^ FrameSize;
  for (size_t I = 0; I < G->Count; ++I) {
    uint8_t *F = G->Frames.data() + I * FrameSize;
    uint32_t Keep = std::min(FrameSize, Templates.length(I));
    std::memcpy(F, Templates.data(I), Keep);
    for (uint32_t B = Keep; B < FrameSize; ++B) {
      State = State * 6364136223846793005ull + 1442695040888963407ull;
      F[B] = uint8_t(State >> 56) | 1;
    }
  }
  auto Ring = [&](const std::string &What, unsigned Flags) -> rte_ring * {
    std::string RingName = Name + "_" + What;
    return rte_ring_create(RingName.c_str(), RingSize, int(rte_socket_id()), Flags);
  };
  for (uint16_t Q = 0; Q < RxQueues; ++Q) {
    // One producer (the generator), one consumer (the queue's worker).
    rte_ring *R = Ring("rx" + std::to_string(Q), RING_F_SP_ENQ | RING_F_SC_DEQ);
    if (!R)
      return Error("port '" + Name + "': cannot make its rx ring: " + rte_strerror(rte_errno));
    G->Rx.push_back(R);
  }
  for (uint16_t Q = 0; Q < TxQueues; ++Q) {
    // Workers may share a tx queue (under the forwarder's lock).
    rte_ring *R = Ring("tx" + std::to_string(Q), RING_F_SC_DEQ);
    if (!R)
      return Error("port '" + Name + "': cannot make its tx ring: " + rte_strerror(rte_errno));
    G->Tx.push_back(R);
  }
  int Port = rte_eth_from_rings(Name.c_str(), G->Rx.data(), RxQueues, G->Tx.data(), TxQueues,
                                rte_socket_id());
  if (Port < 0)
    return Error("port '" + Name + "': cannot make a port of rings: " + rte_strerror(rte_errno));
  G->Port = uint16_t(Port);
  return G;
}

Generator::~Generator() {
  rte_mbuf *M[Burst];
  for (rte_ring *R : Rx) {
    while (unsigned N = rte_ring_dequeue_burst(R, reinterpret_cast<void **>(M), Burst, nullptr))
      rte_pktmbuf_free_bulk(M, N);
    rte_ring_free(R);
  }
  for (rte_ring *R : Tx) {
    while (unsigned N = rte_ring_dequeue_burst(R, reinterpret_cast<void **>(M), Burst, nullptr))
      rte_pktmbuf_free_bulk(M, N);
    rte_ring_free(R);
  }
}

int Generator::main(void *Self) { return static_cast<Generator *>(Self)->loop(); }

int Generator::loop() {
  rte_mbuf *M[Burst];
  size_t Next = 0, Queue = 0;
  while (!Quit.load(std::memory_order_relaxed)) {
    // What the program sent back out of the port: freed.
    for (rte_ring *R : Tx)
      if (unsigned N = rte_ring_dequeue_burst(R, reinterpret_cast<void **>(M), Burst, nullptr))
        rte_pktmbuf_free_bulk(M, N);
    rte_ring *R = Rx[Queue];
    Queue = (Queue + 1) % Rx.size();
    if (rte_ring_free_count(R) < Burst) {
      rte_pause();
      continue;
    }
    if (rte_pktmbuf_alloc_bulk(Pool, M, Burst) != 0) {
      NoMbuf.fetch_add(1, std::memory_order_relaxed);
      rte_pause();
      continue;
    }
    for (unsigned I = 0; I < Burst; ++I) {
      std::memcpy(rte_pktmbuf_mtod(M[I], uint8_t *), Frames.data() + Next * FrameSize, FrameSize);
      M[I]->data_len = uint16_t(FrameSize);
      M[I]->pkt_len = FrameSize;
      Next = Next + 1 == Count ? 0 : Next + 1;
    }
    unsigned Sent = rte_ring_sp_enqueue_burst(R, reinterpret_cast<void **>(M), Burst, nullptr);
    if (Sent < Burst)
      rte_pktmbuf_free_bulk(M + Sent, Burst - Sent);
    Generated.fetch_add(Sent, std::memory_order_relaxed);
  }
  return 0;
}

} // namespace ebpfgpu::runtime::dpdk

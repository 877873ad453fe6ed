// SPDX-License-Identifier: Apache-2.0
//
// The `gen` port's traffic source (DpdkGenerator.h).

#include "DpdkGenerator.h"

#include <rte_errno.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include <algorithm>
#include <cstring>

namespace ebpfgpu::runtime::dpdk {

namespace {
constexpr unsigned Burst = 64;
/// Bursts a generator lcore frees from one tx ring at a turn.
constexpr unsigned TxBursts = 16;
/// In an mbuf's hash field (its first line) while it holds a frame this
/// generator wrote: replay sends it again only with this tag.
constexpr uint32_t ReplayTag = 0xeb9f6e17;
} // namespace

Expected<std::unique_ptr<Generator>> Generator::create(const std::string &Name,
                                                       const PacketBatch &Templates,
                                                       uint32_t FrameSize, uint16_t RxQueues,
                                                       uint16_t TxQueues, unsigned Lcores,
                                                       rte_mempool *Pool, bool Replay) {
  if (Templates.size() == 0)
    return Error("port '" + Name + "': the generator has no packets to send (--gen-pcap)");
  if (Lcores == 0)
    return Error("port '" + Name + "': the generator needs at least one lcore");
  std::unique_ptr<Generator> G(new Generator());
  G->Pool = Pool;
  G->Replay = Replay;
  G->Headroom =
      uint16_t(std::min<uint32_t>(RTE_PKTMBUF_HEADROOM, rte_pktmbuf_data_room_size(Pool)));
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
  auto Ring = [&](const std::string &What, unsigned Size, unsigned Flags) -> rte_ring * {
    std::string RingName = Name + "_" + What;
    return rte_ring_create(RingName.c_str(), Size, int(rte_socket_id()), Flags);
  };
  // More lcores than rx queues: several lcores fill each ring (a
  // multi-producer ring, one compare-and-swap a burst), so that a run with
  // few workers can still have a generator faster than they are.
  const bool SharedRx = Lcores > RxQueues;
  for (uint16_t Q = 0; Q < RxQueues; ++Q) {
    // Its producers (generator lcores), one consumer (the queue's worker).
    rte_ring *R = Ring("rx" + std::to_string(Q), RxRingSize,
                       (SharedRx ? 0u : unsigned(RING_F_SP_ENQ)) | RING_F_SC_DEQ);
    if (!R)
      return Error("port '" + Name + "': cannot make its rx ring: " + rte_strerror(rte_errno));
    G->Rx.push_back(R);
  }
  for (uint16_t Q = 0; Q < TxQueues; ++Q) {
    // Workers may share a tx queue (under the data plane's lock); one
    // generator lcore drains it.
    rte_ring *R = Ring("tx" + std::to_string(Q), TxRingSize, RING_F_SC_DEQ);
    if (!R)
      return Error("port '" + Name + "': cannot make its tx ring: " + rte_strerror(rte_errno));
    G->Tx.push_back(R);
  }
  for (unsigned L = 0; L < Lcores; ++L) {
    auto P = std::make_unique<Part>();
    P->G = G.get();
    // Lcores start at different templates, so that each ring's traffic
    // is the whole mix and not the same packets on every queue at once.
    P->Next = (G->Count * L / Lcores) % G->Count;
    G->Parts.push_back(std::move(P));
  }
  for (unsigned Q = 0; Q < std::max<unsigned>(RxQueues, Lcores); ++Q)
    G->Parts[Q % Lcores]->Rx.push_back(G->Rx[Q % RxQueues]);
  for (uint16_t Q = 0; Q < TxQueues; ++Q)
    G->Parts[Q % Lcores]->Tx.push_back(G->Tx[Q]);
  int Port = rte_eth_from_rings(Name.c_str(), G->Rx.data(), RxQueues, G->Tx.data(), TxQueues,
                                rte_socket_id());
  if (Port < 0)
    return Error("port '" + Name + "': cannot make a port of rings: " + rte_strerror(rte_errno));
  G->Port = uint16_t(Port);
  return G;
}

MaybeError Generator::start(const std::vector<unsigned> &Lcores) {
  if (Lcores.size() < Parts.size())
    return Error("the generator needs " + std::to_string(Parts.size()) + " lcore(s) of its own");
  for (size_t I = 0; I < Parts.size(); ++I) {
    Parts[I]->Lcore = Lcores[I];
    if (rte_eal_remote_launch(Generator::main, Parts[I].get(), Lcores[I]) != 0) {
      stop();
      return Error("cannot start the generator on lcore " + std::to_string(Lcores[I]));
    }
    Parts[I]->Running = true;
  }
  return std::nullopt;
}

void Generator::stop() {
  Quit.store(true, std::memory_order_relaxed);
  for (auto &P : Parts)
    if (P->Running) {
      rte_eal_wait_lcore(P->Lcore);
      P->Running = false;
    }
}

uint64_t Generator::generated() const {
  uint64_t N = 0;
  for (const auto &P : Parts)
    N += P->Generated.load(std::memory_order_relaxed);
  return N;
}

uint64_t Generator::written() const {
  uint64_t N = 0;
  for (const auto &P : Parts)
    N += P->Written.load(std::memory_order_relaxed);
  return N;
}

uint64_t Generator::noMbuf() const {
  uint64_t N = 0;
  for (const auto &P : Parts)
    N += P->NoMbuf.load(std::memory_order_relaxed);
  return N;
}

Generator::~Generator() {
  stop();
  rte_mbuf *M[Burst];
  for (auto *Rings : {&Rx, &Tx})
    for (rte_ring *R : *Rings) {
      while (unsigned N = rte_ring_dequeue_burst(R, reinterpret_cast<void **>(M), Burst, nullptr))
        rte_pktmbuf_free_bulk(M, N);
      rte_ring_free(R);
    }
}

int Generator::main(void *Arg) {
  auto *P = static_cast<Part *>(Arg);
  P->G->loop(*P);
  return 0;
}

bool Generator::fill(rte_mbuf *B, size_t &Next, bool Replay) const {
  const uint32_t Size = FrameSize;
  // Replay: one of ours, as it left (nothing writes a frame while every
  // bound program reads only, and these are the fields that say where it
  // lies), so it goes again as it is.
  if (Replay && B->hash.fdir.hi == ReplayTag && B->port == Port && B->data_off == Headroom &&
      B->pkt_len == Size && B->data_len == Size && B->nb_segs == 1)
    return true;
  // Raw mbufs: a pool's mbufs have one segment, no next and one reference
  // already (DPDK's invariant), so only the first cache line is written,
  // as a NIC's rx path does (rte_pktmbuf_reset would write the second too).
  B->data_off = Headroom;
  B->ol_flags &= RTE_MBUF_F_EXTERNAL;
  B->packet_type = 0;
  B->vlan_tci = 0;
  B->vlan_tci_outer = 0;
  B->port = Port;
  B->data_len = uint16_t(Size);
  B->pkt_len = Size;
  B->hash.fdir.hi = ReplayTag;
  std::memcpy(rte_pktmbuf_mtod(B, uint8_t *), Frames.data() + Next * Size, Size);
  if (++Next == Count)
    Next = 0;
  return false;
}

void Generator::loop(Part &P) {
  rte_mbuf *M[Burst];
  size_t Next = P.Next, Queue = 0;
  uint64_t Generated = 0, NoMbuf = 0, Written = 0;
  const size_t DataAt = sizeof(rte_mbuf) + rte_pktmbuf_priv_size(Pool) + RTE_PKTMBUF_HEADROOM;
  while (!Quit.load(std::memory_order_relaxed)) {
    // What the program sent back out of the port: freed, up to TxBursts
    // bursts a ring (a worker sends a batch's frames at once).
    for (rte_ring *R : P.Tx)
      for (unsigned B = 0; B < TxBursts; ++B) {
        unsigned N = rte_ring_sc_dequeue_burst(R, reinterpret_cast<void **>(M), Burst, nullptr);
        if (N)
          rte_pktmbuf_free_bulk(M, N);
        if (N < Burst)
          break;
      }
    rte_ring *R = P.Rx[Queue];
    if (++Queue == P.Rx.size())
      Queue = 0;
    if (rte_ring_free_count(R) < Burst) {
      rte_pause();
      continue;
    }
    if (rte_mempool_get_bulk(Pool, reinterpret_cast<void **>(M), Burst) != 0) {
      P.NoMbuf.store(++NoMbuf, std::memory_order_relaxed);
      rte_pause();
      continue;
    }
    const bool Replaying = Replay.load(std::memory_order_relaxed);
    // The lines to be read or written, asked for at once (the data's
    // address follows from the mbuf's: it is not read to find it).
    for (unsigned I = 0; I < Burst; ++I) {
      if (Replaying) {
        __builtin_prefetch(M[I], 0, 3);
      } else {
        __builtin_prefetch(M[I], 1, 3);
        __builtin_prefetch(reinterpret_cast<uint8_t *>(M[I]) + DataAt, 1, 3);
      }
    }
    for (unsigned I = 0; I < Burst; ++I)
      Written += !fill(M[I], Next, Replaying);
    // As the ring was made: single producer, or shared by several lcores.
    unsigned Sent = rte_ring_enqueue_burst(R, reinterpret_cast<void **>(M), Burst, nullptr);
    if (Sent < Burst)
      rte_pktmbuf_free_bulk(M + Sent, Burst - Sent);
    Generated += Sent;
    P.Generated.store(Generated, std::memory_order_relaxed);
    P.Written.store(Written, std::memory_order_relaxed);
  }
}

} // namespace ebpfgpu::runtime::dpdk

// SPDX-License-Identifier: Apache-2.0
//
// Private to the DPDK runtime: the in-process traffic source behind the
// `gen` port. The port is made from DPDK rings (rte_eth_from_rings): one
// rx ring per rx queue, which generator lcores keep full of frames cut
// from templates (a pcap's packets, cut or padded to one frame size with
// bytes from a PRNG, never zeros), and one tx ring per worker, which the
// generator lcores drain and free. Each lcore owns every N-th rx and tx
// ring, so lcores share nothing but the mbuf pool (and its per-lcore
// caches keep that off the shared ring); with more lcores than rx queues,
// lcore L fills ring L mod queues beside the others that do (a
// multi-producer ring), so that a few workers can be fed by many lcores. It measures the runtime and the
// back end without a NIC or a pcap file in the way: the packets are made
// by cores of the same process, as on a NIC's rx ring.
//
// Two ways to fill a frame. Copy (the default) writes each mbuf's first
// line and copies its frame from the next template: the traffic is the
// templates in order, exactly. Replay sends mbufs that already hold one of
// its frames as they are: only their first line is read, to check that
// this generator wrote them last (its port, bounds and tag) and that
// nothing moved them; any other mbuf is written as by Copy. A frame stays
// as sent only while the program leaves packets alone, so replay is for
// programs the verifier proved read-only (rewriteFrames() turns it off
// for good). The mix is then the templates' in proportion, not in order.

#ifndef EBPF_GPU_RUNTIME_LIB_DPDKGENERATOR_H
#define EBPF_GPU_RUNTIME_LIB_DPDKGENERATOR_H

#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct rte_mbuf;
struct rte_mempool;
struct rte_ring;

namespace ebpfgpu::runtime::dpdk {

class Generator {
public:
  /// Entries of each rx ring, and of each tx ring: a worker sends a whole
  /// batch's XDP_TX frames at once (4096 at most by default), which a tx
  /// ring of 2048 made it wait for the generator to free.
  static constexpr unsigned RxRingSize = 2048, TxRingSize = 8192;
  /// Makes the port `Name` with `RxQueues` rx and `TxQueues` tx rings and
  /// the frames to send, for `Lcores` generator lcores.
  static Expected<std::unique_ptr<Generator>> create(const std::string &Name,
                                                     const PacketBatch &Templates,
                                                     uint32_t FrameSize, uint16_t RxQueues,
                                                     uint16_t TxQueues, unsigned Lcores,
                                                     rte_mempool *Pool, bool Replay);
  /// Stops the lcores (if start() ran) and frees what the rings hold.
  ~Generator();
  Generator(const Generator &) = delete;
  Generator &operator=(const Generator &) = delete;

  /// Starts one loop on each of `Lcores` (as many as create() was told).
  MaybeError start(const std::vector<unsigned> &Lcores);
  /// Stops the loops and waits for them.
  void stop();
  uint16_t port() const { return Port; }
  /// From now on every frame is written anew (a program that may change
  /// packets is bound): replay stops.
  void rewriteFrames() { Replay.store(false, std::memory_order_relaxed); }
  bool replaying() const { return Replay.load(std::memory_order_relaxed); }
  unsigned lcores() const { return unsigned(Parts.size()); }

  /// Frames put on the rx rings, bursts no mbuf was free for, and frames
  /// written (all of them but those replayed).
  uint64_t generated() const;
  uint64_t noMbuf() const;
  uint64_t written() const;

private:
  /// One lcore's share: its rings and counters, on lines of its own.
  struct alignas(64) Part {
    Generator *G = nullptr;
    std::vector<rte_ring *> Rx, Tx;
    size_t Next = 0; ///< the next template
    std::atomic<uint64_t> Generated{0}, NoMbuf{0}, Written{0};
    unsigned Lcore = 0;
    bool Running = false;
  };

  Generator() = default;
  static int main(void *Part);
  void loop(Part &P);
  /// Makes `B` the next template's frame; true when it already was one of
  /// this generator's frames, untouched since (Replay).
  bool fill(rte_mbuf *B, size_t &Next, bool Replay) const;

  std::vector<rte_ring *> Rx, Tx;
  std::vector<std::unique_ptr<Part>> Parts;
  rte_mempool *Pool = nullptr;
  std::vector<uint8_t> Frames; ///< templates, FrameSize bytes each
  uint32_t FrameSize = 0;
  size_t Count = 0;
  uint16_t Port = 0;
  uint16_t Headroom = 0; ///< data_off of a frame it writes
  std::atomic<bool> Replay{false};
  std::atomic<bool> Quit{false};
};

} // namespace ebpfgpu::runtime::dpdk

#endif // EBPF_GPU_RUNTIME_LIB_DPDKGENERATOR_H

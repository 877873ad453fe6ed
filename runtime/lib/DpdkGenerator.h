// SPDX-License-Identifier: Apache-2.0
//
// Private to the DPDK runtime: the in-process traffic source behind the
// `gen` port. The port is made from DPDK rings (rte_eth_from_rings): one
// rx ring per rx queue, which generator lcores keep full of frames cut
// from templates (a pcap's packets, cut or padded to one frame size with
// bytes from a PRNG, never zeros), and one tx ring per worker, which the
// generator lcores drain and free. Each lcore owns every N-th rx and tx
// ring, so lcores share nothing but the mbuf pool (and its per-lcore
// caches keep that off the shared ring). It measures the runtime and the
// back end without a NIC or a pcap file in the way: the packets are made
// by cores of the same process, as on a NIC's rx ring.

#ifndef EBPF_GPU_RUNTIME_LIB_DPDKGENERATOR_H
#define EBPF_GPU_RUNTIME_LIB_DPDKGENERATOR_H

#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct rte_mempool;
struct rte_ring;

namespace ebpfgpu::runtime::dpdk {

class Generator {
public:
  /// Makes the port `Name` with `RxQueues` rx and `TxQueues` tx rings and
  /// the frames to send, for `Lcores` generator lcores.
  static Expected<std::unique_ptr<Generator>> create(const std::string &Name,
                                                     const PacketBatch &Templates,
                                                     uint32_t FrameSize, uint16_t RxQueues,
                                                     uint16_t TxQueues, unsigned Lcores,
                                                     rte_mempool *Pool);
  /// Stops the lcores (if start() ran) and frees what the rings hold.
  ~Generator();
  Generator(const Generator &) = delete;
  Generator &operator=(const Generator &) = delete;

  /// Starts one loop on each of `Lcores` (as many as create() was told).
  MaybeError start(const std::vector<unsigned> &Lcores);
  /// Stops the loops and waits for them.
  void stop();
  uint16_t port() const { return Port; }
  unsigned lcores() const { return unsigned(Parts.size()); }

  /// Frames put on the rx rings, and bursts no mbuf was free for.
  uint64_t generated() const;
  uint64_t noMbuf() const;

private:
  /// One lcore's share: its rings and counters, on lines of its own.
  struct alignas(64) Part {
    Generator *G = nullptr;
    std::vector<rte_ring *> Rx, Tx;
    size_t Next = 0; ///< the next template
    std::atomic<uint64_t> Generated{0}, NoMbuf{0};
    unsigned Lcore = 0;
    bool Running = false;
  };

  Generator() = default;
  static int main(void *Part);
  void loop(Part &P);

  std::vector<rte_ring *> Rx, Tx;
  std::vector<std::unique_ptr<Part>> Parts;
  rte_mempool *Pool = nullptr;
  std::vector<uint8_t> Frames; ///< templates, FrameSize bytes each
  uint32_t FrameSize = 0;
  size_t Count = 0;
  uint16_t Port = 0;
  std::atomic<bool> Quit{false};
};

} // namespace ebpfgpu::runtime::dpdk

#endif // EBPF_GPU_RUNTIME_LIB_DPDKGENERATOR_H

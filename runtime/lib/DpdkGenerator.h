// SPDX-License-Identifier: Apache-2.0
//
// Private to the DPDK runtime: the in-process traffic source behind the
// `gen` port. The port is made from DPDK rings (rte_eth_from_rings): one
// rx ring per rx queue, which a generator lcore keeps full of frames cut
// from templates (a pcap's packets, cut or padded to one frame size with
// bytes from a PRNG, never zeros), and one tx ring per worker, which the
// generator drains and frees. It measures the runtime and the back end
// without a NIC or a pcap file in the way: the packets are made by a core
// of the same process, as on a NIC's rx ring.

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
  /// the frames to send.
  static Expected<std::unique_ptr<Generator>> create(const std::string &Name,
                                                     const PacketBatch &Templates,
                                                     uint32_t FrameSize, uint16_t RxQueues,
                                                     uint16_t TxQueues, rte_mempool *Pool);
  ~Generator();
  Generator(const Generator &) = delete;
  Generator &operator=(const Generator &) = delete;

  /// The lcore's loop (rte_eal_remote_launch), until stop().
  static int main(void *Self);
  void stop() { Quit.store(true, std::memory_order_relaxed); }
  uint16_t port() const { return Port; }

  /// Frames put on the rx rings, and times no mbuf was free for a burst.
  uint64_t generated() const { return Generated.load(std::memory_order_relaxed); }
  uint64_t noMbuf() const { return NoMbuf.load(std::memory_order_relaxed); }

private:
  Generator() = default;
  int loop();

  std::vector<rte_ring *> Rx, Tx;
  rte_mempool *Pool = nullptr;
  std::vector<uint8_t> Frames; ///< templates, FrameSize bytes each
  uint32_t FrameSize = 0;
  size_t Count = 0;
  uint16_t Port = 0;
  std::atomic<bool> Quit{false};
  std::atomic<uint64_t> Generated{0}, NoMbuf{0};
};

} // namespace ebpfgpu::runtime::dpdk

#endif // EBPF_GPU_RUNTIME_LIB_DPDKGENERATOR_H

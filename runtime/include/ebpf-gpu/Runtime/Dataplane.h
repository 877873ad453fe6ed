// SPDX-License-Identifier: Apache-2.0
//
// The daemon's data plane: DPDK's EAL brought up once, a fixed set of
// worker lcores started once, and ports that come and go while it runs
// (DPDK hot-plug: rte_dev_probe of a vdev or PCI device, then
// rte_eth_dev_stop/close and rte_dev_remove). Each port runs one program
// (a BatchExecutor); each of its rx queues is polled by one worker. The
// program of a port can be replaced while traffic runs: a worker reads the
// port's program once at the start of each batch, and the old program is
// released only after every worker has passed a quiescent point (between
// two batches) since the switch, so no batch is lost or runs half on one
// program, and no program is freed while a batch runs on it. Worker task
// lists and ports are retired the same way (QSBR: quiescent-state-based
// reclamation). Verdicts are acted on as by `forward` (DpdkForwarder.h).
//
// Thread-safety: one control thread calls every method; the workers are
// the Dataplane's own.

#ifndef EBPF_GPU_RUNTIME_DATAPLANE_H
#define EBPF_GPU_RUNTIME_DATAPLANE_H

#include "ebpf-gpu/Runtime/BatchExecutor.h"
#include "ebpf-gpu/Runtime/LatencyHistogram.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ebpfgpu::runtime {

/// At most this many ports at once (ids 1..MaxDataplanePorts, which are
/// also the ifindexes bpf_redirect names).
constexpr uint32_t MaxDataplanePorts = 64;
constexpr uint32_t MaxDataplaneWorkers = 64;

struct DataplaneOptions {
  /// Worker lcores, started once.
  unsigned Workers = 1;
  /// Mbufs in the one pool every port draws from (0: 32767).
  uint32_t Mbufs = 0;
  /// Frames longer than this are dropped and counted as oversized.
  uint32_t MaxFrame = 2048;
  /// Scan the PCI bus (PCI ports can then be attached); without it the
  /// EAL gets --no-pci and only vdevs can be.
  bool Pci = false;
  /// Extra EAL arguments, after the data plane's own (so they win).
  std::vector<std::string> EalArgs;
};

struct AttachOptions {
  /// The port: a PCI address or a vdev string, as for `forward --port`.
  std::string Device;
  /// Where XDP_PASS packets go (transmit only); empty: freed and counted.
  std::string Exception;
  uint32_t Queues = 1, BatchSize = 256, TimeoutUs = 100;
};

/// Counters of one rx queue (one worker's work on one port).
struct QueueStats {
  uint32_t Queue = 0;
  unsigned Worker = 0;
  uint64_t RxPackets = 0, RxBytes = 0;
  ActionStats Actions;
  uint64_t Batches = 0;
  /// Time inside BatchExecutor::run.
  uint64_t BackendNs = 0;
  /// Batch latency: first packet of the batch received to the last one
  /// sent or freed.
  LatencyHistogram::Counts Latency{};
  uint64_t Oversized = 0, RedirectUnknown = 0, PassDropped = 0, ExecFailed = 0;
};

struct PortStats {
  uint32_t Id = 0;
  std::string Device, Exception;
  std::string Program; ///< the program's name
  const BatchExecutor *Exec = nullptr;
  AttachOptions Options;
  /// Sent out of this port (TX, REDIRECT to it), and refused by its ring.
  uint64_t TxPackets = 0, TxBytes = 0, TxFull = 0;
  /// Sent to its exception port, and refused there.
  uint64_t PassTxPackets = 0, PassTxFull = 0;
  /// The driver's own counters.
  uint64_t RxNoMbuf = 0, RxMissed = 0, RxErrors = 0, TxErrors = 0;
  std::vector<QueueStats> Queues;

  /// Sums over the queues.
  uint64_t rxPackets() const;
  ActionStats actions() const;
};

class Dataplane {
public:
  /// Brings the EAL up with Workers + 1 lcores and no port, and starts the
  /// workers. Once per process.
  static Expected<std::unique_ptr<Dataplane>> start(const DataplaneOptions &O);
  /// Stops (as stop()) if still running.
  ~Dataplane();
  Dataplane(const Dataplane &) = delete;
  Dataplane &operator=(const Dataplane &) = delete;

  /// Probes the device (and the exception device), sets it up and starts
  /// polling it with `Exec`; returns the port's id. Fails with one message
  /// (DPDK's reason included) for a device DPDK does not know or cannot
  /// open, one already in use, options it cannot meet.
  Expected<uint32_t> attach(const AttachOptions &O, std::shared_ptr<BatchExecutor> Exec);
  /// Switches port `Id` to `Exec` between batches; returns once no worker
  /// runs a batch on the old program any more (which is then released).
  MaybeError replace(uint32_t Id, std::shared_ptr<BatchExecutor> Exec);
  /// Stops polling port `Id`, runs the batches its workers hold, closes its
  /// devices (net_pcap output files are complete and renamed) and returns
  /// its final counters.
  Expected<PortStats> detach(uint32_t Id);

  /// Every port's counters now (read without stopping the workers).
  std::vector<PortStats> stats() const;
  /// The port with this id or ethdev name / device string, or 0.
  uint32_t findPort(const std::string &NameOrId) const;
  unsigned workers() const;

  /// Workers stop taking new batches, run the ones they hold, and exit;
  /// every port is closed (net_pcap files complete); the EAL is cleaned up.
  void stop();

private:
  struct Impl;
  explicit Dataplane(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> P;
};

} // namespace ebpfgpu::runtime

#endif // EBPF_GPU_RUNTIME_DATAPLANE_H

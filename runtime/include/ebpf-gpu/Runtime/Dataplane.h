// SPDX-License-Identifier: Apache-2.0
//
// The one data plane, of the daemon and of `forward` (DpdkForwarder.h):
// DPDK's EAL brought up once, a fixed set of worker lcores started once,
// and ports that come and go while it runs (DPDK hot-plug: rte_dev_probe of
// a vdev or PCI device, then rte_eth_dev_stop/close and rte_dev_remove; or
// the in-process generator port). Each port runs one program (a
// BatchExecutor); each of its rx queues is polled by one worker, which
// keeps up to `Depth` batches of it in flight in the back end through a
// lane of its own (BatchLane): it receives and stages batch N+1 and acts on
// batch N-1 while the back end runs batch N, and waits only when every
// slot is busy. Verdicts are acted on in bursts: DROP and ABORTED freed,
// TX out of the ingress port, REDIRECT to the port whose id the program
// named, PASS to the port's exception port; every packet received ends in
// one action counter and, when sent, in one sent or error counter.
//
// The program of a port can be replaced while traffic runs: a worker reads
// the port's program (with its lanes) once per batch, and counts the
// batches it has in flight on it; the old program is released once every
// worker has passed a quiescent point since the switch and none of its
// batches is in flight, so no batch is lost or runs half on one program,
// and no program is freed while a batch runs on it. Worker task lists and
// ports are retired the same way (QSBR: quiescent-state-based
// reclamation).
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
#include <utility>
#include <vector>

namespace ebpfgpu::runtime {

/// At most this many ports at once (ids 1..MaxDataplanePorts, which are
/// also the ifindexes bpf_redirect names).
constexpr uint32_t MaxDataplanePorts = 64;
constexpr uint32_t MaxDataplaneWorkers = 64;
/// xskmap consumers have ids 1..MaxXskConsumers.
constexpr uint32_t MaxXskConsumers = 1024;

/// An AF_XDP-style consumer that an xskmap's entry names by its id (its
/// place in DataplaneOptions::Xsks, from 1): bound, as the kernel's socket,
/// to rx queue `Queue` of port `Ifindex`, it takes the packets redirected
/// to it from there and sends them out of port `Port` (docs/MAPS.md,
/// "xskmap"). Ports are ids (ifindexes) as bpf_redirect names them.
struct XskConsumer {
  uint32_t Ifindex = 0, Queue = 0, Port = 0;
};

struct DataplaneOptions {
  /// Worker lcores, started once.
  unsigned Workers = 1;
  /// Batches each rx queue may have in flight in the back end at once.
  unsigned Depth = 3;
  /// Lcores kept for a generator port's loops (attach with "gen").
  unsigned GenLcores = 0;
  /// Mbufs in the one pool every port draws from (0: 32767).
  uint32_t Mbufs = 0;
  /// Stop receiving after this many packets over all ports (0: no limit).
  uint64_t Count = 0;
  /// Run programs on packets in their mbufs (one segment) rather than on
  /// copies; a back end that can (the GPU's mapped path) gets the pool's
  /// memory (BatchExecutor::usePacketMemory) when a port is attached. The
  /// program then has the mbuf's headroom (128 bytes) rather than XDP's 256.
  bool ZeroCopy = false;
  /// Frames longer than this are dropped and counted as oversized.
  uint32_t MaxFrame = 2048;
  /// Scan the PCI bus (PCI ports can then be attached); without it the
  /// EAL gets --no-pci and only vdevs can be.
  bool Pci = false;
  /// Extra EAL arguments, after the data plane's own (so they win).
  std::vector<std::string> EalArgs;
  /// The xskmaps' consumers bound from the start (`forward --xsk`), id
  /// i + 1 at index i; their ports are those attached later (bindXsk
  /// binds more, or again).
  std::vector<XskConsumer> Xsks;
};

struct AttachOptions {
  /// The port: a PCI address or a vdev string, as for `forward --port`.
  std::string Device;
  /// Where XDP_PASS packets go (transmit only); empty: freed and counted.
  /// Ports that name the same exception device share it.
  std::string Exception;
  uint32_t Queues = 1, BatchSize = 256, TimeoutUs = 100;
  /// Device "gen": the traffic the generator sends (its packets cut or
  /// padded to GenFrame bytes, over and over) on DataplaneOptions::GenLcores
  /// lcores. Must outlive the port.
  const PacketBatch *GenPackets = nullptr;
  uint32_t GenFrame = 64;
  /// The generator replays the frames it wrote rather than writing each
  /// anew (DpdkGenerator.h), while every program bound to the port is
  /// proven to read packets only (BatchExecutor::readsOnlyPackets).
  bool GenReplay = false;
  /// Attach without receiving yet: resume() starts it (e.g. once every
  /// port a program redirects to is attached too).
  bool Paused = false;
};

/// Counters of one rx queue (one worker's work on one port).
struct QueueStats {
  uint32_t Queue = 0;
  unsigned Worker = 0;
  uint64_t RxPackets = 0, RxBytes = 0;
  ActionStats Actions;
  uint64_t Batches = 0;
  /// Time in the back end: starting batches (BatchLane::submit; a
  /// synchronous lane runs them there), waiting for one when every slot is
  /// busy; and acting on verdicts (freeing, sending).
  uint64_t BackendNs = 0, SubmitNs = 0, WaitNs = 0, ActNs = 0;
  /// Batch latency: first packet of the batch received to the last one
  /// sent or freed.
  LatencyHistogram::Counts Latency{};
  uint64_t LatencySumNs = 0;
  uint64_t Oversized = 0, RedirectUnknown = 0, PassDropped = 0, ExecFailed = 0;
  /// Broadcasts (bpf_redirect_map with BPF_F_BROADCAST): copies made
  /// beyond the packet itself, and ports of theirs that got none (no such
  /// port, no mbuf for the copy, the packet oversized).
  uint64_t BroadcastCopies = 0, BroadcastFailed = 0;
  /// Redirects into a cpumap, sent to the exception port as XDP_PASS (or
  /// counted in PassDropped without one).
  uint64_t RedirectCpu = 0;
  /// Redirects into an xskmap: delivered to the consumer's port, and
  /// dropped because the consumer is unknown or bound to another port or
  /// queue (the kernel's xsk_rcv refuses those).
  uint64_t RedirectXsk = 0, XskRefused = 0;
  /// Nanoseconds since the data plane started: the first packet received
  /// and the end of the last batch acted on (0: none yet).
  uint64_t FirstRxNs = 0, LastDoneNs = 0;
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
  /// The generator port's source: frames it made, bursts it found no mbuf
  /// for, frames it wrote (the others replayed), and whether it replays.
  uint64_t Generated = 0, GenNoMbuf = 0, GenWritten = 0;
  bool GenReplay = false;
  /// The first back-end failure of a batch of this port (empty: none).
  std::string FirstFailure;
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
  /// Starts receiving on port `Id`, attached with AttachOptions::Paused.
  MaybeError resume(uint32_t Id);
  /// Switches port `Id` to `Exec` between batches; returns once no worker
  /// runs a batch on the old program any more (which is then released).
  MaybeError replace(uint32_t Id, std::shared_ptr<BatchExecutor> Exec);
  /// Stops polling port `Id`, runs the batches its workers hold, closes its
  /// devices (net_pcap output files are complete and renamed, or removed
  /// when !KeepOutputs) and returns its final counters.
  /// Consumers bound to the port or sending out of it are unbound, as the
  /// kernel unbinds a socket whose device goes away.
  Expected<PortStats> detach(uint32_t Id, bool KeepOutputs = true);

  /// Binds xskmap consumer `Id` (1..MaxXskConsumers) to rx queue C.Queue
  /// of port C.Ifindex, sending what it takes out of port C.Port, in place
  /// of whatever `Id` was; workers see it from their next packet on. Fails
  /// with one message for an id out of range, a port not attached, a queue
  /// the port does not have.
  MaybeError bindXsk(uint32_t Id, const XskConsumer &C);
  /// Consumer `Id` is bound no more: redirects to it are refused from the
  /// next packet on (xsk_refused). False when it was not bound.
  bool unbindXsk(uint32_t Id);
  /// The consumers bound now, by id.
  std::vector<std::pair<uint32_t, XskConsumer>> xsks() const;

  /// Every port stops receiving and runs and acts on the batches it holds;
  /// returns once none is left (ports stay attached, their counters final).
  void stopReceiving();

  /// Every port's counters now (read without stopping the workers).
  std::vector<PortStats> stats() const;
  /// The port with this id or ethdev name / device string, or 0.
  uint32_t findPort(const std::string &NameOrId) const;
  unsigned workers() const;
  /// Packets received on every port so far (what Count limits).
  uint64_t received() const;

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

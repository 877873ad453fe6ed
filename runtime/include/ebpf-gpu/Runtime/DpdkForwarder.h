// SPDX-License-Identifier: Apache-2.0
//
// `forward`: the data plane (Dataplane.h) over a fixed set of ports (PCI
// NICs or vdevs: net_pcap, net_ring, net_null, net_af_packet, net_tap, or
// the in-process generator), one worker lcore per rx queue gathering rx
// bursts into batches with up to Depth of them in flight in the back end,
// one program for every port, and the verdicts acted on (DROP and ABORTED
// free, TX sends back out of the ingress port, REDIRECT to the port whose
// ifindex the program named, PASS to the exception port). Every packet
// received ends in exactly one action counter and, when it was to be sent,
// in exactly one sent or error counter.

#ifndef EBPF_GPU_RUNTIME_DPDKFORWARDER_H
#define EBPF_GPU_RUNTIME_DPDKFORWARDER_H

#include "ebpf-gpu/Runtime/BatchExecutor.h"
#include "ebpf-gpu/Runtime/Dataplane.h"
#include "ebpf-gpu/Runtime/LatencyHistogram.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ebpfgpu::runtime {

/// Limits of the forwarder's options, in one place.
constexpr uint32_t MaxForwardBatch = 65536;
constexpr uint32_t MaxForwardQueues = 64;
constexpr uint32_t MaxForwardPorts = 32;
constexpr uint32_t MinForwardFrame = 64, MaxForwardFrame = 9216;
constexpr uint32_t MaxForwardDepth = 16;

struct ForwardOptions {
  /// Ports, in ifindex order (the first is ifindex 1, as bpf_redirect
  /// names it). Each is a PCI address ("0000:3b:00.0") or a DPDK vdev
  /// ("net_pcap0,rx_pcap=in.pcap,tx_pcap=out.pcap",
  /// "net_af_packet0,iface=veth0"), or "gen", a port whose rx a core of
  /// this process fills with GenPackets.
  std::vector<std::string> Ports;
  /// Where XDP_PASS packets go, in the same form; empty: they are freed
  /// and counted as pass_dropped. Transmit only (its rx is not polled).
  std::string Exception;
  /// Rx queues per port; one worker lcore each.
  uint32_t Queues = 1;
  /// Packets per batch, and how long a partial batch waits for more.
  uint32_t BatchSize = 256;
  /// Batches each rx queue may have in flight in the back end at once.
  uint32_t Depth = 3;
  uint32_t TimeoutUs = 100;
  /// Stop after this many packets were received (0: no limit).
  uint64_t Count = 0;
  /// Stop this long after the ports start (0: never): a benchmark's run.
  uint32_t DurationMs = 0;
  /// Stop when no worker received a packet for this long (0: never); ends
  /// a run over pcap files, whose rx reports nothing once the file is read.
  uint32_t IdleMs = 0;
  /// Frames longer than this are dropped and counted as oversized.
  uint32_t MaxFrame = 2048;
  /// Mbufs in the pool (0: sized from ports, queues and batch).
  uint32_t Mbufs = 0;
  /// How often Progress is called (0: never).
  uint32_t ProgressMs = 0;
  /// Run the program on packets in their mbufs (when one segment) rather
  /// than on copies: no copy in or out, and a GPU reads the mbufs in place
  /// (mapped path). The program then has the mbuf's headroom
  /// (RTE_PKTMBUF_HEADROOM, 128 bytes) rather than XDP's 256.
  bool ZeroCopy = false;
  /// The `gen` port's traffic (an in-process source, DpdkGenerator.h): the
  /// packets it sends, cut or padded to GenFrame bytes, over and over.
  const PacketBatch *GenPackets = nullptr;
  uint32_t GenFrame = 64;
  /// The generator replays its frames (AttachOptions::GenReplay).
  bool GenReplay = false;
  /// Lcores filling the `gen` port's rx rings (each owns every N-th ring).
  uint32_t GenLcores = 1;
  /// Extra EAL arguments, after the forwarder's own (so they win).
  std::vector<std::string> EalArgs;
  /// The xskmaps' consumers (Dataplane.h XskConsumer; `--xsk IN:QUEUE=OUT`):
  /// ports from 1 to Ports.size(), queues below Queues.
  std::vector<XskConsumer> Xsks;
  /// Set (from a signal handler, say) to stop; polled by every worker.
  const std::atomic<bool> *Stop = nullptr;
};

/// Counters of one port. Rx and actions are counted on the ingress port,
/// tx and tx_full on the egress port.
struct PortReport {
  std::string Device;
  bool Exception = false;
  uint64_t RxPackets = 0, RxBytes = 0;
  ActionStats Actions;
  uint64_t TxPackets = 0, TxBytes = 0;
  /// Sends the tx ring refused after retries: dropped.
  uint64_t TxFull = 0;
  /// The driver's own counters: packets lost for want of an mbuf, missed
  /// by the hardware, or in error.
  uint64_t RxNoMbuf = 0, RxMissed = 0, RxErrors = 0, TxErrors = 0;
};

struct ForwardReport {
  std::vector<PortReport> Ports; ///< --port order, then the exception port
  ActionStats Actions;           ///< over all ports
  uint64_t RxPackets = 0, RxBytes = 0;
  /// Received frames over MaxFrame (or results too big for an mbuf): freed.
  uint64_t Oversized = 0;
  /// XDP_REDIRECT to an ifindex that is not a port: freed.
  uint64_t RedirectUnknown = 0;
  /// XDP_PASS without an exception port: freed.
  uint64_t PassDropped = 0;
  /// Packets of batches the back end failed on: freed.
  uint64_t ExecFailed = 0;
  /// Broadcasts: copies sent beyond the packets themselves, and ports of
  /// theirs that got no copy (no such port, no mbuf). A broadcast that
  /// reaches no port at all is also in RedirectUnknown.
  uint64_t BroadcastCopies = 0, BroadcastFailed = 0;
  /// XDP_REDIRECT into a cpumap: to the exception port, as XDP_PASS (in
  /// PassDropped without one).
  uint64_t RedirectCpu = 0;
  /// XDP_REDIRECT into an xskmap: sent to the consumer's port, and freed
  /// because no consumer bound to the packet's port and queue has that id.
  uint64_t RedirectXsk = 0, XskRefused = 0;
  /// Batches run, and their latency: first packet received to the last
  /// one sent or freed (every queue's batches together).
  uint64_t Batches = 0;
  LatencyHistogram::Counts Latency{};
  /// Workers' time, summed: starting batches in the back end, waiting for
  /// one with every slot busy, acting on verdicts (Dataplane.h QueueStats).
  uint64_t SubmitNs = 0, WaitNs = 0, ActNs = 0;
  /// The `gen` port's source: frames it made, bursts it found no mbuf for,
  /// frames it wrote (the others replayed), whether it replayed.
  uint64_t Generated = 0, GenNoMbuf = 0, GenWritten = 0;
  bool GenReplay = false;
  unsigned Workers = 0;
  /// The whole run, and from its first packet received to its last batch
  /// done (what packet rates are measured over: no start-up, no idle end).
  double Seconds = 0, BusySeconds = 0;
};

/// Where the caller hears from a run, on the calling thread.
struct ForwardHooks {
  /// The ports are up and the workers started (e.g. to say "ready").
  std::function<void(const ForwardReport &)> Started;
  /// Every ForwardOptions::ProgressMs, the counters so far.
  std::function<void(const ForwardReport &)> Progress;
};

/// Initialises the EAL, sets the ports up, forwards until Count, IdleMs or
/// Stop ends the run, then stops the ports and cleans the EAL up. Once per
/// process (DPDK's EAL cannot be initialised twice). Fails with one message
/// for a device DPDK does not know or cannot open, options a port cannot
/// meet, or a back-end failure during the run (the counters are lost then).
/// net_pcap tx_pcap files are written under a temporary name and renamed
/// only when the run succeeds.
Expected<ForwardReport> forward(BatchExecutor &Exec, const ForwardOptions &Opts,
                                const ForwardHooks &Hooks = {});

} // namespace ebpfgpu::runtime

#endif // EBPF_GPU_RUNTIME_DPDKFORWARDER_H

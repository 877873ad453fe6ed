// SPDX-License-Identifier: Apache-2.0
//
// `forward`: the data plane (Dataplane.h) with a fixed set of ports and one
// program, run until a packet count, an idle time or a stop flag ends it.
// The calling thread only watches: stop conditions, progress; the workers
// and the generator are the data plane's.

#include "ebpf-gpu/Runtime/DpdkForwarder.h"

#include "ebpf-gpu/Runtime/Dataplane.h"

#include "DpdkEal.h"
#include "DpdkGenerator.h"

#include <rte_mbuf.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

namespace ebpfgpu::runtime {

namespace {

using Clock = std::chrono::steady_clock;

MaybeError checkOptions(const ForwardOptions &O) {
  if (O.Ports.empty())
    return Error("no port to forward on");
  if (O.Ports.size() > MaxForwardPorts)
    return Error("at most " + std::to_string(MaxForwardPorts) + " ports");
  if (O.Queues < 1 || O.Queues > MaxForwardQueues)
    return Error("queues per port must be 1 to " + std::to_string(MaxForwardQueues));
  if (O.BatchSize < 1 || O.BatchSize > MaxForwardBatch)
    return Error("batch size must be 1 to " + std::to_string(MaxForwardBatch));
  if (O.MaxFrame < MinForwardFrame || O.MaxFrame > MaxForwardFrame)
    return Error("maximum frame must be " + std::to_string(MinForwardFrame) + " to " +
                 std::to_string(MaxForwardFrame) + " bytes");
  if (O.Depth < 1 || O.Depth > MaxForwardDepth)
    return Error("batches in flight per queue must be 1 to " + std::to_string(MaxForwardDepth));
  if (O.GenLcores < 1 || O.GenLcores > MaxForwardQueues)
    return Error("generator lcores must be 1 to " + std::to_string(MaxForwardQueues));
  return std::nullopt;
}

/// The ports' counters as `forward` reports them: the data plane's ports
/// in --port order, then the exception port.
ForwardReport report(const std::vector<PortStats> &Ports, const ForwardOptions &O,
                     unsigned Workers) {
  ForwardReport R;
  R.Workers = Workers;
  uint64_t First = UINT64_MAX, Last = 0;
  PortReport Exc;
  Exc.Device = O.Exception;
  Exc.Exception = true;
  for (const PortStats &P : Ports) {
    PortReport PR;
    PR.Device = P.Device;
    PR.RxPackets = P.rxPackets();
    PR.Actions = P.actions();
    PR.TxPackets = P.TxPackets;
    PR.TxBytes = P.TxBytes;
    PR.TxFull = P.TxFull;
    PR.RxNoMbuf = P.RxNoMbuf;
    PR.RxMissed = P.RxMissed;
    PR.RxErrors = P.RxErrors;
    PR.TxErrors = P.TxErrors;
    // Every port shares the one exception device: its counters are the
    // same on each.
    Exc.TxPackets = P.PassTxPackets;
    Exc.TxFull = P.PassTxFull;
    for (const QueueStats &Q : P.Queues) {
      PR.RxBytes += Q.RxBytes;
      R.Oversized += Q.Oversized;
      R.RedirectUnknown += Q.RedirectUnknown;
      R.PassDropped += Q.PassDropped;
      R.ExecFailed += Q.ExecFailed;
      R.BroadcastCopies += Q.BroadcastCopies;
      R.BroadcastFailed += Q.BroadcastFailed;
      R.RedirectCpu += Q.RedirectCpu;
      R.RedirectXsk += Q.RedirectXsk;
      R.XskRefused += Q.XskRefused;
      if (Q.FirstRxNs)
        First = std::min(First, Q.FirstRxNs);
      Last = std::max(Last, Q.LastDoneNs);
      R.Batches += Q.Batches;
      R.SubmitNs += Q.SubmitNs;
      R.WaitNs += Q.WaitNs;
      R.ActNs += Q.ActNs;
      for (unsigned B = 0; B < LatencyHistogram::Buckets; ++B)
        R.Latency[B] += Q.Latency[B];
    }
    R.Generated += P.Generated;
    R.GenNoMbuf += P.GenNoMbuf;
    R.GenWritten += P.GenWritten;
    R.GenReplay = R.GenReplay || P.GenReplay;
    R.RxPackets += PR.RxPackets;
    R.RxBytes += PR.RxBytes;
    for (unsigned A = 0; A < NumXdpActions; ++A) {
      R.Actions.Packets[A] += PR.Actions.Packets[A];
      R.Actions.Bytes[A] += PR.Actions.Bytes[A];
    }
    R.Actions.Invalid += PR.Actions.Invalid;
    R.Ports.push_back(std::move(PR));
  }
  // The exception port's bytes are not counted apart: the packets passed.
  if (!O.Exception.empty()) {
    Exc.TxBytes = 0;
    R.Ports.push_back(std::move(Exc));
  }
  if (First != UINT64_MAX && Last > First)
    R.BusySeconds = double(Last - First) / 1e9;
  return R;
}

/// The data plane's options for `O`: its devices checked (each named
/// once, at most one generator), its mbufs counted.
Expected<DataplaneOptions> dataplaneOptions(const ForwardOptions &O) {
  if (MaybeError E = checkOptions(O))
    return std::move(*E);
  std::set<std::string> Names;
  size_t GenPorts = 0;
  bool Pci = false;
  for (size_t I = 0; I <= O.Ports.size(); ++I) {
    if (I == O.Ports.size() && O.Exception.empty())
      break;
    auto D = dpdk::parseDevice(I < O.Ports.size() ? O.Ports[I] : O.Exception);
    if (!D)
      return D.takeError();
    if (!Names.insert(D->Name).second)
      return Error("port '" + D->Given + "': device " + D->Name + " is named twice");
    GenPorts += D->Generator;
    Pci = Pci || D->Pci;
    // Nothing is written yet: the temporary names parseDevice chose are
    // the data plane's to use.
  }
  if (GenPorts > 1)
    return Error("at most one generator port");
  if (GenPorts && !O.GenPackets)
    return Error("port 'gen': no packets for the generator to send (--gen-pcap)");

  if (O.Xsks.size() > MaxXskConsumers)
    return Error("at most " + std::to_string(MaxXskConsumers) + " --xsk consumers");
  for (size_t I = 0; I < O.Xsks.size(); ++I) {
    const XskConsumer &X = O.Xsks[I];
    auto Bad = [&](const std::string &Why) {
      return Error("xsk consumer " + std::to_string(I + 1) + " (" + std::to_string(X.Ifindex) +
                   ":" + std::to_string(X.Queue) + "=" + std::to_string(X.Port) + "): " + Why);
    };
    if (X.Ifindex < 1 || X.Ifindex > O.Ports.size() || X.Port < 1 || X.Port > O.Ports.size())
      return Bad("ports are 1 to " + std::to_string(O.Ports.size()) + " (--port order)");
    if (X.Queue >= O.Queues)
      return Bad("queues are 0 to " + std::to_string(O.Queues - 1));
  }
  DataplaneOptions DO;
  DO.Xsks = O.Xsks;
  DO.Workers = unsigned(O.Ports.size() * O.Queues);
  DO.Depth = O.Depth;
  DO.GenLcores = GenPorts ? O.GenLcores : 0;
  DO.MaxFrame = O.MaxFrame;
  DO.Pci = Pci;
  DO.EalArgs = O.EalArgs;
  DO.Count = O.Count;
  DO.ZeroCopy = O.ZeroCopy;
  // Enough mbufs for every ring to be full, every worker to hold its
  // batches in flight and a burst, the generator's rings and every lcore
  // cache.
  constexpr uint64_t Descs = 1024, Burst = 32, Cache = 512;
  uint64_t Mbufs = O.Mbufs;
  if (!Mbufs) {
    uint64_t Devices = O.Ports.size() + (O.Exception.empty() ? 0 : 1);
    Mbufs = Devices * (Descs * O.Queues + Descs * DO.Workers) +
            uint64_t(DO.Workers) * (uint64_t(O.Depth) * O.BatchSize + Burst) +
            (GenPorts ? uint64_t(dpdk::Generator::RxRingSize) * O.Queues +
                            uint64_t(dpdk::Generator::TxRingSize) * DO.Workers
                      : 0) +
            uint64_t(DO.Workers + DO.GenLcores + 1) * Cache * 3 / 2;
    uint64_t Pow = 8192;
    while (Pow - 1 < Mbufs)
      Pow *= 2;
    Mbufs = Pow - 1;
  }
  if (Mbufs > UINT32_MAX)
    return Error("the run needs more mbufs than a pool holds (" + std::to_string(Mbufs) +
                 "): fewer queues, a smaller batch or --depth");
  DO.Mbufs = uint32_t(Mbufs);
  return DO;
}

} // namespace

Expected<ForwardReport> forward(BatchExecutor &Exec, const ForwardOptions &O,
                                const ForwardHooks &Hooks) {
  auto DO = dataplaneOptions(O);
  if (!DO)
    return DO.takeError();
  auto DP = Dataplane::start(*DO);
  if (!DP)
    return DP.takeError();
  Dataplane &D = **DP;
  // The caller owns the executor; the data plane only borrows it.
  std::shared_ptr<BatchExecutor> Borrowed(&Exec, [](BatchExecutor *) {});
  std::vector<uint32_t> Ids;
  auto Fail = [&](Error E) -> Error {
    for (uint32_t Id : Ids)
      (void)D.detach(Id, /*KeepOutputs=*/false);
    return E;
  };
  for (const std::string &Port : O.Ports) {
    AttachOptions A;
    A.Device = Port;
    A.Exception = O.Exception;
    A.Queues = O.Queues;
    A.BatchSize = O.BatchSize;
    A.TimeoutUs = O.TimeoutUs;
    A.GenPackets = O.GenPackets;
    A.GenFrame = O.GenFrame;
    A.GenReplay = O.GenReplay;
    A.Paused = true; // until every port is there to be redirected to
    auto Id = D.attach(A, Borrowed);
    if (!Id)
      return Fail(Id.takeError());
    Ids.push_back(*Id);
  }

  for (uint32_t Id : Ids)
    if (MaybeError E = D.resume(Id))
      return Fail(std::move(*E));
  auto Start = Clock::now();
  auto Elapsed = [&] { return std::chrono::duration<double>(Clock::now() - Start).count(); };
  auto Snapshot = [&] {
    ForwardReport R = report(D.stats(), O, D.workers());
    R.Seconds = Elapsed();
    return R;
  };
  if (Hooks.Started)
    Hooks.Started(Snapshot());
  auto NextProgress = Start + std::chrono::milliseconds(O.ProgressMs);
  uint64_t Seen = 0;
  auto LastChange = Clock::now();
  std::string Failure;
  while (!(O.Stop && O.Stop->load())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    uint64_t Now = D.received();
    if (O.Count && Now >= O.Count)
      break;
    if (O.DurationMs && Clock::now() - Start >= std::chrono::milliseconds(O.DurationMs))
      break;
    if (Now != Seen) {
      Seen = Now;
      LastChange = Clock::now();
    } else if (O.IdleMs && Clock::now() - LastChange >= std::chrono::milliseconds(O.IdleMs)) {
      break;
    }
    bool Progress = O.ProgressMs && Hooks.Progress && Clock::now() >= NextProgress;
    // A failed back end ends the run (the data plane alone would go on,
    // counting the failed batches, as the daemon does).
    std::vector<PortStats> Stats = D.stats();
    for (const PortStats &P : Stats)
      if (!P.FirstFailure.empty())
        Failure = P.FirstFailure;
    if (!Failure.empty())
      break;
    if (Progress) {
      ForwardReport R = report(Stats, O, D.workers());
      R.Seconds = Elapsed();
      Hooks.Progress(R);
      NextProgress += std::chrono::milliseconds(O.ProgressMs);
    }
  }
  // Every port stops receiving and acts on what it holds (before any
  // leaves, so that no REDIRECT finds its port gone); then net_pcap
  // outputs are completed.
  D.stopReceiving();
  std::vector<PortStats> Final;
  for (uint32_t Id : Ids) {
    auto P = D.detach(Id, /*KeepOutputs=*/Failure.empty());
    if (!P)
      return P.takeError();
    if (Failure.empty() && !P->FirstFailure.empty())
      Failure = P->FirstFailure;
    Final.push_back(std::move(*P));
  }
  double Seconds = Elapsed();
  if (!Failure.empty()) {
    D.stop();
    return Error(Failure);
  }
  ForwardReport R = report(Final, O, D.workers());
  R.Seconds = Seconds;
  D.stop();
  return R;
}

} // namespace ebpfgpu::runtime

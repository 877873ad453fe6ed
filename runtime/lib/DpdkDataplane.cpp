// SPDX-License-Identifier: Apache-2.0
//
// The daemon's data plane over DPDK: workers started once on the EAL's
// lcores, each polling the rx queues (tasks) assigned to it; ports
// hot-plugged and removed by the control thread; programs switched between
// batches; everything a worker may still see retired only after a grace
// period (every worker passed a quiescent point, i.e. the top of its loop,
// which lies between batches).

#include "ebpf-gpu/Runtime/Dataplane.h"

#include "Counters.h"
#include "DpdkEal.h"
#include "DpdkPort.h"

#include <rte_branch_prediction.h>
#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>
#include <rte_spinlock.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

namespace ebpfgpu::runtime {

namespace {

constexpr uint16_t RxBurst = 32;
constexpr uint16_t RxDescs = 512, TxDescs = 512;
constexpr unsigned TxStallLimit = 64;
constexpr unsigned MbufCache = 256;
constexpr uint32_t DefaultMbufs = 32767;

/// Where a worker sends: a device's ethdev id and its tx queues.
struct TxTarget {
  uint16_t EthId = 0;
  uint16_t Queues = 0;
  /// One lock per tx queue, used where workers outnumber the queues.
  std::unique_ptr<rte_spinlock_t[]> Locks;
  SharedCounter Packets, Bytes, Full;
};

struct Port;

/// One rx queue of one port, polled by one worker.
struct Task {
  Task(Port &P, uint16_t Queue, unsigned Worker, uint32_t BatchSize, uint32_t MaxFrame)
      : P(P), Queue(Queue), Worker(Worker), Batch(MaxFrame), Scratch(MaxFrame) {
    Batch.reserve(BatchSize);
    Held.reserve(BatchSize);
    Free.reserve(BatchSize);
    Dest.resize(BatchSize);
    Out.resize(BatchSize);
    OutLens.resize(BatchSize);
  }
  Port &P;
  const uint16_t Queue;
  const unsigned Worker;
  PacketBatch Batch;
  std::vector<rte_mbuf *> Held, Free, Out;
  std::vector<uint32_t> OutLens;
  /// Per held packet: where it goes (a port id, ExceptionDest, or NoDest).
  std::vector<uint8_t> Dest;
  std::vector<uint8_t> Scratch;
  uint64_t BatchStart = 0;
  /// The port's batch timeout in TSC cycles.
  uint64_t TimeoutTsc = 0;
  /// Back-end failures: when the last was reported, and how many batches
  /// failed since (a failed back end fails every batch until it is
  /// replaced: one line a second, not one a batch).
  uint64_t FailReportedTsc = 0, FailsUnreported = 0;
  /// Detach: the worker stops receiving, runs what it holds, says so.
  std::atomic<bool> StopRx{false}, Stopped{false};

  Counter RxPackets, RxBytes, ActPackets[NumXdpActions], ActBytes[NumXdpActions], Invalid;
  Counter Oversized, RedirectUnknown, PassDropped, ExecFailed, Batches, BackendNs;
  LatencyHistogram Latency;
};

struct Port {
  uint32_t Id = 0;
  AttachOptions Options;
  dpdk::DeviceSpec Dev, ExcDev;
  bool HasException = false;
  TxTarget Tx, ExcTx;
  /// What workers run; Owner keeps it alive (replaced under a grace period).
  std::atomic<BatchExecutor *> Prog{nullptr};
  std::shared_ptr<BatchExecutor> Owner;
  std::vector<std::unique_ptr<Task>> Tasks;
};

constexpr uint8_t ExceptionDest = 0xfe, NoDest = 0xff;
static_assert(MaxDataplanePorts < ExceptionDest);

using TaskList = std::vector<Task *>;

struct Worker {
  unsigned Index = 0;
  /// Advanced at every quiescent point (the top of the loop).
  std::atomic<uint64_t> Epoch{0};
  std::atomic<bool> Offline{false};
  std::atomic<const TaskList *> Tasks{nullptr};
  std::unique_ptr<TaskList> Owned; ///< what Tasks points to (control thread's)
  void *Owner = nullptr;           ///< the Dataplane::Impl it works for
};

} // namespace

struct Dataplane::Impl {
  DataplaneOptions O;
  std::unique_ptr<dpdk::Eal> Eal;
  rte_mempool *Pool = nullptr;
  std::vector<std::unique_ptr<Worker>> Workers;
  /// Ports by id (= ifindex); what REDIRECT looks up.
  std::array<std::atomic<Port *>, MaxDataplanePorts + 1> Table{};
  std::vector<std::unique_ptr<Port>> Ports; ///< owned (control thread)
  std::atomic<bool> Quit{false};
  bool Running = false;
  uint64_t Hz = 1;

  static int main(void *Arg) {
    auto *W = static_cast<Worker *>(Arg);
    return static_cast<Impl *>(W->Owner)->loop(*W);
  }
  int loop(Worker &W);
  bool poll(Worker &W, Task &T);
  void gather(Task &T, rte_mbuf **Rx, uint16_t N);
  void flush(Worker &W, Task &T);
  void send(Worker &W, TxTarget &To, rte_mbuf **Pkts, const uint32_t *Lens, size_t N);

  void synchronize();
  MaybeError probe(const dpdk::DeviceSpec &D, uint16_t &EthId);
  void closeDevice(uint16_t EthId);
  MaybeError setUp(const dpdk::DeviceSpec &D, uint16_t EthId, uint16_t RxQueues, TxTarget &Tx);
  void publish(Worker &W, std::unique_ptr<TaskList> L);
  void finishOutputs(const Port &P, bool Keep);
  PortStats snapshot(const Port &P) const;
  void closePort(Port &P, bool KeepOutputs);
};

int Dataplane::Impl::loop(Worker &W) {
  static const TaskList Empty;
  while (!Quit.load(std::memory_order_relaxed)) {
    // The quiescent point: no batch of this worker is in flight here.
    W.Epoch.fetch_add(1, std::memory_order_seq_cst);
    const TaskList *L = W.Tasks.load(std::memory_order_acquire);
    if (!L || L->empty()) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    for (Task *T : *L)
      poll(W, *T);
  }
  // Stopping: the batches held are run and acted on, none taken anew.
  const TaskList *L = W.Tasks.load(std::memory_order_acquire);
  for (Task *T : L ? *L : Empty)
    flush(W, *T);
  W.Epoch.fetch_add(1, std::memory_order_seq_cst);
  W.Offline.store(true, std::memory_order_seq_cst);
  return 0;
}

bool Dataplane::Impl::poll(Worker &W, Task &T) {
  if (unlikely(T.StopRx.load(std::memory_order_acquire))) {
    if (!T.Stopped.load(std::memory_order_relaxed)) {
      flush(W, T);
      T.Stopped.store(true, std::memory_order_release);
    }
    return false;
  }
  const AttachOptions &O = T.P.Options;
  uint16_t Want = uint16_t(std::min<size_t>(RxBurst, O.BatchSize - T.Held.size()));
  rte_mbuf *Rx[RxBurst];
  uint16_t N = rte_eth_rx_burst(T.P.Tx.EthId, T.Queue, Rx, Want);
  uint64_t Now = rte_rdtsc();
  const uint64_t Timeout = T.TimeoutTsc;
  if (N == 0) {
    if (!T.Held.empty() && Now - T.BatchStart >= Timeout)
      flush(W, T);
    return false;
  }
  if (T.Held.empty())
    T.BatchStart = Now;
  gather(T, Rx, N);
  if (T.Held.size() >= O.BatchSize || Now - T.BatchStart >= Timeout)
    flush(W, T);
  return true;
}

void Dataplane::Impl::gather(Task &T, rte_mbuf **Rx, uint16_t N) {
  uint64_t Bytes = 0;
  for (uint16_t I = 0; I < N; ++I) {
    rte_mbuf *M = Rx[I];
    uint32_t Len = rte_pktmbuf_pkt_len(M);
    Bytes += Len;
    if (unlikely(Len > O.MaxFrame)) {
      T.Oversized.add(1);
      rte_pktmbuf_free(M);
      continue;
    }
    const auto *Data = static_cast<const uint8_t *>(rte_pktmbuf_read(M, 0, Len, T.Scratch.data()));
    T.Batch.add(Data, Len);
    T.Held.push_back(M);
  }
  T.RxPackets.add(N);
  T.RxBytes.add(Bytes);
}

void Dataplane::Impl::flush(Worker &W, Task &T) {
  if (T.Held.empty())
    return;
  // The program is read once per batch: a replace takes effect between
  // batches, and this one runs wholly on what it read here.
  BatchExecutor *Exec = T.P.Prog.load(std::memory_order_acquire);
  uint64_t Start = rte_rdtsc();
  MaybeError Failed = Exec->run(T.Batch);
  uint64_t Ran = rte_rdtsc();
  T.BackendNs.add((Ran - Start) * 1000000000 / Hz);
  T.Batches.add(1);
  if (unlikely(Failed)) {
    if (T.FailReportedTsc == 0 || Ran - T.FailReportedTsc >= Hz) {
      std::fprintf(stderr, "ebpf-gpu-loader: error: port %u: %s back end: %s", T.P.Id,
                   Exec->backendName(), Failed->message().c_str());
      if (T.FailsUnreported)
        std::fprintf(stderr, " (and %llu batches failed since the last report)",
                     static_cast<unsigned long long>(T.FailsUnreported));
      std::fprintf(stderr, "\n");
      T.FailReportedTsc = Ran;
      T.FailsUnreported = 0;
    } else {
      ++T.FailsUnreported;
    }
    T.ExecFailed.add(T.Held.size());
    rte_pktmbuf_free_bulk(T.Held.data(), unsigned(T.Held.size()));
    T.Held.clear();
    T.Batch.clear();
    return;
  }
  uint64_t Packets[NumXdpActions] = {}, Bytes[NumXdpActions] = {};
  uint64_t Invalid = 0, Unknown = 0, PassDropped = 0, Oversized = 0;
  // Where REDIRECT and TX go, read from the table once: a port detached
  // meanwhile stays open until this batch has passed a quiescent point.
  Port *Used[MaxDataplanePorts + 1] = {};
  bool UsedException = false;
  for (size_t I = 0; I < T.Held.size(); ++I) {
    uint64_t V = T.Batch.verdict(I);
    uint32_t Len = T.Batch.length(I);
    if (unlikely(V >= NumXdpActions)) {
      ++Invalid;
      V = uint64_t(XdpAction::Aborted);
    }
    ++Packets[V];
    Bytes[V] += Len;
    uint8_t D = NoDest;
    switch (XdpAction(V)) {
    case XdpAction::Tx:
      D = uint8_t(T.P.Id);
      Used[D] = &T.P;
      break;
    case XdpAction::Redirect: {
      uint64_t Ifindex = T.Batch.redirectTarget(I);
      Port *To = Ifindex >= 1 && Ifindex <= MaxDataplanePorts
                     ? Table[Ifindex].load(std::memory_order_acquire)
                     : nullptr;
      if (To) {
        D = uint8_t(Ifindex);
        Used[D] = To;
      } else {
        ++Unknown;
      }
      break;
    }
    case XdpAction::Pass:
      if (T.P.HasException)
        D = ExceptionDest;
      else
        ++PassDropped;
      break;
    case XdpAction::Aborted:
    case XdpAction::Drop:
      break;
    }
    rte_mbuf *M = T.Held[I];
    if (D != NoDest && unlikely(!dpdk::storeResult(M, T.Batch.data(I), Len))) {
      ++Oversized;
      D = NoDest;
    }
    T.Dest[I] = D;
    if (D == NoDest)
      T.Free.push_back(M);
    else if (D == ExceptionDest)
      UsedException = true;
  }
  if (!T.Free.empty())
    rte_pktmbuf_free_bulk(T.Free.data(), unsigned(T.Free.size()));
  T.Free.clear();
  auto SendTo = [&](uint8_t D, TxTarget &To) {
    size_t N = 0;
    for (size_t I = 0; I < T.Held.size(); ++I)
      if (T.Dest[I] == D) {
        T.Out[N] = T.Held[I];
        T.OutLens[N++] = T.Batch.length(I);
      }
    send(W, To, T.Out.data(), T.OutLens.data(), N);
  };
  for (uint32_t D = 1; D <= MaxDataplanePorts; ++D)
    if (Used[D])
      SendTo(uint8_t(D), Used[D]->Tx);
  if (UsedException)
    SendTo(ExceptionDest, T.P.ExcTx);
  for (unsigned A = 0; A < NumXdpActions; ++A)
    if (Packets[A]) {
      T.ActPackets[A].add(Packets[A]);
      T.ActBytes[A].add(Bytes[A]);
    }
  if (Invalid | Unknown | PassDropped | Oversized) {
    T.Invalid.add(Invalid);
    T.RedirectUnknown.add(Unknown);
    T.PassDropped.add(PassDropped);
    T.Oversized.add(Oversized);
  }
  T.Held.clear();
  T.Batch.clear();
  T.Latency.record((rte_rdtsc() - T.BatchStart) * 1000000000 / Hz);
}

void Dataplane::Impl::send(Worker &W, TxTarget &To, rte_mbuf **Pkts, const uint32_t *Lens,
                           size_t N) {
  uint16_t Queue = uint16_t(W.Index % To.Queues);
  rte_spinlock_t *Lock = To.Queues < Workers.size() ? &To.Locks[Queue] : nullptr;
  size_t Sent = 0;
  unsigned Stalls = 0;
  if (Lock)
    rte_spinlock_lock(Lock);
  while (Sent < N) {
    uint16_t K =
        rte_eth_tx_burst(To.EthId, Queue, Pkts + Sent, uint16_t(std::min<size_t>(N - Sent, 512)));
    Sent += K;
    if (K == 0 && ++Stalls > TxStallLimit)
      break;
  }
  if (Lock)
    rte_spinlock_unlock(Lock);
  uint64_t Bytes = 0;
  for (size_t I = 0; I < Sent; ++I)
    Bytes += Lens[I];
  To.Packets.add(Sent);
  To.Bytes.add(Bytes);
  if (Sent < N) {
    To.Full.add(N - Sent);
    rte_pktmbuf_free_bulk(Pkts + Sent, unsigned(N - Sent));
  }
}

void Dataplane::Impl::synchronize() {
  std::vector<uint64_t> Seen;
  for (const auto &W : Workers)
    Seen.push_back(W->Epoch.load(std::memory_order_seq_cst));
  for (size_t I = 0; I < Workers.size(); ++I)
    while (!Workers[I]->Offline.load(std::memory_order_seq_cst) &&
           Workers[I]->Epoch.load(std::memory_order_seq_cst) == Seen[I])
      std::this_thread::sleep_for(std::chrono::microseconds(20));
}

void Dataplane::Impl::publish(Worker &W, std::unique_ptr<TaskList> L) {
  W.Tasks.store(L.get(), std::memory_order_release);
  synchronize(); // nobody iterates the old list any more
  W.Owned = std::move(L);
}

MaybeError Dataplane::Impl::probe(const dpdk::DeviceSpec &D, uint16_t &EthId) {
  Eal->captureLog();
  int R = rte_dev_probe(D.Eal.c_str());
  if (R != 0 && R != -EEXIST) {
    Error E(dpdk::withLog("port '" + D.Given + "': cannot probe the device: " + std::strerror(-R),
                          *Eal));
    Eal->logToStderr();
    return E;
  }
  if (rte_eth_dev_get_port_by_name(D.Name.c_str(), &EthId) != 0) {
    Error E(dpdk::withLog("port '" + D.Given + "': no such device", *Eal));
    Eal->logToStderr();
    return E;
  }
  Eal->logToStderr();
  return std::nullopt;
}

void Dataplane::Impl::closeDevice(uint16_t EthId) {
  rte_eth_dev_info Info;
  rte_device *Dev = nullptr;
  if (rte_eth_dev_info_get(EthId, &Info) == 0)
    Dev = Info.device;
  rte_eth_dev_stop(EthId);
  rte_eth_dev_close(EthId);
  // The device leaves the bus too, so that its name can be attached again.
  if (Dev)
    rte_dev_remove(Dev);
}

MaybeError Dataplane::Impl::setUp(const dpdk::DeviceSpec &D, uint16_t EthId, uint16_t RxQueues,
                                  TxTarget &Tx) {
  rte_eth_dev_info Info;
  if (int R = rte_eth_dev_info_get(EthId, &Info))
    return Error("port '" + D.Given + "': " + std::strerror(-R));
  if (RxQueues > Info.max_rx_queues)
    return Error("port '" + D.Given + "': has " + std::to_string(Info.max_rx_queues) +
                 " rx queue(s); " + std::to_string(RxQueues) + " asked for");
  uint16_t TxQueues = uint16_t(std::min<size_t>(Workers.size(), Info.max_tx_queues));
  if (TxQueues == 0)
    return Error("port '" + D.Given + "': cannot transmit (no tx queue)");
  Eal->captureLog();
  MaybeError E = dpdk::setUpPort(EthId, D, RxQueues, TxQueues, RxDescs, TxDescs, Pool, *Eal);
  Eal->logToStderr();
  if (E)
    return E;
  Tx.EthId = EthId;
  Tx.Queues = TxQueues;
  Tx.Locks = std::make_unique<rte_spinlock_t[]>(TxQueues);
  for (uint16_t Q = 0; Q < TxQueues; ++Q)
    rte_spinlock_init(&Tx.Locks[Q]);
  return std::nullopt;
}

void Dataplane::Impl::finishOutputs(const Port &P, bool Keep) {
  for (const dpdk::DeviceSpec *D : {&P.Dev, &P.ExcDev})
    for (const auto &[Final, Tmp] : D->Outputs)
      if (!Keep || std::rename(Tmp.c_str(), Final.c_str()) != 0)
        std::remove(Tmp.c_str());
}

void Dataplane::Impl::closePort(Port &P, bool KeepOutputs) {
  closeDevice(P.Tx.EthId);
  if (P.HasException)
    closeDevice(P.ExcTx.EthId);
  finishOutputs(P, KeepOutputs);
}

PortStats Dataplane::Impl::snapshot(const Port &P) const {
  PortStats S;
  S.Id = P.Id;
  S.Device = P.Options.Device;
  S.Exception = P.Options.Exception;
  S.Options = P.Options;
  S.Exec = P.Owner.get();
  S.Program = P.Owner ? P.Owner->programName() : "";
  S.TxPackets = P.Tx.Packets.get();
  S.TxBytes = P.Tx.Bytes.get();
  S.TxFull = P.Tx.Full.get();
  S.PassTxPackets = P.ExcTx.Packets.get();
  S.PassTxFull = P.ExcTx.Full.get();
  rte_eth_stats St;
  if (rte_eth_stats_get(P.Tx.EthId, &St) == 0) {
    S.RxNoMbuf = St.rx_nombuf;
    S.RxMissed = St.imissed;
    S.RxErrors = St.ierrors;
    S.TxErrors = St.oerrors;
  }
  for (const auto &T : P.Tasks) {
    QueueStats Q;
    Q.Queue = T->Queue;
    Q.Worker = T->Worker;
    Q.RxPackets = T->RxPackets.get();
    Q.RxBytes = T->RxBytes.get();
    for (unsigned A = 0; A < NumXdpActions; ++A) {
      Q.Actions.Packets[A] = T->ActPackets[A].get();
      Q.Actions.Bytes[A] = T->ActBytes[A].get();
    }
    Q.Actions.Invalid = T->Invalid.get();
    Q.Batches = T->Batches.get();
    Q.BackendNs = T->BackendNs.get();
    T->Latency.addTo(Q.Latency);
    Q.Oversized = T->Oversized.get();
    Q.RedirectUnknown = T->RedirectUnknown.get();
    Q.PassDropped = T->PassDropped.get();
    Q.ExecFailed = T->ExecFailed.get();
    S.Queues.push_back(std::move(Q));
  }
  return S;
}

Dataplane::Dataplane(std::unique_ptr<Impl> I) : P(std::move(I)) {}

Dataplane::~Dataplane() { stop(); }

Expected<std::unique_ptr<Dataplane>> Dataplane::start(const DataplaneOptions &O) {
  if (O.Workers < 1 || O.Workers > MaxDataplaneWorkers)
    return Error("workers must be 1 to " + std::to_string(MaxDataplaneWorkers));
  auto I = std::make_unique<Impl>();
  I->O = O;
  uint32_t Mbufs = O.Mbufs ? O.Mbufs : DefaultMbufs;
  uint32_t DataRoom = RTE_PKTMBUF_HEADROOM + O.MaxFrame + XdpHeadroom;
  unsigned MemoryMb = unsigned(128 + (uint64_t(Mbufs) * (DataRoom + 512) * 3 / 2 >> 20));
  std::vector<std::string> Extra = O.EalArgs;
  // PCI ports are hot-plugged by address; without --pci the bus is not
  // scanned at all (a machine's NICs stay untouched).
  if (O.Pci)
    Extra.insert(Extra.begin(), "--allow=0000:00:00.0"); // probe none at start
  auto E = dpdk::Eal::init({}, O.Workers + 1, MemoryMb, Extra);
  if (!E)
    return E.takeError();
  I->Eal = std::move(*E);
  if (rte_lcore_count() < O.Workers + 1)
    return Error("the data plane needs " + std::to_string(O.Workers + 1) +
                 " lcores (the workers and the main one); the EAL has " +
                 std::to_string(rte_lcore_count()));
  I->Pool = rte_pktmbuf_pool_create("ebpfgpu_daemon", Mbufs, MbufCache, 0, uint16_t(DataRoom),
                                    int(rte_socket_id()));
  if (!I->Pool)
    return Error(dpdk::withLog("cannot allocate " + std::to_string(Mbufs) + " mbufs of " +
                                   std::to_string(DataRoom) + " bytes: " + rte_strerror(rte_errno),
                               *I->Eal));
  I->Eal->logToStderr();
  I->Hz = rte_get_tsc_hz();
  for (unsigned W = 0; W < O.Workers; ++W) {
    auto Wk = std::make_unique<Worker>();
    Wk->Index = W;
    Wk->Owned = std::make_unique<TaskList>();
    Wk->Tasks.store(Wk->Owned.get());
    I->Workers.push_back(std::move(Wk));
  }
  size_t Next = 0;
  unsigned Lcore;
  RTE_LCORE_FOREACH_WORKER(Lcore) {
    if (Next == I->Workers.size())
      break;
    Worker *W = I->Workers[Next].get();
    W->Owner = I.get();
    if (int R = rte_eal_remote_launch(Impl::main, W, Lcore)) {
      I->Quit = true;
      rte_eal_mp_wait_lcore();
      return Error("cannot start a worker on lcore " + std::to_string(Lcore) + ": " +
                   std::strerror(-R));
    }
    ++Next;
  }
  I->Running = true;
  return std::unique_ptr<Dataplane>(new Dataplane(std::move(I)));
}

unsigned Dataplane::workers() const { return unsigned(P->Workers.size()); }

Expected<uint32_t> Dataplane::attach(const AttachOptions &O, std::shared_ptr<BatchExecutor> Exec) {
  Impl &I = *P;
  if (!I.Running)
    return Error("the data plane is stopping");
  if (O.Queues < 1 || O.Queues > 64)
    return Error("queues must be 1 to 64");
  if (O.BatchSize < 1 || O.BatchSize > 65536)
    return Error("batch size must be 1 to 65536");
  auto Dev = dpdk::parseDevice(O.Device);
  if (!Dev)
    return Dev.takeError();
  std::optional<dpdk::DeviceSpec> Exc;
  if (!O.Exception.empty()) {
    auto X = dpdk::parseDevice(O.Exception);
    if (!X)
      return X.takeError();
    if (X->Name == Dev->Name)
      return Error("port '" + O.Device + "': its exception port is the port itself");
    Exc = std::move(*X);
  }
  for (const auto &Q : I.Ports)
    for (const dpdk::DeviceSpec *D : {&Q->Dev, &Q->ExcDev})
      if (!D->Name.empty() && (D->Name == Dev->Name || (Exc && D->Name == Exc->Name)))
        return Error("device " + D->Name + " is already in use (port " + std::to_string(Q->Id) +
                     ")");
  uint32_t Id = 1;
  while (Id <= MaxDataplanePorts && I.Table[Id].load())
    ++Id;
  if (Id > MaxDataplanePorts)
    return Error("at most " + std::to_string(MaxDataplanePorts) + " ports");

  auto Pt = std::make_unique<Port>();
  Pt->Id = Id;
  Pt->Options = O;
  Pt->Dev = *Dev;
  uint16_t EthId;
  if (MaybeError E = I.probe(Pt->Dev, EthId))
    return std::move(*E);
  if (MaybeError E = I.setUp(Pt->Dev, EthId, uint16_t(O.Queues), Pt->Tx)) {
    I.closeDevice(EthId);
    I.finishOutputs(*Pt, false);
    return std::move(*E);
  }
  if (Exc) {
    Pt->ExcDev = *Exc;
    Pt->HasException = true;
    uint16_t ExcId;
    MaybeError E = I.probe(Pt->ExcDev, ExcId);
    if (!E) {
      E = I.setUp(Pt->ExcDev, ExcId, 1, Pt->ExcTx);
      if (E)
        I.closeDevice(ExcId);
    }
    if (E) {
      I.closeDevice(EthId);
      I.finishOutputs(*Pt, false);
      return std::move(*E);
    }
  }
  Pt->Owner = std::move(Exec);
  Pt->Prog.store(Pt->Owner.get(), std::memory_order_release);
  // Each rx queue to the worker with the fewest.
  std::vector<size_t> Load(I.Workers.size());
  for (size_t W = 0; W < I.Workers.size(); ++W)
    Load[W] = I.Workers[W]->Owned->size();
  std::vector<std::vector<Task *>> Added(I.Workers.size());
  for (uint32_t Q = 0; Q < O.Queues; ++Q) {
    size_t W = size_t(std::min_element(Load.begin(), Load.end()) - Load.begin());
    ++Load[W];
    Pt->Tasks.push_back(
        std::make_unique<Task>(*Pt, uint16_t(Q), unsigned(W), O.BatchSize, I.O.MaxFrame));
    Pt->Tasks.back()->Batch.setIngress(Id, Q);
    Pt->Tasks.back()->TimeoutTsc = I.Hz * O.TimeoutUs / 1000000;
    Added[W].push_back(Pt->Tasks.back().get());
  }
  Port *Raw = Pt.get();
  I.Ports.push_back(std::move(Pt));
  I.Table[Id].store(Raw, std::memory_order_release);
  for (size_t W = 0; W < I.Workers.size(); ++W) {
    if (Added[W].empty())
      continue;
    auto L = std::make_unique<TaskList>(*I.Workers[W]->Owned);
    L->insert(L->end(), Added[W].begin(), Added[W].end());
    I.publish(*I.Workers[W], std::move(L));
  }
  return Id;
}

MaybeError Dataplane::replace(uint32_t Id, std::shared_ptr<BatchExecutor> Exec) {
  Impl &I = *P;
  Port *Pt = Id >= 1 && Id <= MaxDataplanePorts ? I.Table[Id].load() : nullptr;
  if (!Pt)
    return Error("no port " + std::to_string(Id));
  std::shared_ptr<BatchExecutor> Old = std::move(Pt->Owner);
  Pt->Owner = std::move(Exec);
  Pt->Prog.store(Pt->Owner.get(), std::memory_order_seq_cst);
  // Batches that read the old program before the switch end before every
  // worker passes its next quiescent point.
  I.synchronize();
  Old.reset();
  return std::nullopt;
}

Expected<PortStats> Dataplane::detach(uint32_t Id) {
  Impl &I = *P;
  Port *Pt = Id >= 1 && Id <= MaxDataplanePorts ? I.Table[Id].load() : nullptr;
  if (!Pt)
    return Error("no port " + std::to_string(Id));
  for (auto &T : Pt->Tasks)
    T->StopRx.store(true, std::memory_order_release);
  for (auto &T : Pt->Tasks)
    while (!T->Stopped.load(std::memory_order_acquire) && !I.Workers[T->Worker]->Offline.load())
      std::this_thread::sleep_for(std::chrono::microseconds(50));
  I.Table[Id].store(nullptr, std::memory_order_seq_cst);
  for (auto &W : I.Workers) {
    auto L = std::make_unique<TaskList>();
    for (Task *T : *W->Owned)
      if (&T->P != Pt)
        L->push_back(T);
    if (L->size() != W->Owned->size())
      I.publish(*W, std::move(L));
  }
  // No batch that found this port in the table is still sending to it.
  I.synchronize();
  PortStats Final = I.snapshot(*Pt);
  I.closePort(*Pt, true);
  I.Ports.erase(
      std::find_if(I.Ports.begin(), I.Ports.end(), [&](const auto &Q) { return Q.get() == Pt; }));
  return Final;
}

std::vector<PortStats> Dataplane::stats() const {
  std::vector<PortStats> Out;
  for (const auto &Pt : P->Ports)
    Out.push_back(P->snapshot(*Pt));
  std::sort(Out.begin(), Out.end(),
            [](const PortStats &A, const PortStats &B) { return A.Id < B.Id; });
  return Out;
}

uint32_t Dataplane::findPort(const std::string &S) const {
  for (const auto &Pt : P->Ports)
    if (std::to_string(Pt->Id) == S || Pt->Dev.Name == S || Pt->Options.Device == S)
      return Pt->Id;
  return 0;
}

void Dataplane::stop() {
  Impl &I = *P;
  if (!I.Running)
    return;
  I.Running = false;
  I.Quit = true;
  rte_eal_mp_wait_lcore();
  for (auto &Pt : I.Ports)
    I.closePort(*Pt, true);
  I.Ports.clear();
  for (auto &W : I.Workers)
    W->Owned.reset();
  if (I.Pool)
    rte_mempool_free(I.Pool);
  I.Pool = nullptr;
  I.Eal.reset();
}

} // namespace ebpfgpu::runtime

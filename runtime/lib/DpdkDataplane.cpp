// SPDX-License-Identifier: Apache-2.0
//
// The one data plane over DPDK (Dataplane.h): workers started once on the
// EAL's lcores, each polling the rx queues (tasks) assigned to it; ports
// hot-plugged and removed by the control thread; per task a ring of batch
// slots in flight in the back end; programs switched between batches;
// everything a worker may still see retired only after a grace period.
//
// A task's slots, in ring order: the one being filled (Fill), then those in
// flight, oldest first. A worker polls its oldest in-flight slot without
// waiting, receives into the filling slot, submits it when it is full or
// its first packet has waited the timeout, and waits for the oldest only
// when every slot is busy.

#include "ebpf-gpu/Runtime/Dataplane.h"

#include "Counters.h"
#include "DpdkEal.h"
#include "DpdkGenerator.h"
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
#include <rte_prefetch.h>
#include <rte_spinlock.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <thread>

namespace ebpfgpu::runtime {

namespace {

constexpr uint16_t RxBurst = 64;
constexpr uint16_t RxDescs = 1024, TxDescs = 1024;
/// tx bursts that accept nothing before the rest of the packets are dropped.
constexpr unsigned TxStallLimit = 64;
constexpr unsigned MbufCache = 512;
constexpr uint32_t DefaultMbufs = 32767;
/// Packets a task takes from the Count budget at once (one atomic
/// operation per chunk, not per burst).
constexpr uint64_t BudgetChunk = 256;
constexpr unsigned MaxDepth = 16;

/// Where a worker sends: a device's ethdev id and its tx queues.
struct TxTarget {
  uint16_t EthId = 0;
  uint16_t Queues = 0;
  /// One lock per tx queue, used where workers outnumber the queues.
  std::unique_ptr<rte_spinlock_t[]> Locks;
  SharedCounter Packets, Bytes, Full;
};

/// An exception device, shared by the ports that name it.
struct ExceptionPort {
  dpdk::DeviceSpec Dev;
  TxTarget Tx;
  unsigned Users = 0;
};

/// A program bound to a port: the executor and one lane per task (rx
/// queue), made by the control thread, retired under a grace period.
struct Binding {
  std::shared_ptr<BatchExecutor> Exec;
  std::vector<std::unique_ptr<BatchLane>> Lanes;
  /// Batches submitted on it and not yet acted on, over all tasks.
  std::atomic<uint64_t> InFlight{0};
};

struct Port;

/// A batch being received, or in flight in the back end.
struct Slot {
  explicit Slot(uint32_t MaxFrame) : Batch(MaxFrame) {}
  PacketBatch Batch;
  std::vector<rte_mbuf *> Held;
  uint64_t StartTsc = 0; ///< its first packet received
  /// The program it runs on, read at its first packet (counted in the
  /// binding's InFlight from then until it is acted on).
  Binding *B = nullptr;
  /// Staged as descriptors in the lane (BatchLane::stage) rather than in
  /// Batch: mbufs read in place, one descriptor written per packet.
  ebpfgpu_packet_desc *Descs = nullptr;
};

/// One rx queue of one port, polled by one worker.
struct Task {
  Task(Port &P, uint16_t Queue, unsigned Index, unsigned Worker, uint32_t BatchSize,
       uint32_t MaxFrame, unsigned Depth)
      : P(P), Queue(Queue), Index(Index), Worker(Worker), Scratch(MaxFrame) {
    for (unsigned D = 0; D < Depth; ++D) {
      Slots.push_back(std::make_unique<Slot>(MaxFrame));
      Slots.back()->Batch.reserve(BatchSize);
      Slots.back()->Held.reserve(BatchSize);
    }
    Free.reserve(BatchSize);
    Dest.resize(BatchSize);
    Out.resize(BatchSize);
    OutLens.resize(BatchSize);
  }
  Port &P;
  const uint16_t Queue;
  const unsigned Index;  ///< in its port's task list (its lane's index)
  const unsigned Worker;
  std::vector<std::unique_ptr<Slot>> Slots;
  unsigned Fill = 0, InFlight = 0;
  std::vector<rte_mbuf *> Free, Out;
  std::vector<uint32_t> OutLens;
  /// Per packet of the batch acted on: where it goes (a port id,
  /// ExceptionDest, or NoDest).
  std::vector<uint8_t> Dest;
  std::vector<uint8_t> Scratch;
  /// The port's batch timeout in TSC cycles.
  uint64_t TimeoutTsc = 0;
  /// Packets this task may still receive under DataplaneOptions::Count.
  uint64_t Allowance = 0;
  uint64_t LastRxTsc = 0, LastReapTsc = 0;
  /// Back-end failures: when the last was reported, and how many batches
  /// failed since (a failed back end fails every batch until it is
  /// replaced: one line a second, not one a batch).
  uint64_t FailReportedTsc = 0, FailsUnreported = 0;
  std::string FirstFailure;
  std::atomic<bool> Failed{false};
  /// Detach: the worker stops receiving, runs what it holds, says so.
  std::atomic<bool> StopRx{false}, Stopped{false};

  Counter RxPackets, RxBytes, ActPackets[NumXdpActions], ActBytes[NumXdpActions], Invalid;
  Counter Oversized, RedirectUnknown, PassDropped, ExecFailed, Batches;
  Counter SubmitTsc, WaitTsc, ActTsc; ///< TSC cycles spent there
  Counter FirstRxTsc, LastDoneTsc;
  LatencyHistogram Latency;

  Slot &filling() { return *Slots[Fill]; }
  unsigned oldest() const {
    return (Fill + unsigned(Slots.size()) - InFlight) % unsigned(Slots.size());
  }
};

struct Port {
  uint32_t Id = 0;
  AttachOptions Options;
  dpdk::DeviceSpec Dev;
  ExceptionPort *Exc = nullptr;
  TxTarget Tx;
  /// What workers run; Owner keeps it alive (replaced under a grace period).
  std::atomic<Binding *> Prog{nullptr};
  std::unique_ptr<Binding> Owner;
  /// False while attached with AttachOptions::Paused.
  std::atomic<bool> Receiving{true};
  std::vector<std::unique_ptr<Task>> Tasks;
  std::unique_ptr<dpdk::Generator> Gen;
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

/// Frees mbufs as rte_pktmbuf_free_bulk does, but puts the plain ones (one
/// segment, direct, one reference, from `Pool`: every packet the data plane
/// drops, as a driver's fast-free does) straight back into the pool: only
/// their first cache line is read, never the second (`next`, which a
/// one-segment mbuf keeps NULL).
void freeMbufs(rte_mempool *Pool, rte_mbuf **Pkts, size_t N) {
  rte_mbuf *Plain[64];
  unsigned K = 0;
  for (size_t I = 0; I < N; ++I) {
    rte_mbuf *M = Pkts[I];
    if (likely(M->pool == Pool && M->nb_segs == 1 && RTE_MBUF_DIRECT(M) &&
               rte_mbuf_refcnt_read(M) == 1)) {
      Plain[K++] = M;
      if (K == 64) {
        rte_mempool_put_bulk(Pool, reinterpret_cast<void **>(Plain), K);
        K = 0;
      }
    } else {
      rte_pktmbuf_free(M);
    }
  }
  if (K)
    rte_mempool_put_bulk(Pool, reinterpret_cast<void **>(Plain), K);
}

} // namespace

struct Dataplane::Impl {
  DataplaneOptions O;
  std::unique_ptr<dpdk::Eal> Eal;
  rte_mempool *Pool = nullptr;
  std::vector<std::unique_ptr<Worker>> Workers;
  std::vector<unsigned> GenLcores; ///< kept for a generator port
  bool GenInUse = false;
  /// Ports by id (= ifindex); what REDIRECT looks up.
  std::array<std::atomic<Port *>, MaxDataplanePorts + 1> Table{};
  std::vector<std::unique_ptr<Port>> Ports; ///< owned (control thread)
  std::map<std::string, std::unique_ptr<ExceptionPort>> Exceptions;
  /// Executors given the pool's memory (ZeroCopy), told to forget it at
  /// the end.
  std::vector<std::weak_ptr<BatchExecutor>> GivenMemory;
  std::atomic<bool> Quit{false};
  /// Packets left to receive under O.Count.
  std::atomic<uint64_t> Budget{0};
  bool Running = false;
  uint64_t Hz = 1, StartTsc = 0, ReapTsc = 0;

  static int main(void *Arg) {
    auto *W = static_cast<Worker *>(Arg);
    return static_cast<Impl *>(W->Owner)->loop(*W);
  }
  int loop(Worker &W);
  void poll(Worker &W, Task &T);
  uint16_t allowance(Task &T, uint16_t Want, uint64_t Now);
  void open(Task &T, Slot &S);
  void gather(Task &T, Slot &S, rte_mbuf **Rx, uint16_t N);
  static void unstage(Slot &S);
  void submit(Task &T);
  void reap(Worker &W, Task &T, bool WaitOne);
  void drain(Worker &W, Task &T);
  void failBatch(Task &T, Slot &S, BatchExecutor &Exec, const Error &E);
  void act(Worker &W, Task &T, Slot &S, const ebpfgpu_verdict *Staged);
  void send(Worker &W, TxTarget &To, rte_mbuf **Pkts, const uint32_t *Lens, size_t N);

  void synchronize();
  void retire(std::unique_ptr<Binding> B);
  /// The program with a lane for each of `Workers` (a task's worker, by
  /// task index).
  Expected<std::unique_ptr<Binding>> bind(std::shared_ptr<BatchExecutor> Exec,
                                          const std::vector<unsigned> &Workers);
  MaybeError giveMemory(const std::shared_ptr<BatchExecutor> &Exec);
  MaybeError probe(const dpdk::DeviceSpec &D, uint16_t &EthId);
  void closeDevice(uint16_t EthId);
  MaybeError setUp(const dpdk::DeviceSpec &D, uint16_t EthId, uint16_t RxQueues, TxTarget &Tx);
  Expected<ExceptionPort *> openException(const std::string &Given);
  void releaseException(ExceptionPort *X, bool Keep);
  void publish(Worker &W, std::unique_ptr<TaskList> L);
  static void finishOutputs(const dpdk::DeviceSpec &D, bool Keep);
  PortStats snapshot(const Port &P) const;
  void closePort(Port &P, bool KeepOutputs);
};

int Dataplane::Impl::loop(Worker &W) {
  static const TaskList Empty;
  while (!Quit.load(std::memory_order_relaxed)) {
    // The quiescent point: every program this worker read in an earlier
    // turn is either done with or counted in its binding's InFlight.
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
    drain(W, *T);
  W.Epoch.fetch_add(1, std::memory_order_seq_cst);
  W.Offline.store(true, std::memory_order_seq_cst);
  return 0;
}

uint16_t Dataplane::Impl::allowance(Task &T, uint16_t Want, uint64_t Now) {
  if (T.Allowance == 0) {
    uint64_t Left = Budget.load(std::memory_order_relaxed), Take;
    do {
      if (Left == 0)
        return 0;
      Take = std::min(Left, BudgetChunk);
    } while (!Budget.compare_exchange_weak(Left, Left - Take, std::memory_order_relaxed));
    T.Allowance = Take;
  }
  return uint16_t(std::min<uint64_t>(Want, T.Allowance));
}

void Dataplane::Impl::poll(Worker &W, Task &T) {
  if (unlikely(T.StopRx.load(std::memory_order_acquire))) {
    if (!T.Stopped.load(std::memory_order_relaxed)) {
      drain(W, T);
      T.Stopped.store(true, std::memory_order_release);
    }
    return;
  }
  uint64_t Now = rte_rdtsc();
  // Asking the back end costs a driver call: at most every ReapTsc, unless
  // every slot is busy.
  if (T.InFlight == T.Slots.size() || (T.InFlight && Now - T.LastReapTsc >= ReapTsc)) {
    reap(W, T, /*WaitOne=*/T.InFlight == T.Slots.size());
    T.LastReapTsc = Now;
  }
  if (unlikely(!T.P.Receiving.load(std::memory_order_relaxed)))
    return;
  Slot &S = T.filling();
  const uint32_t BatchSize = T.P.Options.BatchSize;
  uint16_t Want = uint16_t(std::min<size_t>(RxBurst, BatchSize - S.Held.size()));
  if (O.Count)
    Want = allowance(T, Want, Now);
  rte_mbuf *Rx[RxBurst];
  uint16_t N = Want ? rte_eth_rx_burst(T.P.Tx.EthId, T.Queue, Rx, Want) : 0;
  if (N == 0) {
    if (!S.Held.empty() && Now - S.StartTsc >= T.TimeoutTsc)
      submit(T);
    // A task that receives nothing gives its share of the budget back, so
    // that busier queues can take it.
    if (T.Allowance && Now - T.LastRxTsc >= Hz / 1000) {
      Budget.fetch_add(T.Allowance, std::memory_order_relaxed);
      T.Allowance = 0;
    }
    return;
  }
  T.LastRxTsc = Now;
  if (O.Count)
    T.Allowance -= N;
  if (unlikely(T.FirstRxTsc.get() == 0))
    T.FirstRxTsc.add(Now);
  if (S.Held.empty()) {
    S.StartTsc = Now;
    open(T, S);
  }
  gather(T, S, Rx, N);
  // A partial batch goes at its timeout only once the queue is drained (a
  // burst came back short): a worker that falls behind fills its batches
  // rather than sending small ones, which would cost it more per packet.
  if (S.Held.size() >= BatchSize || (N < Want && Now - S.StartTsc >= T.TimeoutTsc))
    submit(T);
}

void Dataplane::Impl::open(Task &T, Slot &S) {
  if (S.B)
    return; // opened already (its first packets were all dropped)
  // The program is read once per batch, at its first packet: a replace
  // takes effect between batches, and this one runs wholly on what it
  // read here. Counted in flight before the next quiescent point, so a
  // retiring program waits for it.
  Binding *B = T.P.Prog.load(std::memory_order_acquire);
  B->InFlight.fetch_add(1, std::memory_order_relaxed);
  S.B = B;
  S.Descs = O.ZeroCopy ? B->Lanes[T.Index]->stage(T.Fill, T.P.Options.BatchSize) : nullptr;
}

void Dataplane::Impl::unstage(Slot &S) {
  // Back to a PacketBatch (a packet that cannot be read in place came):
  // the packets staged so far move into it.
  for (size_t I = 0; I < S.Held.size(); ++I) {
    rte_mbuf *M = S.Held[I];
    S.Batch.addExternal(static_cast<uint8_t *>(M->buf_addr), M->buf_len, M->data_off,
                        rte_pktmbuf_pkt_len(M));
  }
  S.Descs = nullptr;
}

/// A frame longer than the data plane takes is freed and counted.
static inline bool admit(Task &T, rte_mbuf *M, uint32_t Len, uint32_t MaxFrame) {
  if (likely(Len <= MaxFrame))
    return true;
  T.Oversized.add(1);
  rte_pktmbuf_free(M);
  return false;
}

void Dataplane::Impl::gather(Task &T, Slot &S, rte_mbuf **Rx, uint16_t N) {
  uint64_t Bytes = 0;
  const uint32_t MaxFrame = O.MaxFrame;
  // Each mbuf's first line is a cache miss (another core filled it): ask
  // for all of the burst's at once.
  for (uint16_t I = 0; I < N; ++I)
    rte_prefetch0(Rx[I]);
  if (S.Descs) {
    const uint32_t Ifindex = S.Batch.ingressIfindex(), Queue = S.Batch.rxQueueIndex();
    uint16_t I = 0;
    for (; I < N; ++I) {
      rte_mbuf *M = Rx[I];
      uint32_t Len = rte_pktmbuf_pkt_len(M);
      Bytes += Len;
      if (unlikely(!admit(T, M, Len, MaxFrame)))
        continue;
      if (unlikely(M->nb_segs != 1 || M->pool != Pool || !RTE_MBUF_DIRECT(M) ||
                   rte_mbuf_refcnt_read(M) != 1)) {
        unstage(S);
        Bytes -= Len; // counted again below
        break;
      }
      S.Descs[S.Held.size()] = ebpfgpu_packet_desc{reinterpret_cast<uint64_t>(M->buf_addr),
                                                   M->data_off,      Len, M->buf_len,
                                                   Ifindex,          Queue, 0};
      S.Held.push_back(M);
    }
    if (I == N) {
      T.RxPackets.add(N);
      T.RxBytes.add(Bytes);
      return;
    }
    T.RxPackets.add(I);
    T.RxBytes.add(Bytes);
    Rx += I;
    N = uint16_t(N - I);
    Bytes = 0;
  }
  for (uint16_t I = 0; I < N; ++I) {
    rte_mbuf *M = Rx[I];
    uint32_t Len = rte_pktmbuf_pkt_len(M);
    Bytes += Len;
    if (unlikely(!admit(T, M, Len, MaxFrame)))
      continue;
    if (O.ZeroCopy && M->nb_segs == 1) {
      S.Batch.addExternal(static_cast<uint8_t *>(M->buf_addr), M->buf_len, M->data_off, Len);
    } else {
      // Contiguous in the mbuf (one segment) or copied into Scratch.
      const auto *Data =
          static_cast<const uint8_t *>(rte_pktmbuf_read(M, 0, Len, T.Scratch.data()));
      S.Batch.add(Data, Len);
    }
    S.Held.push_back(M);
  }
  T.RxPackets.add(N);
  T.RxBytes.add(Bytes);
}

void Dataplane::Impl::failBatch(Task &T, Slot &S, BatchExecutor &Exec, const Error &E) {
  uint64_t Now = rte_rdtsc();
  if (!T.Failed.load(std::memory_order_relaxed)) {
    T.FirstFailure = std::string(Exec.backendName()) + " back end: " + E.message();
    T.Failed.store(true, std::memory_order_release);
  }
  if (T.FailReportedTsc == 0 || Now - T.FailReportedTsc >= Hz) {
    std::fprintf(stderr, "ebpf-gpu-loader: error: port %u: %s back end: %s", T.P.Id,
                 Exec.backendName(), E.message().c_str());
    if (T.FailsUnreported)
      std::fprintf(stderr, " (and %llu batches failed since the last report)",
                   static_cast<unsigned long long>(T.FailsUnreported));
    std::fprintf(stderr, "\n");
    T.FailReportedTsc = Now;
    T.FailsUnreported = 0;
  } else {
    ++T.FailsUnreported;
  }
  T.ExecFailed.add(S.Held.size());
  freeMbufs(Pool, S.Held.data(), S.Held.size());
  S.Held.clear();
  S.Batch.clear();
}

void Dataplane::Impl::submit(Task &T) {
  Slot &S = T.filling();
  if (S.Held.empty())
    return;
  Binding *B = S.B;
  BatchLane &Lane = *B->Lanes[T.Index];
  uint64_t Start = rte_rdtsc();
  MaybeError E = S.Descs ? Lane.submitStaged(T.Fill, uint32_t(S.Held.size()))
                         : Lane.submit(T.Fill, S.Batch);
  T.SubmitTsc.add(rte_rdtsc() - Start);
  T.Batches.add(1);
  if (unlikely(E)) {
    failBatch(T, S, *B->Exec, *E);
    S.B = nullptr;
    S.Descs = nullptr;
    B->InFlight.fetch_sub(1, std::memory_order_release);
    return;
  }
  T.Fill = (T.Fill + 1) % unsigned(T.Slots.size());
  ++T.InFlight;
}

void Dataplane::Impl::reap(Worker &W, Task &T, bool WaitOne) {
  while (T.InFlight) {
    unsigned I = T.oldest();
    Slot &S = *T.Slots[I];
    Binding *B = S.B;
    uint64_t Start = rte_rdtsc();
    Expected<bool> Done = B->Lanes[T.Index]->poll(I, WaitOne);
    uint64_t Polled = rte_rdtsc();
    if (WaitOne)
      T.WaitTsc.add(Polled - Start);
    if (!Done) {
      failBatch(T, S, *B->Exec, Done.takeError());
    } else if (!*Done) {
      return;
    } else {
      act(W, T, S, S.Descs ? B->Lanes[T.Index]->verdicts(I) : nullptr);
      T.ActTsc.add(rte_rdtsc() - Polled);
    }
    S.B = nullptr;
    S.Descs = nullptr;
    --T.InFlight;
    B->InFlight.fetch_sub(1, std::memory_order_release);
    WaitOne = false;
  }
}

void Dataplane::Impl::drain(Worker &W, Task &T) {
  if (!T.filling().Held.empty()) {
    if (T.InFlight == T.Slots.size())
      reap(W, T, /*WaitOne=*/true);
    submit(T);
  } else if (Slot &S = T.filling(); S.B) {
    // Opened, but every packet it got was dropped before the program.
    S.B->InFlight.fetch_sub(1, std::memory_order_release);
    S.B = nullptr;
    S.Descs = nullptr;
  }
  while (T.InFlight)
    reap(W, T, /*WaitOne=*/true);
}

void Dataplane::Impl::act(Worker &W, Task &T, Slot &S, const ebpfgpu_verdict *Staged) {
  PacketBatch &Batch = S.Batch;
  const size_t Count = S.Held.size();
  uint64_t Packets[NumXdpActions] = {}, Bytes[NumXdpActions] = {};
  uint64_t Invalid = 0, Unknown = 0, PassDropped = 0, Oversized = 0;
  // Where REDIRECT and TX go, read from the table once per batch: a port
  // detached meanwhile stays open until this batch has passed a quiescent
  // point.
  Port *Used[MaxDataplanePorts + 1] = {};
  bool UsedException = false;
  const bool HasException = T.P.Exc != nullptr;
  for (size_t I = 0; I < Count; ++I) {
    // Staged batches' verdicts are the lane's (each checked to stay in its
    // mbuf); the others', the PacketBatch's.
    uint64_t V = Staged ? Staged[I].action : Batch.verdict(I);
    uint32_t Len = Staged ? Staged[I].length : Batch.length(I);
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
      uint64_t Ifindex = Staged ? Staged[I].redirect_target : Batch.redirectTarget(I);
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
      if (HasException)
        D = ExceptionDest;
      else
        ++PassDropped;
      break;
    case XdpAction::Aborted:
    case XdpAction::Drop:
      break;
    }
    rte_mbuf *M = S.Held[I];
    if (D != NoDest) {
      if (Staged) {
        M->data_off = uint16_t(Staged[I].data_offset);
        M->data_len = uint16_t(Len);
        M->pkt_len = Len;
      } else if (Batch.isExternal(I)) {
        // The program ran in the mbuf itself: only its bounds move.
        M->data_off = uint16_t(Batch.offset(I));
        M->data_len = uint16_t(Len);
        M->pkt_len = Len;
      } else if (unlikely(!dpdk::storeResult(M, Batch.data(I), Len))) {
        ++Oversized;
        D = NoDest;
      }
    }
    T.Dest[I] = D;
    if (D == NoDest)
      T.Free.push_back(M);
    else if (D == ExceptionDest)
      UsedException = true;
  }
  if (!T.Free.empty()) {
    // A staged batch's mbufs were checked plain when received (one
    // segment, direct, one reference, from the pool): straight back.
    if (Staged)
      rte_mempool_put_bulk(Pool, reinterpret_cast<void **>(T.Free.data()),
                           unsigned(T.Free.size()));
    else
      freeMbufs(Pool, T.Free.data(), T.Free.size());
  }
  T.Free.clear();
  auto SendTo = [&](uint8_t D, TxTarget &To) {
    size_t N = 0;
    for (size_t I = 0; I < Count; ++I)
      if (T.Dest[I] == D) {
        T.Out[N] = S.Held[I];
        T.OutLens[N++] = rte_pktmbuf_pkt_len(S.Held[I]);
      }
    send(W, To, T.Out.data(), T.OutLens.data(), N);
  };
  for (uint32_t D = 1; D <= MaxDataplanePorts; ++D)
    if (Used[D])
      SendTo(uint8_t(D), Used[D]->Tx);
  if (UsedException)
    SendTo(ExceptionDest, T.P.Exc->Tx);
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
  S.Held.clear();
  Batch.clear();
  uint64_t Done = rte_rdtsc();
  T.Latency.record((Done - S.StartTsc) * 1000000000 / Hz);
  T.LastDoneTsc.add(Done - T.LastDoneTsc.get());
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

void Dataplane::Impl::retire(std::unique_ptr<Binding> B) {
  if (!B)
    return;
  // No worker reads it anew after a grace period; the batches already
  // submitted on it end while their workers go on.
  synchronize();
  while (B->InFlight.load(std::memory_order_acquire) != 0)
    std::this_thread::sleep_for(std::chrono::microseconds(20));
  B->Lanes.clear();
  if (B->Exec.use_count() == 1)
    for (auto &G : GivenMemory)
      if (G.lock() == B->Exec)
        B->Exec->forgetPacketMemory();
}

Expected<std::unique_ptr<Binding>> Dataplane::Impl::bind(std::shared_ptr<BatchExecutor> Exec,
                                                         const std::vector<unsigned> &Workers) {
  if (MaybeError E = giveMemory(Exec))
    return std::move(*E);
  auto B = std::make_unique<Binding>();
  for (unsigned W : Workers) {
    auto L = Exec->openLane(O.Depth, W);
    if (!L)
      return L.takeError().withContext(std::string(Exec->backendName()) + " back end");
    B->Lanes.push_back(std::move(*L));
  }
  B->Exec = std::move(Exec);
  return B;
}

MaybeError Dataplane::Impl::giveMemory(const std::shared_ptr<BatchExecutor> &Exec) {
  if (!O.ZeroCopy)
    return std::nullopt;
  for (auto &G : GivenMemory)
    if (G.lock() == Exec)
      return std::nullopt;
  struct Ranges {
    BatchExecutor &Exec;
    MaybeError Failure;
  } R{*Exec, std::nullopt};
  rte_mempool_mem_iter(
      Pool,
      [](rte_mempool *, void *Opaque, rte_mempool_memhdr *Hdr, unsigned) {
        auto *Rs = static_cast<Ranges *>(Opaque);
        if (!Rs->Failure)
          Rs->Failure = Rs->Exec.usePacketMemory(Hdr->addr, Hdr->len);
      },
      &R);
  GivenMemory.push_back(Exec);
  if (R.Failure)
    return std::move(*R.Failure).withContext("zero-copy packet memory");
  return std::nullopt;
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
    // DPDK's log says why; its return code alone is often a stray errno.
    std::string Log = Eal->takeLog();
    Error E("port '" + D.Given + "': no such device" +
            (Log.empty() ? std::string(": ") + std::strerror(-R) : " (" + Log + ")"));
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

Expected<ExceptionPort *> Dataplane::Impl::openException(const std::string &Given) {
  auto D = dpdk::parseDevice(Given);
  if (!D)
    return D.takeError();
  if (D->Generator)
    return Error("port '" + Given + "': the generator cannot be an exception port");
  if (auto It = Exceptions.find(D->Name); It != Exceptions.end()) {
    ++It->second->Users;
    return It->second.get();
  }
  for (const auto &Q : Ports)
    if (Q->Dev.Name == D->Name)
      return Error("device " + D->Name + " is already in use (port " + std::to_string(Q->Id) +
                   ")");
  auto X = std::make_unique<ExceptionPort>();
  X->Dev = std::move(*D);
  uint16_t EthId;
  MaybeError E = probe(X->Dev, EthId);
  if (!E) {
    E = setUp(X->Dev, EthId, 1, X->Tx);
    if (E)
      closeDevice(EthId);
  }
  if (E) {
    finishOutputs(X->Dev, false);
    return std::move(*E);
  }
  X->Users = 1;
  ExceptionPort *Raw = X.get();
  Exceptions[X->Dev.Name] = std::move(X);
  return Raw;
}

void Dataplane::Impl::releaseException(ExceptionPort *X, bool Keep) {
  if (!X || --X->Users)
    return;
  closeDevice(X->Tx.EthId);
  finishOutputs(X->Dev, Keep);
  Exceptions.erase(X->Dev.Name);
}

void Dataplane::Impl::finishOutputs(const dpdk::DeviceSpec &D, bool Keep) {
  for (const auto &[Final, Tmp] : D.Outputs)
    if (!Keep || std::rename(Tmp.c_str(), Final.c_str()) != 0)
      std::remove(Tmp.c_str());
}

void Dataplane::Impl::closePort(Port &P, bool KeepOutputs) {
  if (P.Gen)
    P.Gen->stop();
  closeDevice(P.Tx.EthId);
  if (P.Gen) {
    P.Gen.reset(); // its rings, after the port made of them
    GenInUse = false;
  }
  finishOutputs(P.Dev, KeepOutputs);
  releaseException(P.Exc, KeepOutputs);
  P.Exc = nullptr;
  retire(std::move(P.Owner));
}

PortStats Dataplane::Impl::snapshot(const Port &P) const {
  PortStats S;
  S.Id = P.Id;
  S.Device = P.Options.Device;
  S.Exception = P.Options.Exception;
  S.Options = P.Options;
  S.Exec = P.Owner ? P.Owner->Exec.get() : nullptr;
  S.Program = S.Exec ? S.Exec->programName() : "";
  S.TxPackets = P.Tx.Packets.get();
  S.TxBytes = P.Tx.Bytes.get();
  S.TxFull = P.Tx.Full.get();
  if (P.Exc) {
    // Over every port sharing the exception device.
    S.PassTxPackets = P.Exc->Tx.Packets.get();
    S.PassTxFull = P.Exc->Tx.Full.get();
  }
  rte_eth_stats St;
  if (rte_eth_stats_get(P.Tx.EthId, &St) == 0) {
    S.RxNoMbuf = St.rx_nombuf;
    S.RxMissed = St.imissed;
    S.RxErrors = St.ierrors;
    S.TxErrors = St.oerrors;
  }
  if (P.Gen) {
    S.Generated = P.Gen->generated();
    S.GenNoMbuf = P.Gen->noMbuf();
  }
  auto Ns = [&](uint64_t Tsc) {
    return Tsc > StartTsc ? (Tsc - StartTsc) * 1000000000 / Hz : 0;
  };
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
    Q.SubmitNs = T->SubmitTsc.get() * 1000000000 / Hz;
    Q.WaitNs = T->WaitTsc.get() * 1000000000 / Hz;
    Q.ActNs = T->ActTsc.get() * 1000000000 / Hz;
    Q.BackendNs = Q.SubmitNs + Q.WaitNs;
    T->Latency.addTo(Q.Latency);
    Q.Oversized = T->Oversized.get();
    Q.RedirectUnknown = T->RedirectUnknown.get();
    Q.PassDropped = T->PassDropped.get();
    Q.ExecFailed = T->ExecFailed.get();
    Q.FirstRxNs = Ns(T->FirstRxTsc.get());
    Q.LastDoneNs = Ns(T->LastDoneTsc.get());
    if (S.FirstFailure.empty() && T->Failed.load(std::memory_order_acquire))
      S.FirstFailure = T->FirstFailure;
    S.Queues.push_back(std::move(Q));
  }
  return S;
}

Dataplane::Dataplane(std::unique_ptr<Impl> I) : P(std::move(I)) {}

Dataplane::~Dataplane() { stop(); }

Expected<std::unique_ptr<Dataplane>> Dataplane::start(const DataplaneOptions &O) {
  if (O.Workers < 1 || O.Workers > MaxDataplaneWorkers)
    return Error("workers must be 1 to " + std::to_string(MaxDataplaneWorkers));
  if (O.Depth < 1 || O.Depth > MaxDepth)
    return Error("batches in flight per queue must be 1 to " + std::to_string(MaxDepth));
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
  const unsigned Lcores = O.Workers + O.GenLcores + 1;
  auto E = dpdk::Eal::init({}, Lcores, MemoryMb, Extra);
  if (!E)
    return E.takeError();
  I->Eal = std::move(*E);
  if (rte_lcore_count() < Lcores)
    return Error("the data plane needs " + std::to_string(Lcores) +
                 " lcores (the workers, the generator's and the main one); the EAL has " +
                 std::to_string(rte_lcore_count()));
  I->Pool = rte_pktmbuf_pool_create("ebpfgpu_mbufs", Mbufs, MbufCache, 0, uint16_t(DataRoom),
                                    int(rte_socket_id()));
  if (!I->Pool)
    return Error(dpdk::withLog("cannot allocate " + std::to_string(Mbufs) + " mbufs of " +
                                   std::to_string(DataRoom) + " bytes: " + rte_strerror(rte_errno),
                               *I->Eal));
  I->Eal->logToStderr();
  I->Hz = rte_get_tsc_hz();
  I->StartTsc = rte_rdtsc();
  I->ReapTsc = I->Hz / 500000; // 2 us
  I->Budget = O.Count;
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
    if (Next == I->Workers.size()) {
      if (I->GenLcores.size() < O.GenLcores)
        I->GenLcores.push_back(Lcore);
      continue;
    }
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

uint64_t Dataplane::received() const {
  uint64_t N = 0;
  for (const auto &Pt : P->Ports)
    for (const auto &T : Pt->Tasks)
      N += T->RxPackets.get();
  return N;
}

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
  for (const auto &Q : I.Ports)
    if (Q->Dev.Name == Dev->Name)
      return Error("device " + Dev->Name + " is already in use (port " + std::to_string(Q->Id) +
                   ")");
  if (I.Exceptions.count(Dev->Name))
    return Error("device " + Dev->Name + " is already in use (an exception port)");
  if (Dev->Generator) {
    if (I.GenInUse)
      return Error("at most one generator port");
    if (I.GenLcores.empty())
      return Error("port '" + O.Device + "': the data plane has no lcore for a generator");
    if (!O.GenPackets)
      return Error("port '" + O.Device + "': no packets for the generator to send (--gen-pcap)");
  }
  uint32_t Id = 1;
  while (Id <= MaxDataplanePorts && I.Table[Id].load())
    ++Id;
  if (Id > MaxDataplanePorts)
    return Error("at most " + std::to_string(MaxDataplanePorts) + " ports");

  auto Pt = std::make_unique<Port>();
  Pt->Id = Id;
  Pt->Options = O;
  Pt->Dev = *Dev;
  Pt->Receiving = !O.Paused;
  uint16_t EthId;
  if (Dev->Generator) {
    auto G = dpdk::Generator::create(Dev->Name, *O.GenPackets, std::min(O.GenFrame, I.O.MaxFrame),
                                     uint16_t(O.Queues), uint16_t(I.Workers.size()),
                                     unsigned(I.GenLcores.size()), I.Pool);
    if (!G)
      return G.takeError();
    Pt->Gen = std::move(*G);
    EthId = Pt->Gen->port();
  } else if (MaybeError E = I.probe(Pt->Dev, EthId)) {
    return std::move(*E);
  }
  auto Undo = [&](Error E) -> Error {
    if (Pt->Gen)
      Pt->Gen->stop();
    I.closeDevice(EthId);
    Pt->Gen.reset();
    I.finishOutputs(Pt->Dev, false);
    I.releaseException(Pt->Exc, false);
    return E;
  };
  if (MaybeError E = I.setUp(Pt->Dev, EthId, uint16_t(O.Queues), Pt->Tx))
    return Undo(std::move(*E));
  if (!O.Exception.empty()) {
    auto X = I.openException(O.Exception);
    if (!X)
      return Undo(X.takeError());
    if ((*X)->Dev.Name == Dev->Name)
      return Undo(Error("port '" + O.Device + "': its exception port is the port itself"));
    Pt->Exc = *X;
  }
  // Each rx queue to the worker with the fewest.
  std::vector<size_t> Load(I.Workers.size());
  for (size_t W = 0; W < I.Workers.size(); ++W)
    Load[W] = I.Workers[W]->Owned->size();
  std::vector<unsigned> TaskWorker;
  for (uint32_t Q = 0; Q < O.Queues; ++Q) {
    size_t W = size_t(std::min_element(Load.begin(), Load.end()) - Load.begin());
    ++Load[W];
    TaskWorker.push_back(unsigned(W));
  }
  auto B = I.bind(std::move(Exec), TaskWorker);
  if (!B)
    return Undo(B.takeError());
  Pt->Owner = std::move(*B);
  Pt->Prog.store(Pt->Owner.get(), std::memory_order_release);
  std::vector<std::vector<Task *>> Added(I.Workers.size());
  for (uint32_t Q = 0; Q < O.Queues; ++Q) {
    unsigned W = TaskWorker[Q];
    Pt->Tasks.push_back(std::make_unique<Task>(*Pt, uint16_t(Q), unsigned(Q), W, O.BatchSize,
                                               I.O.MaxFrame, I.O.Depth));
    for (auto &S : Pt->Tasks.back()->Slots)
      S->Batch.setIngress(Id, Q);
    Pt->Tasks.back()->TimeoutTsc = I.Hz * O.TimeoutUs / 1000000;
    Added[W].push_back(Pt->Tasks.back().get());
  }
  if (Pt->Gen)
    if (MaybeError E = Pt->Gen->start(I.GenLcores)) {
      Error Err = std::move(*E);
      I.retire(std::move(Pt->Owner));
      return Undo(std::move(Err));
    }
  I.GenInUse = I.GenInUse || Pt->Gen != nullptr;
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

MaybeError Dataplane::resume(uint32_t Id) {
  Port *Pt = Id >= 1 && Id <= MaxDataplanePorts ? P->Table[Id].load() : nullptr;
  if (!Pt)
    return Error("no port " + std::to_string(Id));
  Pt->Receiving.store(true, std::memory_order_release);
  return std::nullopt;
}

MaybeError Dataplane::replace(uint32_t Id, std::shared_ptr<BatchExecutor> Exec) {
  Impl &I = *P;
  Port *Pt = Id >= 1 && Id <= MaxDataplanePorts ? I.Table[Id].load() : nullptr;
  if (!Pt)
    return Error("no port " + std::to_string(Id));
  std::vector<unsigned> TaskWorker;
  for (const auto &T : Pt->Tasks)
    TaskWorker.push_back(T->Worker);
  auto B = I.bind(std::move(Exec), TaskWorker);
  if (!B)
    return B.takeError();
  std::unique_ptr<Binding> Old = std::move(Pt->Owner);
  Pt->Owner = std::move(*B);
  Pt->Prog.store(Pt->Owner.get(), std::memory_order_seq_cst);
  // Batches that read the old program before the switch end (retire waits
  // for them) before it is released.
  I.retire(std::move(Old));
  return std::nullopt;
}

Expected<PortStats> Dataplane::detach(uint32_t Id, bool KeepOutputs) {
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
  I.closePort(*Pt, KeepOutputs);
  I.Ports.erase(
      std::find_if(I.Ports.begin(), I.Ports.end(), [&](const auto &Q) { return Q.get() == Pt; }));
  return Final;
}

void Dataplane::stopReceiving() {
  Impl &I = *P;
  for (auto &Pt : I.Ports)
    for (auto &T : Pt->Tasks)
      T->StopRx.store(true, std::memory_order_release);
  for (auto &Pt : I.Ports)
    for (auto &T : Pt->Tasks)
      while (!T->Stopped.load(std::memory_order_acquire) && !I.Workers[T->Worker]->Offline.load())
        std::this_thread::sleep_for(std::chrono::microseconds(50));
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
  for (auto &Pt : I.Ports)
    if (Pt->Gen)
      Pt->Gen->stop();
  I.Quit = true;
  rte_eal_mp_wait_lcore();
  for (auto &Pt : I.Ports)
    I.closePort(*Pt, true);
  I.Ports.clear();
  for (auto &W : I.Workers)
    W->Owned.reset();
  for (auto &G : I.GivenMemory)
    if (auto Exec = G.lock())
      Exec->forgetPacketMemory();
  I.GivenMemory.clear();
  if (I.Pool)
    rte_mempool_free(I.Pool);
  I.Pool = nullptr;
  I.Eal.reset();
}

} // namespace ebpfgpu::runtime

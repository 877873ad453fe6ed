// SPDX-License-Identifier: Apache-2.0
//
// Private to the DPDK runtime: the one data plane's state (Dataplane.h),
// shared by its control side (DpdkDataplane.cpp: ports, programs, workers
// started and retired) and its workers' packet path (DataplaneWorker.cpp).

#ifndef EBPF_GPU_RUNTIME_LIB_DATAPLANEIMPL_H
#define EBPF_GPU_RUNTIME_LIB_DATAPLANEIMPL_H

#include "ebpf-gpu/Runtime/Dataplane.h"
#include "Counters.h"
#include "DpdkEal.h"
#include "DpdkGenerator.h"
#include "DpdkPort.h"
#include "RxMeta.h"
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

namespace dataplane {

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
  /// The lane copies staged packets' first bytes (BatchLane::readsPacketBytes):
  /// their lines are fetched as they come.
  bool PrefetchData = false;
  /// The program calls the XDP RX metadata kfuncs (BatchExecutor::
  /// readsRxMetadata): each packet's buffer starts with its metadata.
  bool RxMeta = false;
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
    Copies.reserve(BatchSize);
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
  /// Copies of the batch's broadcasts, each with its port id (the packets
  /// themselves are in Dest).
  std::vector<std::pair<uint8_t, rte_mbuf *>> Copies;
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
  Counter BroadcastCopies, BroadcastFailed, RedirectCpu, RedirectXsk, XskRefused;
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
  /// Where its driver keeps rx timestamps (registered when it was probed).
  RxTimestampField RxTs;
  /// What workers run; Owner keeps it alive (replaced under a grace period).
  std::atomic<Binding *> Prog{nullptr};
  std::unique_ptr<Binding> Owner;
  /// False while attached with AttachOptions::Paused.
  std::atomic<bool> Receiving{true};
  std::vector<std::unique_ptr<Task>> Tasks;
  std::unique_ptr<dpdk::Generator> Gen;
};

/// An xskmap consumer in one word (ports and queues are under 256).
constexpr uint32_t XskBound = 1u << 31;
inline uint32_t packXsk(const XskConsumer &C) {
  return XskBound | C.Ifindex << 16 | C.Queue << 8 | C.Port;
}
inline XskConsumer unpackXsk(uint32_t W) {
  return {W >> 16 & 0xff, W >> 8 & 0xff, W & 0xff};
}
static_assert(MaxDataplanePorts < 256);

constexpr uint8_t ExceptionDest = 0xfe, NoDest = 0xff;
static_assert(MaxDataplanePorts < ExceptionDest);

/// What act() counts in one batch, added to its task's counters once at
/// the end (countActs).
struct ActCounts {
  uint64_t Packets[NumXdpActions] = {}, Bytes[NumXdpActions] = {};
  uint64_t Invalid = 0, Unknown = 0, PassDropped = 0, Oversized = 0;
  uint64_t Copies = 0, CopyFailed = 0, ToCpu = 0, ToXsk = 0, XskRefused = 0;
};

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

} // namespace dataplane

// The control side and the workers name these types unqualified.
using namespace dataplane;

struct Dataplane::Impl {
  DataplaneOptions O;
  std::unique_ptr<dpdk::Eal> Eal;
  rte_mempool *Pool = nullptr;
  std::vector<std::unique_ptr<Worker>> Workers;
  std::vector<unsigned> GenLcores; ///< kept for a generator port
  bool GenInUse = false;
  /// Ports by id (= ifindex); what REDIRECT looks up.
  std::array<std::atomic<Port *>, MaxDataplanePorts + 1> Table{};
  /// xskmap consumers by id (packXsk; 0: none): one word each, so that
  /// the control thread rebinds one while workers read it.
  std::array<std::atomic<uint32_t>, MaxXskConsumers + 1> Xsk{};
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
  /// The filling slot `S` lets go of its program (nothing received in it).
  void close(Task &T, Slot &S);
  void gather(Task &T, Slot &S, rte_mbuf **Rx, uint16_t N);
  static void unstage(Slot &S);
  void submit(Task &T);
  void reap(Worker &W, Task &T, bool WaitOne);
  void drain(Worker &W, Task &T);
  void failBatch(Task &T, Slot &S, BatchExecutor &Exec, const Error &E);
  void act(Worker &W, Task &T, Slot &S, const ebpfgpu_verdict *Staged);
  // act()'s pieces, per packet or per batch: inline, defined beside act()
  // (the worker's file), the only place they are called.
  /// Where a packet of task `T` that the program redirects to `Ifindex`
  /// goes (a port id, ExceptionDest, or NoDest), each port marked in `Used`;
  /// a broadcast's other ports in `Copy` (broadcastPorts).
  inline uint8_t redirectDest(Task &T, uint64_t Ifindex, bool HasException, Port **Used,
                              uint32_t &Copy, ActCounts &N);
  /// A copy of `M` in T.Copies for each port in `Copy` (bit id - 1).
  inline void copyBroadcast(Task &T, rte_mbuf *M, uint32_t Copy, ActCounts &N);
  inline void countActs(Task &T, const ActCounts &N);
  /// act()'s second half: frees the packets of slot `S` that go nowhere
  /// (`Staged`: straight back to the pool) and sends the others, and the
  /// broadcasts' copies, to the ports `Used` marks and (`UsedException`)
  /// the exception port.
  void transmit(Worker &W, Task &T, Slot &S, Port *const *Used, bool UsedException,
                bool Staged);
  /// A broadcast's set of ports (EBPFGPU_REDIRECT_BROADCAST): the port the
  /// packet itself goes to (NoDest: none is a port), the others in `Copy`
  /// (bit id - 1), each marked in `Used`; members that are no port counted
  /// in `Failed`.
  uint8_t broadcastPorts(uint32_t Set, Port **Used, uint32_t &Copy, uint64_t &Failed);
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

} // namespace ebpfgpu::runtime

#endif // EBPF_GPU_RUNTIME_LIB_DATAPLANEIMPL_H

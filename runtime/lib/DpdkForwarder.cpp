// SPDX-License-Identifier: Apache-2.0
//
// The forwarding loop over DPDK ports. Each worker owns one rx queue of one
// port and a tx queue on every port (shared under a spinlock only where a
// port has fewer tx queues than there are workers). It gathers rx bursts
// into a PacketBatch until the batch is full or its first packet has
// waited the timeout, has the executor run the program, copies each result
// back into its mbuf and sends it where the verdict says, then frees the
// rest. The main lcore only watches: stop conditions, the stop flag,
// progress. Counters are written by one worker each and read by the main
// lcore without locks.

#include "ebpf-gpu/Runtime/DpdkForwarder.h"

#include "Counters.h"
#include "DpdkEal.h"
#include "DpdkGenerator.h"
#include "DpdkPort.h"

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_spinlock.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

namespace ebpfgpu::runtime {

namespace {

constexpr uint16_t RxBurst = 32;
constexpr uint16_t RxDescs = 1024, TxDescs = 1024;
/// tx bursts that accept nothing before the rest of the packets are dropped.
constexpr unsigned TxStallLimit = 64;
constexpr unsigned MbufCache = 256;

struct EgressCounters {
  Counter Packets, Bytes, Full;
};

struct WorkerCounters {
  explicit WorkerCounters(size_t Egresses) : Egress(Egresses) {}
  Counter RxPackets, RxBytes;
  Counter ActPackets[NumXdpActions], ActBytes[NumXdpActions];
  Counter Invalid, Oversized, RedirectUnknown, PassDropped, ExecFailed;
  /// TSC of the first packet received and of the end of the last batch.
  Counter FirstRxTsc, LastDoneTsc;
  std::vector<EgressCounters> Egress; ///< per port index; the exception port last
};

/// What every worker shares: the executor, the ports, the stop state.
struct Shared {
  Shared(BatchExecutor &Exec, const ForwardOptions &O) : Exec(Exec), O(O) {}
  BatchExecutor &Exec;
  const ForwardOptions &O;
  std::vector<uint16_t> PortIds;  ///< per port index; the exception port last
  std::vector<uint16_t> TxQueues; ///< per port index
  /// Per port index, a lock per tx queue (used where workers share one).
  std::vector<std::unique_ptr<rte_spinlock_t[]>> TxLocks;
  unsigned Workers = 0;
  bool HasException = false;
  std::atomic<bool> Quit{false};
  /// Packets still to receive when Count limits the run.
  std::atomic<uint64_t> Budget{0};
  uint64_t TimeoutTsc = 0, IdleTsc = 0, Hz = 1;

  std::mutex FailureLock;
  MaybeError Failure;
  void fail(Error E) {
    std::lock_guard Lock(FailureLock);
    if (!Failure)
      Failure = std::move(E);
    Quit = true;
  }
};

class Worker {
public:
  Worker(Shared &S, unsigned Index, unsigned PortIdx, uint16_t Queue)
      : C(S.PortIds.size()), PortIdx(PortIdx), S(S), Queue(Queue), Batch(S.O.MaxFrame),
        Scratch(S.O.MaxFrame) {
    Batch.reserve(S.O.BatchSize);
    Batch.setIngress(PortIdx + 1, Queue);
    Held.reserve(S.O.BatchSize);
    Free.reserve(S.O.BatchSize);
    Outs.resize(S.PortIds.size());
    for (size_t P = 0; P < S.PortIds.size(); ++P) {
      Outs[P].Pkts.resize(S.O.BatchSize);
      Outs[P].Lens.resize(S.O.BatchSize);
      uint16_t Q = uint16_t(Index % S.TxQueues[P]);
      Outs[P].Queue = Q;
      Outs[P].Lock = S.TxQueues[P] < S.Workers ? &S.TxLocks[P][Q] : nullptr;
    }
  }

  static int main(void *Self) { return static_cast<Worker *>(Self)->loop(); }

  WorkerCounters C;
  /// Nothing to do for now: no packet for IdleMs, or Count reached; the
  /// worker's batch has been run.
  std::atomic<bool> Idle{false};
  const unsigned PortIdx;

private:
  struct Out {
    std::vector<rte_mbuf *> Pkts;
    std::vector<uint32_t> Lens;
    size_t N = 0;
    uint16_t Queue = 0;
    rte_spinlock_t *Lock = nullptr;
  };

  int loop();
  uint16_t claim(uint16_t Want);
  void gather(rte_mbuf **Rx, uint16_t N);
  void flush();
  void send(size_t Dest);

  Shared &S;
  const uint16_t Queue;
  PacketBatch Batch;
  std::vector<rte_mbuf *> Held, Free;
  std::vector<Out> Outs;
  std::vector<uint8_t> Scratch;
};

uint16_t Worker::claim(uint16_t Want) {
  uint64_t Left = S.Budget.load();
  uint64_t Take;
  do {
    if (Left == 0)
      return 0;
    Take = std::min<uint64_t>(Left, Want);
  } while (!S.Budget.compare_exchange_weak(Left, Left - Take));
  return uint16_t(Take);
}

int Worker::loop() {
  const uint16_t Port = S.PortIds[PortIdx];
  const bool Limited = S.O.Count != 0;
  uint64_t LastRx = rte_rdtsc(), BatchStart = 0;
  bool IsIdle = false;
  rte_mbuf *Rx[RxBurst];
  while (!S.Quit.load(std::memory_order_relaxed) &&
         !(S.O.Stop && S.O.Stop->load(std::memory_order_relaxed))) {
    uint16_t Want = uint16_t(std::min<size_t>(RxBurst, S.O.BatchSize - Held.size()));
    if (Limited) {
      if (S.Budget.load() == 0) {
        if (!IsIdle) {
          flush();
          Idle = IsIdle = true;
        }
        rte_pause();
        continue;
      }
      if (IsIdle)
        Idle = IsIdle = false; // before claiming: the main lcore must not stop us now
      Want = claim(Want);
    }
    uint16_t N = Want ? rte_eth_rx_burst(Port, Queue, Rx, Want) : 0;
    if (Limited && N < Want)
      S.Budget += Want - N;
    uint64_t Now = rte_rdtsc();
    if (unlikely(N == 0)) {
      if (!Held.empty() && Now - BatchStart >= S.TimeoutTsc)
        flush();
      if (S.IdleTsc && !IsIdle && Now - LastRx >= S.IdleTsc) {
        flush();
        Idle = IsIdle = true;
      }
      continue;
    }
    LastRx = Now;
    if (unlikely(C.FirstRxTsc.get() == 0))
      C.FirstRxTsc.add(Now);
    if (IsIdle)
      Idle = IsIdle = false;
    if (Held.empty())
      BatchStart = Now;
    gather(Rx, N);
    if (Held.size() == S.O.BatchSize || Now - BatchStart >= S.TimeoutTsc)
      flush();
  }
  flush();
  return 0;
}

void Worker::gather(rte_mbuf **Rx, uint16_t N) {
  uint64_t Bytes = 0;
  for (uint16_t I = 0; I < N; ++I) {
    rte_mbuf *M = Rx[I];
    uint32_t Len = rte_pktmbuf_pkt_len(M);
    Bytes += Len;
    if (unlikely(Len > S.O.MaxFrame)) {
      C.Oversized.add(1);
      rte_pktmbuf_free(M);
      continue;
    }
    if (S.O.ZeroCopy && rte_pktmbuf_is_contiguous(M)) {
      Batch.addExternal(static_cast<uint8_t *>(M->buf_addr), M->buf_len, M->data_off, Len);
    } else {
      // Contiguous in the mbuf (one segment) or copied into Scratch.
      const auto *Data =
          static_cast<const uint8_t *>(rte_pktmbuf_read(M, 0, Len, Scratch.data()));
      Batch.add(Data, Len);
    }
    Held.push_back(M);
  }
  C.RxPackets.add(N);
  C.RxBytes.add(Bytes);
}

void Worker::flush() {
  if (Held.empty())
    return;
  if (MaybeError E = S.Exec.run(Batch)) {
    S.fail(std::move(*E).withContext(std::string(S.Exec.backendName()) + " back end"));
    C.ExecFailed.add(Held.size());
    rte_pktmbuf_free_bulk(Held.data(), unsigned(Held.size()));
    Held.clear();
    Batch.clear();
    return;
  }
  uint64_t Packets[NumXdpActions] = {}, Bytes[NumXdpActions] = {};
  uint64_t Invalid = 0, Unknown = 0, PassDropped = 0, Oversized = 0;
  const size_t NumPorts = S.O.Ports.size();
  for (size_t I = 0; I < Held.size(); ++I) {
    uint64_t V = Batch.verdict(I);
    uint32_t Len = Batch.length(I);
    if (unlikely(V >= NumXdpActions)) {
      ++Invalid;
      V = uint64_t(XdpAction::Aborted);
    }
    ++Packets[V];
    Bytes[V] += Len;
    size_t Dest = SIZE_MAX;
    switch (XdpAction(V)) {
    case XdpAction::Tx:
      Dest = PortIdx;
      break;
    case XdpAction::Redirect: {
      uint64_t Ifindex = Batch.redirectTarget(I);
      if (Ifindex >= 1 && Ifindex <= NumPorts)
        Dest = size_t(Ifindex - 1);
      else
        ++Unknown;
      break;
    }
    case XdpAction::Pass:
      if (S.HasException)
        Dest = NumPorts;
      else
        ++PassDropped;
      break;
    case XdpAction::Aborted:
    case XdpAction::Drop:
      break;
    }
    rte_mbuf *M = Held[I];
    if (Dest == SIZE_MAX) {
      Free.push_back(M);
      continue;
    }
    if (Batch.isExternal(I)) {
      // The program ran in the mbuf itself: only its bounds move.
      M->data_off = uint16_t(Batch.offset(I));
      M->data_len = uint16_t(Len);
      M->pkt_len = Len;
    } else if (unlikely(!dpdk::storeResult(M, Batch.data(I), Len))) {
      ++Oversized;
      Free.push_back(M);
      continue;
    }
    Out &O = Outs[Dest];
    O.Pkts[O.N] = M;
    O.Lens[O.N++] = Len;
  }
  if (!Free.empty())
    rte_pktmbuf_free_bulk(Free.data(), unsigned(Free.size()));
  Free.clear();
  for (size_t D = 0; D < Outs.size(); ++D)
    if (Outs[D].N)
      send(D);
  for (unsigned A = 0; A < NumXdpActions; ++A) {
    if (Packets[A]) {
      C.ActPackets[A].add(Packets[A]);
      C.ActBytes[A].add(Bytes[A]);
    }
  }
  if (Invalid | Unknown | PassDropped | Oversized) {
    C.Invalid.add(Invalid);
    C.RedirectUnknown.add(Unknown);
    C.PassDropped.add(PassDropped);
    C.Oversized.add(Oversized);
  }
  Held.clear();
  Batch.clear();
  uint64_t Done = rte_rdtsc();
  C.LastDoneTsc.add(Done - C.LastDoneTsc.get());
}

void Worker::send(size_t Dest) {
  Out &O = Outs[Dest];
  uint16_t Port = S.PortIds[Dest];
  size_t Sent = 0;
  unsigned Stalls = 0;
  if (O.Lock)
    rte_spinlock_lock(O.Lock);
  while (Sent < O.N) {
    uint16_t K = rte_eth_tx_burst(Port, O.Queue, O.Pkts.data() + Sent,
                                  uint16_t(std::min<size_t>(O.N - Sent, 512)));
    Sent += K;
    if (K == 0 && ++Stalls > TxStallLimit)
      break;
  }
  if (O.Lock)
    rte_spinlock_unlock(O.Lock);
  uint64_t Bytes = 0;
  for (size_t I = 0; I < Sent; ++I)
    Bytes += O.Lens[I];
  EgressCounters &E = C.Egress[Dest];
  E.Packets.add(Sent);
  E.Bytes.add(Bytes);
  if (Sent < O.N) {
    E.Full.add(O.N - Sent);
    rte_pktmbuf_free_bulk(O.Pkts.data() + Sent, unsigned(O.N - Sent));
  }
  O.N = 0;
}

/// Ports that were started, stopped and closed (which flushes net_pcap
/// output files) when the run ends, however it ends.
class Session {
public:
  ~Session() {
    closePorts();
    Gen.reset(); // its rings, after the port made of them, before the EAL
    if (Exec)
      Exec->forgetPacketMemory(); // the mbuf pool goes with the EAL
    EalUp.reset();
    for (const auto &[Final, Tmp] : Outputs) {
      if (!Succeeded || std::rename(Tmp.c_str(), Final.c_str()) != 0)
        std::remove(Tmp.c_str());
    }
  }
  void closePorts() {
    for (uint16_t P : Started) {
      rte_eth_dev_stop(P);
      rte_eth_dev_close(P);
    }
    Started.clear();
  }
  std::unique_ptr<dpdk::Eal> EalUp;
  std::unique_ptr<dpdk::Generator> Gen;
  BatchExecutor *Exec = nullptr; ///< was given the mbuf pool's memory
  std::vector<uint16_t> Started;
  std::vector<std::pair<std::string, std::string>> Outputs;
  bool Succeeded = false;
};

ForwardReport snapshot(const Shared &S, const std::vector<std::unique_ptr<Worker>> &Workers,
                       const std::vector<dpdk::DeviceSpec> &Devices) {
  ForwardReport R;
  R.Workers = unsigned(Workers.size());
  for (size_t P = 0; P < S.PortIds.size(); ++P) {
    PortReport PR;
    PR.Device = Devices[P].Given;
    PR.Exception = S.HasException && P == S.PortIds.size() - 1;
    for (const auto &W : Workers) {
      const WorkerCounters &C = W->C;
      if (W->PortIdx == P) {
        PR.RxPackets += C.RxPackets.get();
        PR.RxBytes += C.RxBytes.get();
        for (unsigned A = 0; A < NumXdpActions; ++A) {
          PR.Actions.Packets[A] += C.ActPackets[A].get();
          PR.Actions.Bytes[A] += C.ActBytes[A].get();
        }
        PR.Actions.Invalid += C.Invalid.get();
      }
      PR.TxPackets += C.Egress[P].Packets.get();
      PR.TxBytes += C.Egress[P].Bytes.get();
      PR.TxFull += C.Egress[P].Full.get();
    }
    R.RxPackets += PR.RxPackets;
    R.RxBytes += PR.RxBytes;
    for (unsigned A = 0; A < NumXdpActions; ++A) {
      R.Actions.Packets[A] += PR.Actions.Packets[A];
      R.Actions.Bytes[A] += PR.Actions.Bytes[A];
    }
    R.Actions.Invalid += PR.Actions.Invalid;
    R.Ports.push_back(std::move(PR));
  }
  uint64_t First = UINT64_MAX, Last = 0;
  for (const auto &W : Workers) {
    if (W->C.FirstRxTsc.get())
      First = std::min(First, W->C.FirstRxTsc.get());
    Last = std::max(Last, W->C.LastDoneTsc.get());
    R.Oversized += W->C.Oversized.get();
    R.RedirectUnknown += W->C.RedirectUnknown.get();
    R.PassDropped += W->C.PassDropped.get();
    R.ExecFailed += W->C.ExecFailed.get();
  }
  if (First != UINT64_MAX && Last > First)
    R.BusySeconds = double(Last - First) / double(S.Hz);
  return R;
}

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
  return std::nullopt;
}

} // namespace

Expected<ForwardReport> forward(BatchExecutor &Exec, const ForwardOptions &O,
                                const ForwardHooks &Hooks) {
  if (MaybeError E = checkOptions(O))
    return std::move(*E);
  std::vector<dpdk::DeviceSpec> Devices;
  std::set<std::string> Names;
  for (size_t I = 0; I <= O.Ports.size(); ++I) {
    if (I == O.Ports.size() && O.Exception.empty())
      break;
    auto D = dpdk::parseDevice(I < O.Ports.size() ? O.Ports[I] : O.Exception);
    if (!D)
      return D.takeError();
    if (!Names.insert(D->Name).second)
      return Error("port '" + D->Given + "': device " + D->Name + " is named twice");
    Devices.push_back(std::move(*D));
  }

  Shared S(Exec, O);
  S.Workers = unsigned(O.Ports.size() * O.Queues);
  S.HasException = !O.Exception.empty();
  Session Run;
  for (const dpdk::DeviceSpec &D : Devices)
    Run.Outputs.insert(Run.Outputs.end(), D.Outputs.begin(), D.Outputs.end());

  // Enough mbufs for every ring to be full, every worker to hold a batch
  // and a burst, and every lcore cache.
  uint32_t DataRoom = RTE_PKTMBUF_HEADROOM + O.MaxFrame + XdpHeadroom;
  uint64_t Mbufs = O.Mbufs;
  if (!Mbufs) {
    Mbufs = uint64_t(Devices.size()) * (RxDescs * O.Queues + TxDescs * S.Workers) +
            uint64_t(S.Workers) * (O.BatchSize + RxBurst) + uint64_t(S.Workers + 1) * MbufCache;
    uint64_t Pow = 8192;
    while (Pow - 1 < Mbufs)
      Pow *= 2;
    Mbufs = Pow - 1;
  }
  unsigned MemoryMb = unsigned(128 + (Mbufs * (DataRoom + 512) * 3 / 2 >> 20));
  size_t GenPorts = 0;
  for (const dpdk::DeviceSpec &D : Devices)
    GenPorts += D.Generator;
  if (GenPorts > 1)
    return Error("at most one generator port");
  if (GenPorts && !O.GenPackets)
    return Error("port 'gen': no packets for the generator to send (--gen-pcap)");
  const unsigned Lcores = S.Workers + 1 + unsigned(GenPorts);

  auto EalUp = dpdk::Eal::init(Devices, Lcores, MemoryMb, O.EalArgs);
  if (!EalUp)
    return EalUp.takeError();
  Run.EalUp = std::move(*EalUp);
  dpdk::Eal &E = *Run.EalUp;

  if (rte_lcore_count() < Lcores)
    return Error("the run needs " + std::to_string(Lcores) +
                 " lcores (one per rx queue, the generator's and the main one); the EAL has " +
                 std::to_string(rte_lcore_count()));
  rte_mempool *Pool = rte_pktmbuf_pool_create("ebpfgpu_mbufs", unsigned(Mbufs), MbufCache, 0,
                                              uint16_t(DataRoom), int(rte_socket_id()));
  if (!Pool)
    return Error(dpdk::withLog("cannot allocate " + std::to_string(Mbufs) + " mbufs of " +
                             std::to_string(DataRoom) + " bytes: " + rte_strerror(rte_errno),
                         E));
  if (O.ZeroCopy) {
    // The back end runs packets in the mbufs: it gets to map their memory.
    struct Ranges {
      BatchExecutor &Exec;
      MaybeError Failure;
    } R{Exec, std::nullopt};
    rte_mempool_mem_iter(
        Pool,
        [](rte_mempool *, void *Opaque, rte_mempool_memhdr *Hdr, unsigned) {
          auto *Rs = static_cast<Ranges *>(Opaque);
          if (!Rs->Failure)
            Rs->Failure = Rs->Exec.usePacketMemory(Hdr->addr, Hdr->len);
        },
        &R);
    Run.Exec = &Exec;
    if (R.Failure)
      return std::move(*R.Failure).withContext("zero-copy packet memory");
  }
  std::unique_ptr<dpdk::Generator> &Gen = Run.Gen;
  for (size_t P = 0; P < Devices.size(); ++P) {
    const dpdk::DeviceSpec &D = Devices[P];
    if (!D.Generator)
      continue;
    bool IsException = S.HasException && P == Devices.size() - 1;
    auto G = dpdk::Generator::create(D.Name, *O.GenPackets, std::min(O.GenFrame, O.MaxFrame),
                                     IsException ? 1 : uint16_t(O.Queues), uint16_t(S.Workers),
                                     Pool);
    if (!G)
      return G.takeError();
    Gen = std::move(*G);
  }
  for (const dpdk::DeviceSpec &D : Devices) {
    uint16_t Id;
    if (D.Generator) {
      S.PortIds.push_back(Gen->port());
      continue;
    }
    if (rte_eth_dev_get_port_by_name(D.Name.c_str(), &Id) != 0)
      return Error(dpdk::withLog("port '" + D.Given + "': no such device", E));
    S.PortIds.push_back(Id);
  }
  for (size_t P = 0; P < Devices.size(); ++P) {
    bool IsException = S.HasException && P == Devices.size() - 1;
    rte_eth_dev_info Info;
    if (int R = rte_eth_dev_info_get(S.PortIds[P], &Info))
      return Error(dpdk::withLog("port '" + Devices[P].Given + "': " + std::strerror(-R), E));
    uint16_t RxQueues = IsException ? 1 : uint16_t(O.Queues);
    if (RxQueues > Info.max_rx_queues)
      return Error("port '" + Devices[P].Given + "': has " + std::to_string(Info.max_rx_queues) +
                   " rx queue(s); " + std::to_string(RxQueues) + " asked for");
    uint16_t TxQueues = uint16_t(std::min<uint32_t>(S.Workers, Info.max_tx_queues));
    if (TxQueues == 0)
      return Error("port '" + Devices[P].Given + "': cannot transmit (no tx queue)");
    if (MaybeError Err = dpdk::setUpPort(S.PortIds[P], Devices[P], RxQueues, TxQueues, RxDescs,
                                         TxDescs, Pool, E))
      return std::move(*Err);
    Run.Started.push_back(S.PortIds[P]);
    S.TxQueues.push_back(TxQueues);
    S.TxLocks.push_back(std::make_unique<rte_spinlock_t[]>(TxQueues));
    for (uint16_t Q = 0; Q < TxQueues; ++Q)
      rte_spinlock_init(&S.TxLocks.back()[Q]);
  }
  E.logToStderr();

  uint64_t Hz = rte_get_tsc_hz();
  S.Hz = Hz;
  S.TimeoutTsc = Hz * O.TimeoutUs / 1000000;
  S.IdleTsc = Hz * O.IdleMs / 1000;
  S.Budget = O.Count;
  std::vector<std::unique_ptr<Worker>> Workers;
  for (unsigned P = 0; P < O.Ports.size(); ++P)
    for (unsigned Q = 0; Q < O.Queues; ++Q)
      Workers.push_back(std::make_unique<Worker>(S, unsigned(Workers.size()), P, uint16_t(Q)));

  auto Start = std::chrono::steady_clock::now();
  size_t Next = 0;
  unsigned Lcore;
  RTE_LCORE_FOREACH_WORKER(Lcore) {
    if (Next == Workers.size())
      break;
    if (int R = rte_eal_remote_launch(Worker::main, Workers[Next].get(), Lcore)) {
      S.fail(Error("cannot start a worker on lcore " + std::to_string(Lcore) + ": " +
                   std::strerror(-R)));
      break;
    }
    ++Next;
  }
  bool GenRunning = false;
  if (Gen && Next == Workers.size()) {
    unsigned GenLcore = RTE_MAX_LCORE;
    unsigned Used = 0;
    RTE_LCORE_FOREACH_WORKER(Lcore) {
      if (Used++ == Workers.size()) {
        GenLcore = Lcore;
        break;
      }
    }
    if (GenLcore == RTE_MAX_LCORE || rte_eal_remote_launch(dpdk::Generator::main, Gen.get(), GenLcore))
      S.fail(Error("cannot start the generator on an lcore of its own"));
    else
      GenRunning = true;
  }
  auto Elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  };
  if (Hooks.Started && !S.Quit)
    Hooks.Started(snapshot(S, Workers, Devices));
  auto NextProgress = Start + std::chrono::milliseconds(O.ProgressMs);
  while (!S.Quit && !(O.Stop && O.Stop->load())) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    bool AllIdle = (O.IdleMs || O.Count) && Next == Workers.size();
    for (const auto &W : Workers)
      AllIdle = AllIdle && W->Idle.load();
    if (AllIdle)
      break;
    if (O.ProgressMs && Hooks.Progress && std::chrono::steady_clock::now() >= NextProgress) {
      ForwardReport R = snapshot(S, Workers, Devices);
      R.Seconds = Elapsed();
      Hooks.Progress(R);
      NextProgress += std::chrono::milliseconds(O.ProgressMs);
    }
  }
  S.Quit = true;
  if (GenRunning)
    Gen->stop();
  rte_eal_mp_wait_lcore();
  double Seconds = Elapsed();
  if (S.Failure)
    return std::move(*S.Failure);

  ForwardReport R = snapshot(S, Workers, Devices);
  R.Seconds = Seconds;
  for (size_t P = 0; P < S.PortIds.size(); ++P) {
    rte_eth_stats St;
    if (rte_eth_stats_get(S.PortIds[P], &St) == 0) {
      R.Ports[P].RxNoMbuf = St.rx_nombuf;
      R.Ports[P].RxMissed = St.imissed;
      R.Ports[P].RxErrors = St.ierrors;
      R.Ports[P].TxErrors = St.oerrors;
    }
  }
  if (Gen) {
    R.Generated = Gen->generated();
    R.GenNoMbuf = Gen->noMbuf();
  }
  Run.closePorts();
  Run.Succeeded = true;
  return R;
}

} // namespace ebpfgpu::runtime

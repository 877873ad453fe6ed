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

#include "DataplaneImpl.h"

namespace ebpfgpu::runtime {

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
    S.GenWritten = P.Gen->written();
    S.GenReplay = P.Gen->replaying();
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
    Q.LatencySumNs = T->Latency.sumNs();
    Q.Oversized = T->Oversized.get();
    Q.RedirectUnknown = T->RedirectUnknown.get();
    Q.PassDropped = T->PassDropped.get();
    Q.ExecFailed = T->ExecFailed.get();
    Q.BroadcastCopies = T->BroadcastCopies.get();
    Q.BroadcastFailed = T->BroadcastFailed.get();
    Q.RedirectCpu = T->RedirectCpu.get();
    Q.RedirectXsk = T->RedirectXsk.get();
    Q.XskRefused = T->XskRefused.get();
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
  if (O.Xsks.size() > MaxXskConsumers)
    return Error("at most " + std::to_string(MaxXskConsumers) + " xsk consumers");
  auto I = std::make_unique<Impl>();
  I->O = O;
  // Their ports are attached later: checked against the ports given by
  // the caller (DpdkForwarder), here only for what one word holds.
  for (size_t Id = 1; Id <= O.Xsks.size(); ++Id) {
    const XskConsumer &C = O.Xsks[Id - 1];
    if (C.Ifindex < 1 || C.Ifindex > MaxDataplanePorts || C.Port < 1 ||
        C.Port > MaxDataplanePorts || C.Queue >= 64)
      return Error("xsk consumer " + std::to_string(Id) + ": no such port or queue");
    I->Xsk[Id].store(packXsk(C), std::memory_order_relaxed);
  }
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
                                     unsigned(I.GenLcores.size()), I.Pool,
                                     O.GenReplay && Exec->readsOnlyPackets());
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
  Pt->RxTs = RxTimestampField::lookup(); // its driver registered the field at probe
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
  // Before the program can see a replayed frame: it may write it.
  if (Pt->Gen && !Exec->readsOnlyPackets())
    Pt->Gen->rewriteFrames();
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
  // Its consumers go with it (the kernel's xsk_notifier unbinds them), so
  // that a port attached later under the id does not inherit them.
  for (uint32_t X = 1; X <= MaxXskConsumers; ++X) {
    const uint32_t W = I.Xsk[X].load(std::memory_order_relaxed);
    if (W && (unpackXsk(W).Ifindex == Id || unpackXsk(W).Port == Id))
      I.Xsk[X].store(0, std::memory_order_release);
  }
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

MaybeError Dataplane::bindXsk(uint32_t Id, const XskConsumer &C) {
  Impl &I = *P;
  auto Name = [&] {
    return "xsk " + std::to_string(Id) + " (port " + std::to_string(C.Ifindex) + " queue " +
           std::to_string(C.Queue) + ", out of port " + std::to_string(C.Port) + ")";
  };
  if (Id < 1 || Id > MaxXskConsumers)
    return Error(Name() + ": consumer ids are 1 to " + std::to_string(MaxXskConsumers));
  for (uint32_t Pt : {C.Ifindex, C.Port})
    if (Pt < 1 || Pt > MaxDataplanePorts || !I.Table[Pt].load())
      return Error(Name() + ": no port " + std::to_string(Pt));
  const uint32_t Queues = I.Table[C.Ifindex].load()->Options.Queues;
  if (C.Queue >= Queues)
    return Error(Name() + ": port " + std::to_string(C.Ifindex) + " has queues 0 to " +
                 std::to_string(Queues - 1));
  I.Xsk[Id].store(packXsk(C), std::memory_order_release);
  return std::nullopt;
}

bool Dataplane::unbindXsk(uint32_t Id) {
  if (Id < 1 || Id > MaxXskConsumers)
    return false;
  return P->Xsk[Id].exchange(0, std::memory_order_acq_rel) != 0;
}

std::vector<std::pair<uint32_t, XskConsumer>> Dataplane::xsks() const {
  std::vector<std::pair<uint32_t, XskConsumer>> Out;
  for (uint32_t Id = 1; Id <= MaxXskConsumers; ++Id)
    if (uint32_t W = P->Xsk[Id].load(std::memory_order_relaxed))
      Out.push_back({Id, unpackXsk(W)});
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

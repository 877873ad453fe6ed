// SPDX-License-Identifier: Apache-2.0
//
// The data plane's workers (Dataplane.h): each polls its tasks (rx queues),
// receives into the filling slot, submits it to its lane, acts on the oldest
// slot in flight once done, and sends or frees in bursts.

#include "DataplaneImpl.h"

namespace ebpfgpu::runtime {

namespace {
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
    const bool Full = T.InFlight == T.Slots.size();
    reap(W, T, /*WaitOne=*/Full);
    T.LastReapTsc = Now;
    // A wait for the oldest batch is not the next batch's time: it starts
    // (StartTsc) when its first packet comes, after the wait.
    if (Full)
      Now = rte_rdtsc();
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
  if (unlikely(S.Held.empty())) {
    // Every packet was dropped before the program: the slot lets go of
    // its program until a packet comes (a replace or a fault recovery
    // waits for no batch that has nothing in it).
    close(T, S);
    return;
  }
  // A partial batch goes at its timeout only once the queue is drained (a
  // burst came back short): a worker that falls behind fills its batches
  // rather than sending small ones, which would cost it more per packet.
  if (S.Held.size() >= BatchSize || (N < Want && Now - S.StartTsc >= T.TimeoutTsc))
    submit(T);
}

void Dataplane::Impl::open(Task &T, Slot &S) {
  if (S.B)
    return; // opened already
  // The program is read once per batch, at its first packet: a replace
  // takes effect between batches, and this one runs wholly on what it
  // read here. Counted in flight before the next quiescent point, so a
  // retiring program waits for it.
  Binding *B = T.P.Prog.load(std::memory_order_acquire);
  B->InFlight.fetch_add(1, std::memory_order_relaxed);
  S.B = B;
  S.Descs = O.ZeroCopy ? B->Lanes[T.Index]->stage(T.Fill, T.P.Options.BatchSize) : nullptr;
  S.PrefetchData = S.Descs && B->Lanes[T.Index]->readsPacketBytes();
  S.RxMeta = B->Exec->readsRxMetadata();
  S.Batch.setRxMeta(S.RxMeta);
}

void Dataplane::Impl::close(Task &T, Slot &S) {
  if (!S.B)
    return;
  if (S.Descs)
    S.B->Lanes[T.Index]->finish(T.Fill);
  S.B->InFlight.fetch_sub(1, std::memory_order_release);
  S.B = nullptr;
  S.Descs = nullptr;
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
      if (S.PrefetchData)
        rte_prefetch0(static_cast<uint8_t *>(M->buf_addr) + M->data_off);
      Bytes += Len;
      if (unlikely(!admit(T, M, Len, MaxFrame)))
        continue;
      if (unlikely(M->nb_segs != 1 || M->pool != Pool || !RTE_MBUF_DIRECT(M) ||
                   rte_mbuf_refcnt_read(M) != 1 ||
                   (S.RxMeta && M->data_off < sizeof(ebpfgpu_rx_meta)))) {
        unstage(S);
        Bytes -= Len; // counted again below
        break;
      }
      uint32_t Flags = 0;
      if (S.RxMeta) { // at the buffer's start, where no program reaches
        fillRxMeta(M, T.P.RxTs, *static_cast<ebpfgpu_rx_meta *>(M->buf_addr));
        Flags = EBPFGPU_DESC_RX_META;
      }
      S.Descs[S.Held.size()] = ebpfgpu_packet_desc{reinterpret_cast<uint64_t>(M->buf_addr),
                                                   M->data_off,      Len, M->buf_len,
                                                   Ifindex,          Queue, Flags};
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
    if (O.ZeroCopy && M->nb_segs == 1 &&
        likely(!S.RxMeta || M->data_off >= sizeof(ebpfgpu_rx_meta))) {
      S.Batch.addExternal(static_cast<uint8_t *>(M->buf_addr), M->buf_len, M->data_off, Len);
    } else {
      // Contiguous in the mbuf (one segment) or copied into Scratch.
      const auto *Data =
          static_cast<const uint8_t *>(rte_pktmbuf_read(M, 0, Len, T.Scratch.data()));
      S.Batch.add(Data, Len);
    }
    if (S.RxMeta)
      fillRxMeta(M, T.P.RxTs, S.Batch.rxMetaOf(S.Batch.size() - 1));
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
    Lane.finish(T.Fill);
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
    B->Lanes[T.Index]->finish(I);
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
  }
  while (T.InFlight)
    reap(W, T, /*WaitOne=*/true);
}

void Dataplane::Impl::act(Worker &W, Task &T, Slot &S, const ebpfgpu_verdict *Staged) {
  PacketBatch &Batch = S.Batch;
  const size_t Count = S.Held.size();
  ActCounts N;
  // Where REDIRECT and TX go, read from the table once per batch: a port
  // detached meanwhile stays open until this batch has passed a quiescent
  // point.
  Port *Used[MaxDataplanePorts + 1] = {};
  bool UsedException = false;
  const bool HasException = T.P.Exc != nullptr;
  // A copy of a packet the program cannot have changed is not copied back.
  const bool ReadOnly = S.B->Exec->readsOnlyPackets();
  for (size_t I = 0; I < Count; ++I) {
    // Staged batches' verdicts are the lane's (each checked to stay in its
    // mbuf); the others', the PacketBatch's.
    uint64_t V = Staged ? Staged[I].action : Batch.verdict(I);
    uint32_t Len = Staged ? Staged[I].length : Batch.length(I);
    if (unlikely(V >= NumXdpActions)) {
      ++N.Invalid;
      V = uint64_t(XdpAction::Aborted);
    }
    ++N.Packets[V];
    N.Bytes[V] += Len;
    uint8_t D = NoDest;
    // A broadcast's ports (EBPFGPU_REDIRECT_BROADCAST) that get a copy;
    // the packet itself goes to the last of them, D.
    uint32_t Copy = 0;
    switch (XdpAction(V)) {
    case XdpAction::Tx:
      D = uint8_t(T.P.Id);
      Used[D] = &T.P;
      break;
    case XdpAction::Redirect: {
      uint64_t Ifindex = Staged ? Staged[I].redirect_target : Batch.redirectTarget(I);
      D = redirectDest(T, Ifindex, HasException, Used, Copy, N);
      break;
    }
    case XdpAction::Pass:
      if (HasException)
        D = ExceptionDest;
      else
        ++N.PassDropped;
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
      } else if (!ReadOnly &&
                 unlikely(!dpdk::storeResult(M, Batch.data(I), Len))) {
        ++N.Oversized;
        D = NoDest;
        N.CopyFailed += __builtin_popcount(Copy);
        Copy = 0;
      }
    }
    copyBroadcast(T, M, Copy, N);
    T.Dest[I] = D;
    if (D == NoDest)
      T.Free.push_back(M);
    else if (D == ExceptionDest)
      UsedException = true;
  }
  transmit(W, T, S, Used, UsedException, Staged != nullptr);
  countActs(T, N);
  S.Held.clear();
  Batch.clear();
  uint64_t Done = rte_rdtsc();
  T.Latency.record((Done - S.StartTsc) * 1000000000 / Hz);
  T.LastDoneTsc.add(Done - T.LastDoneTsc.get());
}

inline uint8_t Dataplane::Impl::redirectDest(Task &T, uint64_t Ifindex, bool HasException,
                                             Port **Used, uint32_t &Copy, ActCounts &N) {
  uint8_t D = NoDest;
  if (unlikely(Ifindex & EBPFGPU_REDIRECT_BROADCAST)) {
    D = broadcastPorts(uint32_t(Ifindex), Used, Copy, N.CopyFailed);
    if (D == NoDest)
      ++N.Unknown;
    return D;
  }
  if (unlikely(Ifindex & EBPFGPU_REDIRECT_CPU)) {
    // Into a cpumap: the kernel's network stack would take it on that
    // CPU; here, the port's exception port, as XDP_PASS.
    ++N.ToCpu;
    if (HasException)
      D = ExceptionDest;
    else
      ++N.PassDropped;
    return D;
  }
  if (unlikely(Ifindex & EBPFGPU_REDIRECT_XSK)) {
    // Into an xskmap: its consumer's port, if the consumer is bound to
    // this packet's port and queue; else dropped, as the kernel's
    // xsk_rcv refuses a socket bound elsewhere (docs/MAPS.md).
    const uint64_t Id = Ifindex & ~uint64_t(EBPFGPU_REDIRECT_XSK);
    const uint32_t W = Id >= 1 && Id <= MaxXskConsumers
                           ? Xsk[Id].load(std::memory_order_acquire)
                           : 0;
    const XskConsumer C = unpackXsk(W);
    Port *To = W && C.Ifindex == T.P.Id && C.Queue == T.Queue && C.Port >= 1 &&
                       C.Port <= MaxDataplanePorts
                   ? Table[C.Port].load(std::memory_order_acquire)
                   : nullptr;
    if (To) {
      D = uint8_t(C.Port);
      Used[D] = To;
      ++N.ToXsk;
    } else {
      ++N.XskRefused;
    }
    return D;
  }
  Port *To = Ifindex >= 1 && Ifindex <= MaxDataplanePorts
                 ? Table[Ifindex].load(std::memory_order_acquire)
                 : nullptr;
  if (To) {
    D = uint8_t(Ifindex);
    Used[D] = To;
  } else {
    ++N.Unknown;
  }
  return D;
}

inline void Dataplane::Impl::copyBroadcast(Task &T, rte_mbuf *M, uint32_t Copy, ActCounts &N) {
  // Copies rather than indirect mbufs sharing M's buffer: each port gets
  // a frame of its own (a staged batch's originals must keep one
  // reference each to go straight back to the pool), and a copy of a
  // small frame costs what attaching one does.
  for (; unlikely(Copy); Copy &= Copy - 1) {
    uint8_t To = uint8_t(__builtin_ctz(Copy) + 1);
    rte_mbuf *C = rte_pktmbuf_copy(M, Pool, 0, UINT32_MAX);
    if (!C) {
      ++N.CopyFailed;
      continue;
    }
    T.Copies.push_back({To, C});
    ++N.Copies;
  }
}

inline void Dataplane::Impl::countActs(Task &T, const ActCounts &N) {
  for (unsigned A = 0; A < NumXdpActions; ++A)
    if (N.Packets[A]) {
      T.ActPackets[A].add(N.Packets[A]);
      T.ActBytes[A].add(N.Bytes[A]);
    }
  if (N.Invalid | N.Unknown | N.PassDropped | N.Oversized) {
    T.Invalid.add(N.Invalid);
    T.RedirectUnknown.add(N.Unknown);
    T.PassDropped.add(N.PassDropped);
    T.Oversized.add(N.Oversized);
  }
  if (N.Copies | N.CopyFailed | N.ToCpu | N.ToXsk | N.XskRefused) {
    T.BroadcastCopies.add(N.Copies);
    T.BroadcastFailed.add(N.CopyFailed);
    T.RedirectCpu.add(N.ToCpu);
    T.RedirectXsk.add(N.ToXsk);
    T.XskRefused.add(N.XskRefused);
  }
}

void Dataplane::Impl::transmit(Worker &W, Task &T, Slot &S, Port *const *Used,
                              bool UsedException, bool Staged) {
  const size_t Count = S.Held.size();
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
  if (unlikely(T.Out.size() < Count + T.Copies.size())) {
    T.Out.resize(Count + T.Copies.size());
    T.OutLens.resize(Count + T.Copies.size());
  }
  auto SendTo = [&](uint8_t D, TxTarget &To) {
    size_t N = 0;
    for (size_t I = 0; I < Count; ++I)
      if (T.Dest[I] == D) {
        T.Out[N] = S.Held[I];
        T.OutLens[N++] = rte_pktmbuf_pkt_len(S.Held[I]);
      }
    for (const auto &[Id, C] : T.Copies)
      if (Id == D) {
        T.Out[N] = C;
        T.OutLens[N++] = rte_pktmbuf_pkt_len(C);
      }
    send(W, To, T.Out.data(), T.OutLens.data(), N);
  };
  for (uint32_t D = 1; D <= MaxDataplanePorts; ++D)
    if (Used[D])
      SendTo(uint8_t(D), Used[D]->Tx);
  if (UsedException)
    SendTo(ExceptionDest, T.P.Exc->Tx);
  T.Copies.clear();
}

uint8_t Dataplane::Impl::broadcastPorts(uint32_t Set, Port **Used, uint32_t &Copy,
                                        uint64_t &Failed) {
  // A device the program's devmap names past the ports the set can hold,
  // or one that is no port: that copy fails.
  Failed += (Set & EBPFGPU_REDIRECT_BROADCAST_FAR) != 0;
  uint8_t Last = NoDest;
  for (uint32_t Ports = Set & ((1u << EBPFGPU_REDIRECT_BROADCAST_PORTS) - 1); Ports;
       Ports &= Ports - 1) {
    uint8_t D = uint8_t(__builtin_ctz(Ports) + 1);
    Port *To = Table[D].load(std::memory_order_acquire);
    if (!To) {
      ++Failed;
      continue;
    }
    Used[D] = To;
    if (Last != NoDest)
      Copy |= 1u << (Last - 1);
    Last = D;
  }
  return Last;
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

} // namespace ebpfgpu::runtime

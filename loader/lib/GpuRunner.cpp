// SPDX-License-Identifier: Apache-2.0
//
// GpuRunner: batch after batch on the GPU, in launch or persistent mode,
// over copied or mapped buffers (GpuRunner.h).

#include "ebpf-gpu/Loader/GpuRunner.h"

#include "CudaApi.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define EBPFGPU_CPU_PAUSE() _mm_pause()
#else
#define EBPFGPU_CPU_PAUSE() ((void)0)
#endif

namespace ebpfgpu::loader {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point T) {
  return std::chrono::duration<double, std::milli>(Clock::now() - T).count();
}

} // namespace

Expected<std::unique_ptr<GpuRunner>> GpuRunner::create(GpuDevice &Dev, GpuProgram &Prog,
                                                       const GpuRunnerOptions &Opts) {
  if (!Prog.IsXdp)
    return Error("GpuRunner needs an XDP program");
  if (Opts.MaxPackets == 0)
    return Error("GpuRunner needs room for at least one packet");
  if (Opts.Slots == 0 || Opts.Slots > EBPFGPU_RING_SLOTS)
    return Error("GpuRunner: " + std::to_string(Opts.Slots) + " slots (1 to " +
                 std::to_string(EBPFGPU_RING_SLOTS) + ")");
  if (Opts.Slots > 1 && (Opts.Mode != GpuMode::Persistent || Opts.Path != GpuDataPath::Mapped))
    return Error("GpuRunner: batches in flight in one runner need the persistent mode and the "
                 "mapped data path");
  std::unique_ptr<GpuRunner> R(new GpuRunner(Dev, Prog, Opts));
  if (MaybeError E = R->allocate())
    return std::move(*E);
  if (Opts.Mode == GpuMode::Persistent) {
    if (MaybeError E = R->preparePersistent())
      return std::move(*E);
    if (!Opts.StartAtFirstPost)
      if (MaybeError E = R->launchPersistent())
        return std::move(*E);
  }
  return R;
}

MaybeError GpuRunner::allocate() {
  const CudaApi &A = Dev.api();
  if (Opts.Stream && Opts.Mode == GpuMode::Launch) {
    Stream = Opts.Stream;
    OwnsStream = false;
  } else {
    CUstream S;
    EBPFGPU_CHECK(A, cuStreamCreate, &S, CU_STREAM_NON_BLOCKING);
    Stream = S;
  }
  const bool Mapped = Opts.Path == GpuDataPath::Mapped;
  const bool Persistent = Opts.Mode == GpuMode::Persistent;
  auto HostAlloc = [&](size_t Bytes, bool DeviceMapped, void **Out) -> MaybeError {
    unsigned Flags = CU_MEMHOSTALLOC_PORTABLE | (DeviceMapped ? CU_MEMHOSTALLOC_DEVICEMAP : 0);
    EBPFGPU_CHECK(A, cuMemHostAlloc, Out, Bytes ? Bytes : 1, Flags);
    return std::nullopt;
  };
  auto DevicePointer = [&](void *Host, uint64_t &Out) -> MaybeError {
    CUdeviceptr P;
    EBPFGPU_CHECK(A, cuMemHostGetDevicePointer, &P, Host, 0);
    Out = P;
    return std::nullopt;
  };
  auto DeviceAlloc = [&](size_t Bytes, uint64_t &Out) -> MaybeError {
    CUdeviceptr P;
    EBPFGPU_CHECK(A, cuMemAlloc, &P, Bytes ? Bytes : 1);
    Out = P;
    return std::nullopt;
  };
  // A slot's arrays each (one but for the persistent ring's slots).
  const size_t Slots = Opts.Slots;
  const size_t DescBytes = Slots * Opts.MaxPackets * sizeof(ebpfgpu_packet_desc);
  const size_t VerdictBytes = Slots * Opts.MaxPackets * sizeof(ebpfgpu_verdict);
  void *H;
  if (MaybeError E = HostAlloc(Slots * Opts.MaxFrameBytes, Mapped, &H))
    return E;
  HostFrames = static_cast<uint8_t *>(H);
  if (MaybeError E = HostAlloc(DescBytes, Mapped, &H))
    return E;
  HostDescs = static_cast<ebpfgpu_packet_desc *>(H);
  // A persistent kernel writes verdicts straight to the host: no copy to
  // wait for once the batch is done.
  if (MaybeError E = HostAlloc(VerdictBytes, Mapped || Persistent, &H))
    return E;
  HostVerdicts = static_cast<ebpfgpu_verdict *>(H);
  if (Mapped) {
    for (auto [Host, Dev] : {std::pair{static_cast<void *>(HostFrames), &DevFrames},
                             std::pair{static_cast<void *>(HostDescs), &DevDescs}})
      if (MaybeError E = DevicePointer(Host, *Dev))
        return E;
  } else {
    if (MaybeError E = DeviceAlloc(Opts.MaxFrameBytes, DevFrames))
      return E;
    if (MaybeError E = DeviceAlloc(DescBytes, DevDescs))
      return E;
  }
  if (MaybeError E = (Mapped || Persistent) ? DevicePointer(HostVerdicts, DevVerdicts)
                                            : DeviceAlloc(VerdictBytes, DevVerdicts))
    return E;
  // Packets in host memory (mapped) are staged in device memory for the
  // program (GpuAbi.h: EBPFGPU_STAGE_SLOT), a slot per packet of a batch.
  if (Mapped && Opts.Stage)
    if (MaybeError E = DeviceAlloc(size_t(Opts.MaxPackets) * EBPFGPU_STAGE_SLOT, DevStage))
      return E;
  // The persistent kernel reads a packet's first bytes with its descriptor.
  if (Mapped && Opts.Stage && Persistent) {
    if (MaybeError E = HostAlloc(Slots * Opts.MaxPackets * EBPFGPU_INLINE_BYTES, true, &H))
      return E;
    HostInline = static_cast<uint8_t *>(H);
    if (MaybeError E = DevicePointer(H, DevInline))
      return E;
  }
  if (Opts.Mode == GpuMode::Launch) {
    if (MaybeError E = HostAlloc(64, true, &H))
      return E;
    DoneWord = static_cast<uint32_t *>(H);
    *DoneWord = 0;
    if (MaybeError E = DevicePointer(H, DevDoneWord))
      return E;
    if (MaybeError E = DeviceAlloc(sizeof(uint32_t), DevArrived))
      return E;
    EBPFGPU_CHECK(A, cuMemsetD8, DevArrived, 0, sizeof(uint32_t));
  }
  return std::nullopt;
}

Expected<void *> GpuRunner::persistentKernel(const CudaApi &A, GpuProgram &Prog) {
  CUfunction Fn;
  if (A.cuModuleGetFunction(&Fn, static_cast<CUmodule>(Prog.Module),
                            EBPFGPU_XDP_PERSISTENT_KERNEL) != CUDA_SUCCESS)
    return Error("the program has no persistent kernel (a .gpu.o from an older ebpf-gpu-cc: "
                 "compile it again)");
  return Fn;
}

Expected<uint32_t> GpuRunner::persistentBlocksResident(GpuDevice &Dev, GpuProgram &Prog) {
  const CudaApi &A = Dev.api();
  auto Fn = persistentKernel(A, Prog);
  if (!Fn)
    return Fn.takeError();
  int PerSm = 0;
  EBPFGPU_CHECK(A, cuOccupancyMaxActiveBlocksPerMultiprocessor, &PerSm,
                static_cast<CUfunction>(*Fn), int(GpuBlockThreads), 0);
  return uint32_t(PerSm) * Dev.multiprocessors();
}

MaybeError GpuRunner::preparePersistent() {
  const CudaApi &A = Dev.api();
  auto Fn = persistentKernel(A, Prog);
  if (!Fn)
    return Fn.takeError();
  PersistentFn = *Fn;
  // Every block must be resident at once, and each thread is a CPU of the
  // program's per-CPU maps.
  auto Resident = persistentBlocksResident(Dev, Prog);
  if (!Resident)
    return Resident.takeError();
  uint32_t Blocks = Opts.Blocks ? Opts.Blocks : Dev.multiprocessors();
  if (Opts.CpuBase >= Prog.cpus())
    return Error("the persistent kernel's first CPU " + std::to_string(Opts.CpuBase) +
                 " is past the program's " + std::to_string(Prog.cpus()));
  Blocks = std::min({Blocks, *Resident, (Prog.cpus() - Opts.CpuBase) / GpuBlockThreads});
  if (Blocks == 0)
    return Error("the persistent kernel cannot have one block resident on this GPU");
  GridThreads = Blocks * GpuBlockThreads;
  PersistentBlocks = Blocks;

  void *H;
  EBPFGPU_CHECK(A, cuMemHostAlloc, &H, sizeof(ebpfgpu_ring),
                CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
  Ring = static_cast<ebpfgpu_ring *>(H);
  std::memset(static_cast<void *>(Ring), 0, sizeof(*Ring));
  Ring->slots = Opts.Slots;
  Ring->descs = DevDescs;
  Ring->verdicts = DevVerdicts;
  Ring->inline_bytes = DevInline;
  Ring->slot_packets = Opts.MaxPackets;
  Ring->cpu_base = Opts.CpuBase;
  CUdeviceptr P;
  EBPFGPU_CHECK(A, cuMemHostGetDevicePointer, &P, H, 0);
  DevRing = P;
  EBPFGPU_CHECK(A, cuMemAlloc, &P, sizeof(ebpfgpu_ring_sync));
  DevSync = P;
  EBPFGPU_CHECK(A, cuMemsetD8, P, 0, sizeof(ebpfgpu_ring_sync));
  // The kernel has a stream of its own: copies go on `Stream`, which must
  // not queue behind a kernel that never ends.
  CUstream KS;
  EBPFGPU_CHECK(A, cuStreamCreate, &KS, CU_STREAM_NON_BLOCKING);
  KernelStream = KS;
  return std::nullopt;
}

MaybeError GpuRunner::launchPersistent() {
  const CudaApi &A = Dev.api();
  if (Launched)
    return Error("the persistent kernel was started already");
  Launched = true;
  CUstream KS = static_cast<CUstream>(KernelStream);
  CUdeviceptr RingArg = DevRing, SyncArg = DevSync, Stage = DevStage;
  // Kernels of other CPUs draw other numbers (bpf_get_prandom_u32).
  uint64_t Seed = 0x5eed0000ull + (uint64_t(Opts.CpuBase) << 40);
  void *Args[] = {&RingArg, &SyncArg, &Seed, &Stage};
  EBPFGPU_CHECK(A, cuLaunchKernel, static_cast<CUfunction>(PersistentFn), PersistentBlocks, 1, 1,
                GpuBlockThreads, 1, 1, 0, KS, Args, nullptr);
  Running = true;
  if (CUresult R = A.cuStreamQuery(KS); R != CUDA_ERROR_NOT_READY) {
    Running = false;
    return R == CUDA_SUCCESS ? Error("the persistent kernel returned at once")
                             : A.error("persistent kernel launch", R);
  }
  return std::nullopt;
}

bool GpuRunner::waitStopped(void *S, uint32_t Ms) {
  const CudaApi &A = Dev.api();
  auto Start = Clock::now();
  for (;;) {
    CUresult R = A.cuStreamQuery(static_cast<CUstream>(S));
    if (R != CUDA_ERROR_NOT_READY)
      return true;
    if (msSince(Start) > Ms)
      return false;
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

void GpuRunner::stopSoon() {
  if (Running)
    reinterpret_cast<std::atomic<uint32_t> *>(&Ring->stop)->store(1, std::memory_order_release);
}

bool GpuRunner::halt() {
  if (Halted)
    return true;
  if (Running) {
    reinterpret_cast<std::atomic<uint32_t> *>(&Ring->stop)->store(1, std::memory_order_release);
    // A kernel the watchdog gave up on is not waited for again.
    if (!Stuck && waitStopped(KernelStream, std::max<uint32_t>(Opts.WatchdogMs, 100)))
      Running = false;
  }
  bool Busy = Running || (Stuck && Stream && !waitStopped(Stream, 0));
  if (Busy) {
    // A kernel that hangs: its loop guards trap once the abort word is set.
    if (!Prog.abortKernels())
      return false;
    for (void *S : {KernelStream, Stream})
      if (S && !waitStopped(S, AbortWaitMs))
        return false;
    Running = false;
    Aborted = true;
  }
  Halted = true;
  return true;
}

GpuRunner::~GpuRunner() {
  const CudaApi &A = Dev.api();
  if (!halt())
    return; // still running: freeing its memory could corrupt it
  if (Stream && !Aborted)
    A.cuStreamSynchronize(static_cast<CUstream>(Stream));
  if (Opts.Path == GpuDataPath::Copy)
    for (uint64_t P : {DevFrames, DevDescs})
      if (P)
        A.cuMemFree(P);
  if (Opts.Path == GpuDataPath::Copy && Opts.Mode == GpuMode::Launch && DevVerdicts)
    A.cuMemFree(DevVerdicts);
  for (uint64_t P : {DevSync, DevArrived})
    if (P)
      A.cuMemFree(P);
  if (DevStage)
    A.cuMemFree(DevStage);
  for (void *H : {static_cast<void *>(HostFrames), static_cast<void *>(HostDescs),
                  static_cast<void *>(HostVerdicts), static_cast<void *>(Ring),
                  static_cast<void *>(DoneWord), static_cast<void *>(HostInline)})
    if (H)
      A.cuMemFreeHost(H);
  for (void *S : {OwnsStream ? Stream : nullptr, KernelStream})
    if (S)
      A.cuStreamDestroy(static_cast<CUstream>(S));
}

MaybeError GpuRunner::checkBatch(ebpfgpu_packet_desc *Descs, uint32_t Count, size_t FrameBytes,
                                  uint64_t DevBase) {
  if (Count > Opts.MaxPackets || FrameBytes > Opts.MaxFrameBytes)
    return Error("batch too large for the GPU runner: " + std::to_string(Count) + " packets, " +
                 std::to_string(FrameBytes) + " bytes of frames (room for " +
                 std::to_string(Opts.MaxPackets) + " and " + std::to_string(Opts.MaxFrameBytes) +
                 ")");
  for (uint32_t I = 0; I < Count; ++I) {
    ebpfgpu_packet_desc &D = Descs[I];
    if (D.buffer > FrameBytes || D.buffer_size > FrameBytes - D.buffer ||
        D.data_offset > D.buffer_size || D.length > D.buffer_size - D.data_offset)
      return Error("packet " + std::to_string(I) + ": buffer outside the frames passed in");
    D.buffer += DevBase;
  }
  return std::nullopt;
}

MaybeError GpuRunner::run(uint32_t Count, size_t FrameBytes, BatchTiming *Timing) {
  if (MaybeError E = checkBatch(HostDescs, Count, FrameBytes, DevFrames))
    return E;
  if (Count == 0)
    return std::nullopt;
  return Opts.Mode == GpuMode::Launch ? runLaunch(Count, FrameBytes, Timing)
                                      : runPersistent(Count, FrameBytes, Timing);
}

MaybeError GpuRunner::start(uint32_t Count, size_t FrameBytes, bool InPlace) {
  if (Opts.Mode != GpuMode::Launch)
    return Error("GpuRunner::start needs launch mode");
  if (Pending)
    return Error("GpuRunner::start: a batch is still in flight");
  if (Stuck)
    return Error("a GPU batch kernel stopped answering earlier; no batch can run");
  if (InPlace) {
    if (Opts.Path != GpuDataPath::Mapped)
      return Error("packets in place need the mapped data path");
    if (Count > Opts.MaxPackets)
      return Error("batch too large for the GPU runner: " + std::to_string(Count) +
                   " packets (room for " + std::to_string(Opts.MaxPackets) + ")");
    FrameBytes = 0;
  } else if (MaybeError E = checkBatch(HostDescs, Count, FrameBytes, DevFrames)) {
    return E;
  }
  PendingCount = Count;
  PendingSince = Clock::now();
  if (Count == 0) {
    Pending = false;
    return std::nullopt;
  }
  // On the mapped path nothing follows the kernel: it publishes the batch.
  if (DoneWord && Opts.Path == GpuDataPath::Mapped) {
    if (MaybeError E = enqueueLaunch(Count, FrameBytes, nullptr, /*Publish=*/true))
      return E;
    ++DoneSeq;
  } else if (MaybeError E = enqueueLaunch(Count, FrameBytes, nullptr)) {
    return E;
  } else if (DoneWord && DoneWordWorks) {
    const CudaApi &A = Dev.api();
    CUresult R = A.cuStreamWriteValue32(static_cast<CUstream>(Stream), DevDoneWord, DoneSeq + 1,
                                        CU_STREAM_WRITE_VALUE_DEFAULT);
    if (R == CUDA_SUCCESS)
      ++DoneSeq;
    else if (R == CUDA_ERROR_NOT_SUPPORTED)
      DoneWordWorks = false; // this batch and later ones: cuStreamQuery
    else
      return A.error("cuStreamWriteValue32", R);
  }
  Pending = true;
  LastQuery = PendingSince;
  return std::nullopt;
}

Expected<bool> GpuRunner::done(bool Wait) {
  if (!Pending)
    return true;
  const CudaApi &A = Dev.api();
  for (unsigned Spins = 0;; ++Spins) {
    if (DoneWord && DoneWordWorks) {
      auto *Word = reinterpret_cast<std::atomic<uint32_t> *>(DoneWord);
      if (Word->load(std::memory_order_acquire) == DoneSeq) {
        Pending = false;
        return true;
      }
      // The driver is asked only now and then: for a faulted kernel (its
      // word never comes) and the watchdog.
      if ((Spins & 1023) != 1023 && msSince(LastQuery) < 1) {
        if (!Wait)
          return false;
        EBPFGPU_CPU_PAUSE();
        continue;
      }
      LastQuery = Clock::now();
    }
    CUresult R = A.cuStreamQuery(static_cast<CUstream>(Stream));
    if (R == CUDA_SUCCESS) {
      Pending = false;
      // A kernel that ended without its last block's publish (a thread
      // ended by the abort word) may leave its count of blocks behind:
      // zero again before the next launch (the stream is idle).
      if (DoneWord && Opts.Path == GpuDataPath::Mapped &&
          reinterpret_cast<std::atomic<uint32_t> *>(DoneWord)->load() != DoneSeq)
        EBPFGPU_CHECK(A, cuMemsetD8, DevArrived, 0, sizeof(uint32_t));
      return true;
    }
    if (R != CUDA_ERROR_NOT_READY) {
      Pending = false;
      return A.error("batch kernel", R);
    }
    if ((!Wait || (Spins & 63) == 63) && Opts.WatchdogMs && msSince(PendingSince) > Opts.WatchdogMs) {
      Stuck = true;
      Pending = false;
      return Error("watchdog: the GPU batch kernel did not finish its " +
                   std::to_string(PendingCount) + " packets within " +
                   std::to_string(Opts.WatchdogMs) + " ms");
    }
    if (!Wait)
      return false;
    EBPFGPU_CPU_PAUSE();
  }
}

MaybeError GpuRunner::runInPlace(uint32_t Count, BatchTiming *Timing) {
  if (Opts.Path != GpuDataPath::Mapped)
    return Error("packets in place need the mapped data path");
  if (Count > Opts.MaxPackets)
    return Error("batch too large for the GPU runner: " + std::to_string(Count) +
                 " packets (room for " + std::to_string(Opts.MaxPackets) + ")");
  if (Count == 0)
    return std::nullopt;
  return Opts.Mode == GpuMode::Launch ? runLaunch(Count, 0, Timing)
                                      : runPersistent(Count, 0, Timing);
}

MaybeError GpuRunner::enqueueLaunch(uint32_t Count, size_t FrameBytes, void **EvArg,
                                     bool Publish) {
  const CudaApi &A = Dev.api();
  CUstream S = static_cast<CUstream>(Stream);
  CUevent *Ev = reinterpret_cast<CUevent *>(EvArg);
  const bool Copy = Opts.Path == GpuDataPath::Copy;
  auto Record = [&](int I) -> MaybeError {
    if (Ev)
      EBPFGPU_CHECK(A, cuEventRecord, Ev[I], S);
    return std::nullopt;
  };
  if (MaybeError E = Record(0))
    return E;
  if (Copy) {
    EBPFGPU_CHECK(A, cuMemcpyHtoDAsync, DevDescs, HostDescs, Count * sizeof(ebpfgpu_packet_desc),
                  S);
    if (FrameBytes)
      EBPFGPU_CHECK(A, cuMemcpyHtoDAsync, DevFrames, HostFrames, FrameBytes, S);
  }
  if (MaybeError E = Record(1))
    return E;
  CUdeviceptr DescPtr = DevDescs, VerdictPtr = DevVerdicts, Stage = DevStage;
  CUdeviceptr DonePtr = Publish ? DevDoneWord : 0, Arrived = DevArrived;
  uint32_t Seq = DoneSeq + 1;
  uint64_t Seed = 0x5eed0000ull;
  void *Args[] = {&DescPtr, &VerdictPtr, &Count, &Seed, &Stage, &DonePtr, &Arrived, &Seq};
  unsigned Blocks = Prog.blocksFor(Count);
  GridThreads = Blocks * GpuBlockThreads;
  if (MaybeError E = Prog.launchBatchKernel(S, Blocks, Count, Args))
    return E;
  if (MaybeError E = Record(2))
    return E;
  if (Copy) {
    EBPFGPU_CHECK(A, cuMemcpyDtoHAsync, HostVerdicts, DevVerdicts,
                  Count * sizeof(ebpfgpu_verdict), S);
    if (FrameBytes)
      EBPFGPU_CHECK(A, cuMemcpyDtoHAsync, HostFrames, DevFrames, FrameBytes, S);
  }
  return Record(3);
}

MaybeError GpuRunner::runLaunch(uint32_t Count, size_t FrameBytes, BatchTiming *Timing) {
  const CudaApi &A = Dev.api();
  if (Stuck)
    return Error("a GPU batch kernel stopped answering earlier; no batch can run");
  CUevent Ev[4] = {};
  struct Events {
    const CudaApi &A;
    CUevent *E;
    ~Events() {
      for (int I = 0; I < 4; ++I)
        if (E[I])
          A.cuEventDestroy(E[I]);
    }
  } Owned{A, Ev};
  if (Timing)
    for (CUevent &E : Ev)
      EBPFGPU_CHECK(A, cuEventCreate, &E, CU_EVENT_DEFAULT);
  if (MaybeError E = enqueueLaunch(Count, FrameBytes, Timing ? reinterpret_cast<void **>(Ev)
                                                            : nullptr))
    return E;
  if (MaybeError E = waitLaunch(Count))
    return E;
  if (Timing) {
    EBPFGPU_CHECK(A, cuEventElapsedTime, &Timing->CopyInMs, Ev[0], Ev[1]);
    EBPFGPU_CHECK(A, cuEventElapsedTime, &Timing->KernelMs, Ev[1], Ev[2]);
    EBPFGPU_CHECK(A, cuEventElapsedTime, &Timing->CopyOutMs, Ev[2], Ev[3]);
  }
  return std::nullopt;
}

MaybeError GpuRunner::waitLaunch(uint32_t Count) {
  const CudaApi &A = Dev.api();
  auto Start = Clock::now();
  for (unsigned Spins = 0;; ++Spins) {
    CUresult R = A.cuStreamQuery(static_cast<CUstream>(Stream));
    if (R == CUDA_SUCCESS)
      return std::nullopt;
    if (R != CUDA_ERROR_NOT_READY)
      return A.error("batch kernel", R);
    if ((Spins & 63) == 63 && Opts.WatchdogMs && msSince(Start) > Opts.WatchdogMs) {
      Stuck = true;
      return Error("watchdog: the GPU batch kernel did not finish its " + std::to_string(Count) +
                   " packets within " + std::to_string(Opts.WatchdogMs) + " ms");
    }
    EBPFGPU_CPU_PAUSE();
  }
}

void GpuRunner::copyInline(size_t K, const uint8_t *Data) {
  ebpfgpu_packet_desc &D = HostDescs[K];
  // As ebpfgpu_stage_in would stage it: 16-byte chunks from the data's
  // aligned start, inside an aligned buffer (a device address keeps its
  // host address's offset in the page, an offset into frames() too).
  const uint64_t Start = D.buffer + D.data_offset;
  const uint64_t Lo = Start & ~uint64_t(15), Hi = (Start + D.length + 15) & ~uint64_t(15);
  if ((D.buffer & 15) || Hi - Lo > EBPFGPU_INLINE_BYTES || Hi > D.buffer + D.buffer_size) {
    D.flags &= ~EBPFGPU_DESC_INLINE;
    return;
  }
  std::memcpy(HostInline + K * EBPFGPU_INLINE_BYTES, Data - (Start - Lo), Hi - Lo);
  D.flags |= EBPFGPU_DESC_INLINE;
}

Error GpuRunner::stuck(uint32_t Batch, uint32_t Count, uint64_t Beat) {
  const CudaApi &A = Dev.api();
  Stuck = true;
  CUresult R = A.cuStreamQuery(static_cast<CUstream>(KernelStream));
  if (R != CUDA_ERROR_NOT_READY && R != CUDA_SUCCESS)
    return A.error("persistent kernel", R);
  bool Moved = reinterpret_cast<std::atomic<uint64_t> *>(&Ring->heartbeat)->load() != Beat;
  return Error("watchdog: the persistent GPU kernel did not finish batch " + std::to_string(Batch) +
               " (" + std::to_string(Count) + " packets) within " +
               std::to_string(Opts.WatchdogMs) + " ms" +
               (R == CUDA_SUCCESS ? " (the kernel has exited)"
                                  : Moved ? " (still polling)" : " (no heartbeat)"));
}

MaybeError GpuRunner::post(unsigned Slot, uint32_t Count, size_t FrameBytes, bool InPlace) {
  if (Opts.Mode != GpuMode::Persistent)
    return Error("GpuRunner::post needs the persistent mode");
  if (!Launched && !Halted)
    if (MaybeError E = launchPersistent())
      return E;
  if (!Running)
    return Error("the persistent GPU kernel is not running");
  if (Stuck)
    return Error("the persistent GPU kernel stopped answering earlier; no batch can run");
  const uint32_t Batch = NextBatch;
  if (Slot != (Batch - 1) % Opts.Slots || Posts[Slot].Batch)
    return Error("GpuRunner::post: slot " + std::to_string(Slot) + " is not the next free one");
  if (Count > Opts.MaxPackets)
    return Error("batch too large for the GPU runner: " + std::to_string(Count) +
                 " packets (room for " + std::to_string(Opts.MaxPackets) + ")");
  if (InPlace && Opts.Path != GpuDataPath::Mapped)
    return Error("packets in place need the mapped data path");
  if (!InPlace && Opts.Path != GpuDataPath::Mapped)
    return Error("GpuRunner::post: the copy path takes run()");
  if (!InPlace)
    if (MaybeError E = checkBatch(descs(Slot), Count, FrameBytes,
                                  DevFrames + uint64_t(Slot) * Opts.MaxFrameBytes))
      return E;
  if (Count == 0)
    return std::nullopt;
  ++NextBatch;
  Posted &P = Posts[Slot];
  P.Batch = Batch;
  P.Count = Count;
  P.Since = Clock::now();
  P.Beat = reinterpret_cast<std::atomic<uint64_t> *>(&Ring->heartbeat)->load();
  // The batch and its size in one store, after the slot's descriptors.
  reinterpret_cast<std::atomic<uint64_t> *>(&Ring->slot[Slot].post)
      ->store(uint64_t(Batch) | uint64_t(Count) << 32, std::memory_order_release);
  return std::nullopt;
}

Expected<bool> GpuRunner::done(unsigned Slot, bool Wait) {
  if (Slot >= EBPFGPU_RING_SLOTS)
    return Error("GpuRunner::done: no slot " + std::to_string(Slot));
  Posted &P = Posts[Slot];
  if (!P.Batch)
    return true;
  auto *Done = reinterpret_cast<std::atomic<uint32_t> *>(&Ring->slot[Slot].done);
  for (unsigned Spins = 0;; ++Spins) {
    if (Done->load(std::memory_order_acquire) == P.Batch) {
      P.Batch = 0;
      return true;
    }
    if ((!Wait || (Spins & 4095) == 4095) && Opts.WatchdogMs && msSince(P.Since) > Opts.WatchdogMs) {
      uint32_t Batch = P.Batch;
      P.Batch = 0;
      return stuck(Batch, P.Count, P.Beat);
    }
    if (!Wait)
      return false;
    EBPFGPU_CPU_PAUSE();
  }
}

MaybeError GpuRunner::runPersistent(uint32_t Count, size_t FrameBytes, BatchTiming *Timing) {
  const CudaApi &A = Dev.api();
  if (Stuck)
    return Error("the persistent GPU kernel stopped answering earlier; no batch can run");
  if (Opts.Slots != 1)
    return Error("GpuRunner::run: a runner of several slots takes post() and done()");
  if (!Launched && !Halted)
    if (MaybeError E = launchPersistent())
      return E;
  if (!Running)
    return Error("the persistent GPU kernel is not running");
  CUstream S = static_cast<CUstream>(Stream);
  const bool Copy = Opts.Path == GpuDataPath::Copy;
  auto T0 = Clock::now();
  if (Copy) {
    EBPFGPU_CHECK(A, cuMemcpyHtoDAsync, DevDescs, HostDescs, Count * sizeof(ebpfgpu_packet_desc),
                  S);
    EBPFGPU_CHECK(A, cuMemcpyHtoDAsync, DevFrames, HostFrames, FrameBytes, S);
    EBPFGPU_CHECK(A, cuStreamSynchronize, S);
  }
  auto T1 = Clock::now();
  const uint32_t Batch = NextBatch++;
  ebpfgpu_ring_slot &Slot = Ring->slot[0];
  // The batch and its size in one store, after the descriptors.
  reinterpret_cast<std::atomic<uint64_t> *>(&Slot.post)
      ->store(uint64_t(Batch) | uint64_t(Count) << 32, std::memory_order_release);
  auto *Done = reinterpret_cast<std::atomic<uint32_t> *>(&Slot.done);
  const uint64_t Beat = reinterpret_cast<std::atomic<uint64_t> *>(&Ring->heartbeat)->load();
  for (unsigned Spins = 0; Done->load(std::memory_order_acquire) != Batch;) {
    EBPFGPU_CPU_PAUSE();
    if ((++Spins & 4095) != 0 || msSince(T1) <= Opts.WatchdogMs)
      continue;
    if (Done->load(std::memory_order_acquire) == Batch)
      break;
    return stuck(Batch, Count, Beat);
  }
  auto T2 = Clock::now();
  if (Copy) {
    EBPFGPU_CHECK(A, cuMemcpyDtoHAsync, HostFrames, DevFrames, FrameBytes, S);
    EBPFGPU_CHECK(A, cuStreamSynchronize, S);
  }
  if (Timing) {
    auto Ms = [](Clock::time_point From, Clock::time_point To) {
      return float(std::chrono::duration<double, std::milli>(To - From).count());
    };
    Timing->CopyInMs = Ms(T0, T1);
    Timing->KernelMs = Ms(T1, T2);
    Timing->CopyOutMs = Ms(T2, Clock::now());
  }
  return std::nullopt;
}

} // namespace ebpfgpu::loader

// SPDX-License-Identifier: Apache-2.0
//
// The GPU (CUDA driver) implementation of runtime::BatchExecutor, private to
// exec/: one runner for run() (GpuExecutor.cpp makes it), and the lanes of
// the data plane's workers (GpuLanes.cpp: launch-mode runners, or a
// persistent kernel per worker, with batches in flight).

#ifndef EBPF_GPU_EXEC_GPUEXECUTOR_H
#define EBPF_GPU_EXEC_GPUEXECUTOR_H

#ifdef EBPF_GPU_HAVE_CUDA
#include "Backends.h"
#include "Collectors.h"

#include "ebpf-gpu/Loader/GpuLoader.h"
#include "ebpf-gpu/Loader/GpuReclaimBarrier.h"
#include "ebpf-gpu/Loader/GpuRunner.h"
#include "ebpf-gpu/Platform/MapShape.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace ebpfgpu::exec::gpu {

using runtime::BatchExecutor;
using runtime::PacketBatch;

class GpuLane;
class PersistentLane;

class GpuExecutor final : public BatchExecutor {
public:
  GpuExecutor(std::unique_ptr<loader::GpuDevice> Dev, std::unique_ptr<loader::GpuProgram> Prog,
              std::string Name, const GpuExecOptions &Opts, const abi::GpuObjectSpec &Spec)
      : Dev(std::move(Dev)), Prog(std::move(Prog)), Name(std::move(Name)), Opts(Opts),
        ReadOnlyPackets(Spec.PacketsReadOnly),
        RxMetadata(std::any_of(Spec.Helpers.begin(), Spec.Helpers.end(), [](const std::string &H) {
          return H.rfind("xdp_metadata_rx_", 0) == 0;
        })) {
    Latencies.reserve(MaxLatencies); // nothing allocated per batch
    Timed = Opts.TimeKernel;
    for (const platform::MapSpec &M : Spec.Maps)
      MapList.push_back(runtime::liveMap(M));
  }
  // The runner (its persistent kernel) before the program, the program
  // before its device.
  ~GpuExecutor() override {
    Runner.reset();
    if (Barrier && Dev->bindThread())
      (void)Barrier.release(); // no context: its streams cannot be waited for
    Barrier.reset();
    Prog.reset();
  }

  /// Whether runners on the mapped path stage packets (GpuExecOptions::Stage).
  bool stages() const {
    return Opts.Stage == GpuExecOptions::Staging::On ||
           (Opts.Stage == GpuExecOptions::Staging::Auto && (!ReadOnlyPackets || latencyBatches()));
  }
  /// Persistent mode with batches of at most 64 packets (the latency mode):
  /// the worker's copy of each packet's first bytes beside its descriptor
  /// (~25 ns a packet) saves the kernel a dependent PCIe round trip a batch.
  /// With larger batches the copy costs more than it saves (the port filter
  /// at batch 256, one worker: p50 18.4 us in place, 24.6-30.7 staged; 8
  /// workers at 4096: 147 Mpps in place, 79 staged; H100, PERFORMANCE.md).
  bool latencyBatches() const {
    return Opts.Mode == loader::GpuMode::Persistent && Opts.LaunchSize && Opts.LaunchSize <= 64;
  }

  /// Host operations on the maps: no run() (Launching), and every lane
  /// batch done with none started meanwhile (the reclaim barrier's lock).
  struct MapsLock {
    std::unique_lock<std::mutex> Launch;
    std::unique_lock<std::mutex> Lanes;
  };
  MapsLock lockMaps() {
    MapsLock L{std::unique_lock(Launching), {}};
    if (Barrier && !Dev->bindThread())
      L.Lanes = Barrier->quiesce();
    return L;
  }

  /// The barrier between the lane batches of a program whose maps the
  /// device reclaims and its reclaims (made at the first such lane, under
  /// Launching): each lane queues on a stream of its own, and no batch
  /// runs beside a reclaim.
  Expected<loader::GpuReclaimBarrier *> barrier() {
    if (!Barrier) {
      auto B = loader::GpuReclaimBarrier::create(*Dev, *Prog, Opts.ReclaimPeriod);
      if (!B)
        return B.takeError();
      Barrier = std::move(*B);
    }
    return Barrier.get();
  }

  MaybeError run(PacketBatch &Batch) override {
    std::lock_guard Lock(Launching);
    if (MaybeError E = Dev->bindThread())
      return E;
    size_t N = Batch.size();
    size_t Step = Opts.LaunchSize ? Opts.LaunchSize : std::max<size_t>(N, 1);
    for (size_t First = 0; First < N; First += Step) {
      uint32_t Count = uint32_t(std::min(Step, N - First));
      if (MaybeError E = runLaunch(Batch, First, Count))
        return E;
    }
    return std::nullopt;
  }

  Expected<std::unique_ptr<runtime::BatchLane>> openLane(unsigned Depth, unsigned Worker) override;
  /// openLane in persistent mode: a kernel of the worker's own.
  Expected<std::unique_ptr<runtime::BatchLane>> openPersistentLane(unsigned Depth, unsigned Worker);

  Expected<std::string> dumpMaps() override {
    MapsLock Lock = lockMaps();
    if (MaybeError E = Dev->bindThread())
      return std::move(*E);
    return Prog->dumpMaps();
  }
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) override {
    MapsLock Lock = lockMaps();
    if (MaybeError E = Dev->bindThread())
      return std::move(*E);
    return Prog->updateMap(Map, Key, Value);
  }
  MaybeError setFib(const std::vector<uint8_t> &Block) override {
    MapsLock Lock = lockMaps();
    if (MaybeError E = Dev->bindThread())
      return E;
    return Prog->setFib(Block);
  }

  MaybeError setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                         const std::string &Inner) override {
    MapsLock Lock = lockMaps();
    if (MaybeError E = Dev->bindThread())
      return E;
    return Prog->setInnerMap(Outer, Key, Inner);
  }
  MaybeError checkMaps() override {
    MapsLock Lock = lockMaps();
    if (MaybeError E = Dev->bindThread())
      return std::move(*E);
    return Prog->checkMaps();
  }
  Expected<std::string> takeTrace() override {
    std::lock_guard Lock(Launching);
    return Trace.take();
  }
  Expected<std::string> takeEvents() override {
    std::lock_guard Lock(Launching);
    return Events.take();
  }
  Expected<std::vector<std::string>> warnings() override {
    std::lock_guard Lock(Launching);
    if (MaybeError E = Dev->bindThread())
      return std::move(*E);
    auto Starved = Prog->starvedMaps();
    if (!Starved)
      return Starved.takeError();
    std::vector<std::string> Out = Events.warnings();
    for (const std::string &M : *Starved)
      Out.push_back("map " + M + " updates refused (E2BIG) because the launches between two "
                    "reclaims unlinked every spare element; smaller batches avoid it");
    return Out;
  }
  MaybeError usePacketMemory(void *Addr, size_t Bytes) override {
    std::lock_guard Lock(Launching);
    if (MaybeError E = Dev->bindThread())
      return E;
    // Only the mapped path reads packets in place; the copy path stages
    // them whatever memory they are in.
    if (Opts.Path != loader::GpuDataPath::Mapped)
      return std::nullopt;
    // Page-locking waits for the device to be idle: a persistent kernel
    // stops first (measured on the H100: cuMemHostRegister under it never
    // returned) and starts again on the next batch.
    Runner.reset();
    auto D = Dev->mapHostMemory(Addr, Bytes);
    if (!D)
      return D.takeError();
    const auto *Lo = static_cast<const uint8_t *>(Addr);
    PacketRange R{Lo, Lo + Bytes, *D};
    // Sorted by address: a pool in hugepages comes in many chunks, and
    // every packet of a batch is looked up.
    PacketRanges.insert(std::upper_bound(PacketRanges.begin(), PacketRanges.end(), R,
                                         [](const PacketRange &A, const PacketRange &B) {
                                           return A.Lo < B.Lo;
                                         }),
                        R);
    return rearm();
  }
  uint64_t packetsRunInPlace() const override { return InPlacePackets; }
  void forgetPacketMemory() override {
    std::lock_guard Lock(Launching);
    if (Dev->bindThread())
      return;
    Runner.reset(); // as above: unlocking pages waits for an idle device
    for (const PacketRange &R : PacketRanges)
      Dev->unmapHostMemory(const_cast<uint8_t *>(R.Lo));
    PacketRanges.clear();
    (void)rearm(); // else made at the next batch
  }

  std::vector<runtime::MapInfo> maps() const override { return MapList; }
  /// Its GPU and program, for another entry of several GPUs that shares
  /// the program's maps (GpuPeerMaps).
  const loader::GpuDevice &device() const { return *Dev; }
  const loader::GpuProgram &program() const { return *Prog; }
  MaybeError accessMap(const std::string &Map, const runtime::MapOperation &Op) override {
    MapsLock Lock = lockMaps();
    if (MaybeError E = Dev->bindThread())
      return E;
    return Prog->accessMap(Map, Op);
  }

  const std::string &programName() const override { return Name; }
  const char *backendName() const override { return "gpu"; }
  bool readsOnlyPackets() const override { return ReadOnlyPackets; }
  bool readsRxMetadata() const override { return RxMetadata; }
  double kernelMs() const { return KernelMs; }
  int64_t reclaims() {
    std::lock_guard Lock(Launching);
    return Barrier ? int64_t(Barrier->reclaims()) : -1;
  }
  /// The `Percent` percentile of the launches' latency (microseconds, from
  /// the batch staged in pinned memory to its verdicts on the host); -1
  /// before the first launch.
  double latencyUs(double Percent) {
    std::lock_guard Lock(Launching);
    if (Latencies.empty())
      return -1;
    std::vector<float> Sorted = Latencies;
    size_t K = std::min(Sorted.size() - 1, size_t(Percent / 100 * double(Sorted.size())));
    std::nth_element(Sorted.begin(), Sorted.begin() + K, Sorted.end());
    return Sorted[K];
  }

  std::shared_ptr<void> quiesce() override {
    auto Token = std::make_shared<std::unique_lock<std::mutex>>(Launching);
    if (Runner && Runner->options().Mode == loader::GpuMode::Persistent && !Dev->bindThread()) {
      Runner.reset(); // ensureRunner starts it again at the next batch
      (void)rearm();
    }
    return Token;
  }
  void stopDeviceLoops() override {
    {
      std::lock_guard Lock(LaneMutex);
      for (loader::GpuRunner *R : LaneRunners)
        R->stopSoon();
    }
    std::lock_guard Lock(Launching);
    if (Runner && Runner->options().Mode == loader::GpuMode::Persistent && !Dev->bindThread())
      (void)Runner->halt(); // its memory stays until the runner goes
  }

  /// haltGpuExecutor.
  std::string halt() {
    std::lock_guard Lock(Launching);
    if (!Runner || Dev->bindThread())
      return "";
    auto Start = std::chrono::steady_clock::now();
    bool Halted = Runner->halt();
    double Ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
    char Text[160];
    if (!Halted)
      std::snprintf(Text, sizeof(Text),
                    "the GPU kernel did not end within %.0f ms of the abort (no loop guard reached)",
                    Ms);
    else if (Runner->aborted())
      std::snprintf(Text, sizeof(Text),
                    "the hung GPU kernel was aborted at its loop guards and ended in %.1f ms", Ms);
    else
      return "";
    return Text;
  }

  /// abandonGpuExecutor.
  std::string abandon() {
    std::lock_guard Lock(Launching);
    if (!Dev->ownsContext())
      return "left as it was (the GPU's primary context is shared)";
    (void)Dev->bindThread();
    // A kernel that hangs ends at its next loop guard once aborted;
    // cuCtxDestroy would wait for it for ever.
    bool Halted = !Runner || Runner->halt();
    bool Aborted = Runner && Runner->aborted();
    // Their memory goes with the context: freeing it again would be an
    // error (and, after an abort, the context has a sticky error).
    (void)Runner.release();
    (void)Prog.release();
    if (!Halted) {
      (void)Dev.release();
      return "its kernel did not stop (no loop guard reached within " +
             std::to_string(loader::GpuRunner::AbortWaitMs) +
             " ms of the abort): the old CUDA context is left behind, still running";
    }
    Dev->destroyContext();
    return Aborted ? "the hung kernel aborted and its CUDA context destroyed"
                   : "its CUDA context destroyed";
  }

  /// Makes the runner (a persistent kernel starts) for launches of the
  /// expected size, before the first batch.
  MaybeError prepare() {
    std::lock_guard Lock(Launching);
    if (MaybeError E = Dev->bindThread())
      return E;
    uint32_t Packets = uint32_t(Opts.LaunchSize ? Opts.LaunchSize : 256);
    if (!Opts.ContextGroup)
      return ensureRunner(Packets, Packets * bufferBytes(Opts.MaxFrame));
    // One of several contexts: the kernel starts once here (a program that
    // cannot have one fails at load time) and ends, and the runner is made
    // again to start at its first batch, so that no kernel of the group
    // runs while another context pins or frees memory.
    if (MaybeError E = ensureRunner(Packets, Packets * bufferBytes(Opts.MaxFrame), false))
      return E;
    Runner.reset();
    return rearm();
  }

private:
  friend class GpuLane;
  friend class PersistentLane;
  /// Each packet's buffer in the runner's frames: XDP's headroom, the
  /// packet, XDP's tailroom, rounded up to 64 bytes; only what a batch
  /// holds crosses PCIe.
  static size_t bufferBytes(uint32_t Len) {
    return (runtime::XdpHeadroom + Len + runtime::XdpTailroom + 63) & ~size_t(63);
  }

  /// A runner with room for `Count` packets of `Bytes` bytes of buffers;
  /// made again, larger, when a launch needs more.
  MaybeError ensureRunner(uint32_t Count, size_t Bytes, bool Deferred = true) {
    if (Runner && !Runner->halted() && Runner->options().MaxPackets >= Count &&
        Runner->options().MaxFrameBytes >= Bytes)
      return std::nullopt;
    const bool Persistent = Opts.Mode == loader::GpuMode::Persistent;
    if (Opts.ContextGroup && Persistent && Runner && !Runner->halted())
      // Made again larger, its memory would be pinned while the other
      // contexts' kernels run, which waits for them: never.
      return Error("gpu back end: a batch of " + std::to_string(Count) + " packets in " +
                   std::to_string(Bytes) + " bytes of buffers, larger than the persistent "
                   "kernel's runner of one of several GPU contexts (" +
                   std::to_string(Runner->options().MaxPackets) + " packets in " +
                   std::to_string(Runner->options().MaxFrameBytes) +
                   " bytes, made before any kernel of the contexts ran; launches of at most that "
                   "many packets (--launch-size) of at most --max-frame bytes fit it)");
    loader::GpuRunnerOptions RO;
    RO.StartAtFirstPost = Opts.ContextGroup && Persistent && Deferred;
    RO.Mode = Opts.Mode;
    RO.Path = Opts.Path;
    RO.Blocks = Opts.Blocks;
    RO.WatchdogMs = Opts.WatchdogMs;
    RO.Stage = stages();
    RO.MaxPackets = std::max<uint32_t>(Count, Runner ? Runner->options().MaxPackets : 0);
    RO.MaxFrameBytes = std::max(Bytes, Runner ? Runner->options().MaxFrameBytes : 0);
    Runner.reset();
    auto R = loader::GpuRunner::create(*Dev, *Prog, RO);
    if (!R)
      return R.takeError();
    Runner = std::move(*R);
    return std::nullopt;
  }

  /// One of several contexts in persistent mode (GpuExecOptions::
  /// ContextGroup): the runner made now, its kernel to start at the first
  /// batch, while no kernel of the group runs (the caller's duty); batches
  /// then pin and free nothing. Elsewhere nothing: made at the next batch.
  MaybeError rearm() {
    if (!Opts.ContextGroup || Opts.Mode != loader::GpuMode::Persistent)
      return std::nullopt;
    uint32_t Packets = uint32_t(Opts.LaunchSize ? Opts.LaunchSize : 256);
    return ensureRunner(Packets, Packets * bufferBytes(Opts.MaxFrame));
  }

  /// The device address of `Len` bytes at `Host` when they lie in packet
  /// memory the GPU maps; 0 otherwise. `Hint`: the range the caller's last
  /// packet was in (packets of a batch mostly share one), tried first.
  uint64_t mappedAddress(const uint8_t *Host, size_t Len, size_t &Hint) const {
    if (Hint < PacketRanges.size()) {
      const PacketRange &R = PacketRanges[Hint];
      if (Host >= R.Lo && Host < R.Hi && Len <= size_t(R.Hi - Host))
        return R.Dev + uint64_t(Host - R.Lo);
    }
    auto It = std::upper_bound(PacketRanges.begin(), PacketRanges.end(), Host,
                               [](const uint8_t *H, const PacketRange &R) { return H < R.Lo; });
    if (It == PacketRanges.begin())
      return 0;
    --It;
    if (Host >= It->Hi || Len > size_t(It->Hi - Host))
      return 0;
    Hint = size_t(It - PacketRanges.begin());
    return It->Dev + uint64_t(Host - It->Lo);
  }
  uint64_t mappedAddress(const uint8_t *Host, size_t Len) const {
    size_t Hint = SIZE_MAX;
    return mappedAddress(Host, Len, Hint);
  }

  /// Mapped path, every packet in mapped packet memory (mbufs): the kernel
  /// runs them where they are. False when the batch does not qualify.
  Expected<bool> runInPlace(PacketBatch &Batch, size_t First, uint32_t Count) {
    if (Opts.Path != loader::GpuDataPath::Mapped || PacketRanges.empty())
      return false;
    if (MaybeError E = ensureRunner(Count, 0))
      return std::move(*E).withContext("gpu back end");
    ebpfgpu_packet_desc *Descs = Runner->descs();
    size_t Hint = SIZE_MAX;
    // The first bytes copied beside the descriptors below: each line is
    // another core's (a NIC's, the generator's) until read, so all of the
    // batch's are asked for before the first is needed.
    if (Runner->inlines())
      for (uint32_t K = 0; K < Count; ++K)
        __builtin_prefetch(Batch.buffer(First + K) + Batch.offset(First + K));
    if (!describeInPlace(Batch, Descs, Hint, Runner.get(), 0, First, Count))
      return false;
    loader::BatchTiming T;
    auto Started = std::chrono::steady_clock::now();
    if (MaybeError E = Runner->runInPlace(Count, Timed ? &T : nullptr))
      return std::move(*E);
    recordLatency(Started);
    KernelMs += T.KernelMs;
    InPlacePackets += Count;
    const ebpfgpu_verdict *V = Runner->verdicts();
    for (uint32_t K = 0; K < Count; ++K)
      if (!Batch.setOutcome(First + K, V[K].data_offset, V[K].length, V[K].action,
                            V[K].redirect_target))
        return Error("packet " + std::to_string(First + K) + " left its buffer");
    return true;
  }

  void recordLatency(std::chrono::steady_clock::time_point Started) {
    if (Latencies.size() < MaxLatencies)
      Latencies.push_back(float(
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - Started)
              .count()));
  }

  /// After each launch, whose first packet is the batch's packet `First`.
  MaybeError maintainMaps(size_t First) {
    // What this launch deleted from hash maps goes back to the free lists
    // before the next launch.
    if (MaybeError E = Prog->reclaimMaps())
      return E;
    auto Lines = Prog->takeTrace();
    if (!Lines)
      return Lines.takeError();
    Trace.add(*Lines);
    // The launch's records, their packet indexes made the batch's.
    abi::EventBatch B;
    if (MaybeError E = Prog->takeEvents(uint32_t(First), B))
      return E;
    Events.add(B);
    return std::nullopt;
  }

  MaybeError runLaunch(PacketBatch &Batch, size_t First, uint32_t Count) {
    auto InPlace = runInPlace(Batch, First, Count);
    if (!InPlace)
      return InPlace.takeError();
    if (*InPlace)
      return maintainMaps(First);
    if (MaybeError E = ensureRunner(Count, frameBytes(Batch, First, Count)))
      return E;
    uint8_t *Frames = Runner->frames();
    ebpfgpu_packet_desc *Descs = Runner->descs();
    size_t At = copyIntoFrames(Batch, Descs, Frames, Runner.get(), 0, First, Count);
    loader::BatchTiming T;
    auto Started = std::chrono::steady_clock::now();
    if (MaybeError E = Runner->run(Count, At, Timed ? &T : nullptr))
      return E;
    recordLatency(Started);
    KernelMs += T.KernelMs;
    if (MaybeError E = takeOutcomes(Batch, Runner->verdicts(), Frames, false, First, Count))
      return E;
    return maintainMaps(First);
  }

  /// The descriptors of packets First .. First + Count - 1 of `Batch` (all
  /// of it by default), each run where it is: false when one is not in the
  /// mapped packet memory. `Hint` as mappedAddress's. With `Inline`, each
  /// packet's first bytes also go beside its descriptor in slot `Slot`
  /// (GpuRunner::inlinePacket).
  bool describeInPlace(PacketBatch &Batch, ebpfgpu_packet_desc *Descs, size_t &Hint,
                       loader::GpuRunner *Inline, unsigned Slot, size_t First = 0,
                       size_t Count = SIZE_MAX) const {
    Count = std::min(Count, Batch.size() - First);
    const uint32_t Ifindex = Batch.ingressIfindex(), Queue = Batch.rxQueueIndex();
    const uint32_t Flags = Batch.rxMeta() ? EBPFGPU_DESC_RX_META : 0;
    for (size_t K = 0; K < Count; ++K) {
      size_t I = First + K;
      uint64_t Dev =
          Batch.isExternal(I) ? mappedAddress(Batch.buffer(I), Batch.bufferSize(I), Hint) : 0;
      if (!Dev)
        return false;
      // Built whole and stored at once: the descriptors are pinned memory
      // the GPU reads, written once per packet.
      Descs[K] = ebpfgpu_packet_desc{Dev,      Batch.offset(I), Batch.length(I),
                                     Batch.bufferSize(I), Ifindex, Queue, Flags};
      if (Inline)
        Inline->inlinePacket(Slot, uint32_t(K), Batch.buffer(I) + Batch.offset(I));
    }
    return true;
  }

public:
  // The copy path's frames, public for tests/unit/GpuFramesTest.cpp (their
  // layout checked without a GPU).
  /// The frames that copyIntoFrames needs for those packets.
  static size_t frameBytes(const PacketBatch &Batch, size_t First = 0, size_t Count = SIZE_MAX) {
    Count = std::min(Count, Batch.size() - First);
    size_t Bytes = 0;
    for (size_t K = 0; K < Count; ++K)
      Bytes += bufferBytes(Batch.length(First + K));
    return Bytes;
  }

  /// Copies those packets into `Frames` (a buffer of bufferBytes() each)
  /// and describes them there (offsets into `Frames`), with their first
  /// bytes beside as describeInPlace; returns the bytes used.
  static size_t copyIntoFrames(const PacketBatch &Batch, ebpfgpu_packet_desc *Descs,
                               uint8_t *Frames, loader::GpuRunner *Inline, unsigned Slot,
                               size_t First = 0, size_t Count = SIZE_MAX) {
    Count = std::min(Count, Batch.size() - First);
    size_t At = 0;
    for (size_t K = 0; K < Count; ++K) {
      uint32_t Len = Batch.length(First + K);
      ebpfgpu_packet_desc &D = Descs[K];
      D = {};
      D.buffer = At;
      // Where the batch has it: its own headroom (PacketBatch::addAt, an
      // mbuf's data_off), at most XDP's.
      D.data_offset = std::min(Batch.offset(First + K), runtime::XdpHeadroom);
      D.length = Len;
      // A frame's room, or the packet's own after it where that is less
      // (PacketBatch::addAt's cap).
      D.buffer_size = uint32_t(std::min<size_t>(
          bufferBytes(Len), D.data_offset + Batch.bufferSize(First + K) - Batch.offset(First + K)));
      D.ingress_ifindex = Batch.ingressIfindex();
      D.rx_queue_index = Batch.rxQueueIndex();
      std::memcpy(Frames + At + D.data_offset, Batch.data(First + K), Len);
      if (Batch.rxMeta()) { // the packet's metadata goes with it
        std::memcpy(Frames + At, Batch.buffer(First + K), sizeof(ebpfgpu_rx_meta));
        D.flags = EBPFGPU_DESC_RX_META;
      }
      if (Inline)
        Inline->inlinePacket(Slot, uint32_t(K), Frames + At + D.data_offset);
      // Frames stay bufferBytes apart (takeOutcomes walks them so) where a
      // packet's own room is less.
      At += bufferBytes(Len);
    }
    return At;
  }

  /// Those packets' verdicts `V` into `Batch`, with their final bytes from
  /// `Frames` unless they ran in place.
  static MaybeError takeOutcomes(PacketBatch &Batch, const ebpfgpu_verdict *V,
                                 const uint8_t *Frames, bool InPlace, size_t First = 0,
                                 size_t Count = SIZE_MAX) {
    Count = std::min(Count, Batch.size() - First);
    size_t At = 0;
    for (size_t K = 0; K < Count; ++K) {
      size_t I = First + K;
      if (!InPlace) {
        size_t Buffer = bufferBytes(Batch.length(I));
        if (V[K].data_offset > Buffer || V[K].length > Buffer - V[K].data_offset)
          return Error("packet " + std::to_string(I) + " left its buffer");
        // The packet's final bytes, at the same place in the batch's
        // buffer (its headroom at least the copy's, its buffer at least as
        // long).
        std::memcpy(Batch.buffer(I) + V[K].data_offset, Frames + At + V[K].data_offset,
                    V[K].length);
        At += Buffer;
      }
      if (!Batch.setOutcome(I, V[K].data_offset, V[K].length, V[K].action, V[K].redirect_target))
        return Error("packet " + std::to_string(I) + " left its buffer");
    }
    return std::nullopt;
  }

private:
  /// Staged descriptors (BatchLane::stage): their host buffer addresses
  /// made device ones (one outside the mapped packet memory would fault the
  /// GPU); with `Runner` and `Slot`, each packet's first bytes copied
  /// beside its descriptor (GpuRunner::inlinePacket).
  MaybeError mapStaged(ebpfgpu_packet_desc *Descs, uint32_t Count, size_t &Hint,
                       loader::GpuRunner *Inline, unsigned Slot = 0) const {
    // The packets' lines are asked for a few packets ahead of the copy
    // (the data plane asked for them as they came: readsPacketBytes()).
    constexpr uint32_t Ahead = 16;
    const bool Copies = Inline && Inline->inlines();
    for (uint32_t K = 0; K < Count; ++K) {
      if (Copies && K + Ahead < Count)
        __builtin_prefetch(reinterpret_cast<const uint8_t *>(Descs[K + Ahead].buffer) +
                           Descs[K + Ahead].data_offset);
      ebpfgpu_packet_desc &D = Descs[K];
      const auto *Host = reinterpret_cast<const uint8_t *>(D.buffer);
      uint64_t Dev = mappedAddress(Host, D.buffer_size, Hint);
      if (!Dev || D.data_offset > D.buffer_size || D.length > D.buffer_size - D.data_offset)
        return Error("packet " + std::to_string(K) + ": buffer outside the mapped packet memory");
      D.buffer = Dev;
      if (Inline)
        Inline->inlinePacket(Slot, K, Host + D.data_offset);
    }
    return std::nullopt;
  }

  /// After a staged batch: every packet must have stayed inside its buffer.
  static MaybeError checkStaged(const ebpfgpu_verdict *V, const ebpfgpu_packet_desc *D,
                                uint32_t Count) {
    for (uint32_t K = 0; K < Count; ++K)
      if (V[K].data_offset > D[K].buffer_size ||
          V[K].length > D[K].buffer_size - V[K].data_offset)
        return Error("packet " + std::to_string(K) + " left its buffer");
    return std::nullopt;
  }

  /// Host memory the runtime's packets live in, mapped for the GPU.
  struct PacketRange {
    const uint8_t *Lo, *Hi;
    uint64_t Dev;
  };
  std::vector<PacketRange> PacketRanges;
  std::unique_ptr<loader::GpuDevice> Dev;
  std::unique_ptr<loader::GpuProgram> Prog;
  std::unique_ptr<loader::GpuRunner> Runner;
  std::string Name;
  GpuExecOptions Opts;
  bool ReadOnlyPackets;
  bool RxMetadata; ///< the module reads EBPFGPU_DESC_RX_META (GpuAbi.h)
  std::vector<runtime::MapInfo> MapList;
  std::mutex Launching;
  std::unique_ptr<loader::GpuReclaimBarrier> Barrier; ///< barrier()
  /// The persistent lanes' runners (PersistentLane).
  std::mutex LaneMutex;
  std::vector<loader::GpuRunner *> LaneRunners;
  double KernelMs = 0;
  /// Packets run in mapped packet memory, nothing copied (every path:
  /// launches, lanes, staged descriptors).
  std::atomic<uint64_t> InPlacePackets{0};
  /// Launch mode splits each launch's time with device events (they add a
  /// little); the batch path's latency is measured without them.
  bool Timed = true;
  static constexpr size_t MaxLatencies = size_t(1) << 20;
  std::vector<float> Latencies; ///< the first MaxLatencies launches, µs
  TraceCollector Trace;
  EventCollector Events;
};

} // namespace ebpfgpu::exec::gpu

#endif // EBPF_GPU_HAVE_CUDA
#endif // EBPF_GPU_EXEC_GPUEXECUTOR_H

// SPDX-License-Identifier: Apache-2.0
//
// Running batch after batch of an XDP program on the GPU, with every buffer
// allocated once: the packet path of the one-shot runs and of the DPDK
// runtime. Two control-flow modes and two data paths:
//   launch      one kernel launch per batch, waited for on a stream
//   persistent  one kernel for the runner's life, polling a doorbell ring
//               in pinned host memory (GpuAbi.h: struct ebpfgpu_ring)
// In both modes a batch not done within the watchdog's time is an error, and
// a kernel that hangs is ended by an abort word its loops read (halt()).
//   copy        frames and descriptors are staged in pinned host memory and
//               copied to the device in one transfer each, and back
//   mapped      the kernel reads and writes the frames, descriptors and
//               verdicts in mapped pinned host memory over PCIe: no copies
// Not thread-safe: one batch at a time through run() and start(), or, in
// persistent mode with several ring slots, a batch per slot through post()
// and done(Slot), in slot order. A program's host-side map
// operations (GpuProgram::dumpMaps, updateMap, reclaimMaps...) may be called
// between runs, also while a persistent kernel waits: they use the legacy
// stream, which a persistent kernel's non-blocking stream does not wait on.

#ifndef EBPF_GPU_LOADER_GPURUNNER_H
#define EBPF_GPU_LOADER_GPURUNNER_H

#include "ebpf-gpu/Loader/GpuLoader.h"
#include "ebpf-gpu/Loader/GpuModes.h"

#include <chrono>
#include <memory>

namespace ebpfgpu::loader {

struct GpuRunnerOptions {
  GpuMode Mode = GpuMode::Launch;
  GpuDataPath Path = GpuDataPath::Copy;
  /// The most packets, and bytes of frames, one run() takes.
  uint32_t MaxPackets = 256;
  size_t MaxFrameBytes = 256 * 2048;
  /// Persistent mode: blocks of GpuBlockThreads threads (0: one per
  /// multiprocessor). Capped at what can be resident at once and at the
  /// program's CPUs (per-CPU maps).
  uint32_t Blocks = 0;
  /// A batch not done after this long fails the run, and every later one
  /// (0: launch mode waits for ever).
  uint32_t WatchdogMs = 1000;
  /// Launch mode: the CUstream to run on, shared with other runners and
  /// left to its owner (null: a stream of the runner's own).
  void *Stream = nullptr;
  /// Mapped path: stage small packets in device memory for the program
  /// (GpuAbi.h: EBPFGPU_STAGE_SLOT); false runs every packet in place.
  bool Stage = true;
  /// Persistent mode: the ring's slots, 1..EBPFGPU_RING_SLOTS, each with
  /// descriptors, verdicts, first bytes and frames of its own. With more
  /// than one (the mapped path only), batches are posted with post() and
  /// collected with done(Slot), several in flight; run() takes one slot.
  uint32_t Slots = 1;
  /// Persistent mode: the per-CPU slice of the kernel's thread 0; its
  /// threads are CPUs CpuBase, CpuBase + 1, ... (below GpuProgram::cpus()).
  uint32_t CpuBase = 0;
  /// Persistent mode: the kernel starts at the first post() or run()
  /// instead of in create(), so that several runners allocate their memory before any of
  /// their kernels runs (the driver may wait for an idle device to
  /// allocate or free pinned memory; a persistent kernel never idles).
  bool StartAtFirstPost = false;
};

class GpuRunner {
public:
  /// Allocates the buffers and, in persistent mode, launches the kernel
  /// (which `Prog` must have: objects compiled before it fail here).
  /// `Prog` and `Dev` must outlive the runner.
  static Expected<std::unique_ptr<GpuRunner>> create(GpuDevice &Dev, GpuProgram &Prog,
                                                     const GpuRunnerOptions &Opts);
  /// halt(), then frees the buffers if no kernel is left running (freeing
  /// them under one could corrupt memory).
  ~GpuRunner();
  GpuRunner(const GpuRunner &) = delete;
  GpuRunner &operator=(const GpuRunner &) = delete;

  /// Pinned host memory the caller fills before run(): packet buffers in
  /// frames(), one descriptor per packet whose `buffer` is the offset of
  /// its buffer in frames() (run() rewrites it to a device address).
  uint8_t *frames() { return HostFrames; }
  ebpfgpu_packet_desc *descs() { return HostDescs; }
  /// After run(): a verdict per packet; frames() holds the packets as the
  /// program left them.
  const ebpfgpu_verdict *verdicts() const { return HostVerdicts; }
  /// Persistent mode, mapped path, staging: after filling descriptor `K`
  /// (its buffer a device address, or an offset into frames()), copies the
  /// packet's first bytes from `Data` (the host address of its first byte)
  /// beside the descriptors and marks it (GpuAbi.h: EBPFGPU_DESC_INLINE),
  /// where the packet fits; the kernel then reads both in one PCIe round
  /// trip. Does nothing in other modes.
  void inlinePacket(uint32_t K, const uint8_t *Data) {
    if (HostInline)
      copyInline(K, Data);
  }
  /// Whether inlinePacket() copies (the caller may fetch the bytes early).
  bool inlines() const { return HostInline != nullptr; }

  /// Persistent mode, several slots: slot `Slot`'s frames (MaxFrameBytes),
  /// descriptors and verdicts (MaxPackets each), and its inlinePacket().
  uint8_t *frames(unsigned Slot) { return HostFrames + size_t(Slot) * Opts.MaxFrameBytes; }
  ebpfgpu_packet_desc *descs(unsigned Slot) { return HostDescs + size_t(Slot) * Opts.MaxPackets; }
  const ebpfgpu_verdict *verdicts(unsigned Slot) const {
    return HostVerdicts + size_t(Slot) * Opts.MaxPackets;
  }
  void inlinePacket(unsigned Slot, uint32_t K, const uint8_t *Data) {
    if (HostInline)
      copyInline(size_t(Slot) * Opts.MaxPackets + K, Data);
  }
  /// Persistent mode: posts the `Count` packets whose descriptors are in
  /// slot `Slot` (the slot after the last one posted) and returns at once.
  /// `InPlace`: their buffers are device addresses of mapped host memory
  /// the caller vouches for; otherwise offsets into frames(Slot), of which
  /// the first `FrameBytes` bytes hold the packets. The slot's arrays and
  /// packets stay untouched until done(Slot) says the batch is done.
  MaybeError post(unsigned Slot, uint32_t Count, size_t FrameBytes, bool InPlace);
  /// Whether slot `Slot`'s batch is done (`Wait`: returns only when it is).
  /// Fails once it has been posted longer than the watchdog allows; every
  /// later post fails too.
  Expected<bool> done(unsigned Slot, bool Wait);

  /// Runs the program over `Count` packets whose buffers lie in the first
  /// `FrameBytes` bytes of frames(). Fails on a driver error, a buffer
  /// outside those bytes, or (persistent) a batch the watchdog gave up on;
  /// after a watchdog failure every later run fails too.
  MaybeError run(uint32_t Count, size_t FrameBytes, BatchTiming *Timing = nullptr);
  /// Mapped path: runs `Count` packets whose descriptors already hold
  /// device addresses of buffers elsewhere (mapped host memory: mbufs, see
  /// GpuDevice::mapHostMemory); frames() is not used. The caller vouches
  /// for the buffers.
  MaybeError runInPlace(uint32_t Count, BatchTiming *Timing = nullptr);

  /// Launch mode, without waiting: queues what run() (InPlace false) or
  /// runInPlace() (true) does on the runner's stream and returns; the
  /// runner's buffers (and, in place, the packets) must stay untouched
  /// until done() says the batch is done. One batch at a time per runner:
  /// a data plane worker keeps several runners for several in flight.
  MaybeError start(uint32_t Count, size_t FrameBytes, bool InPlace);
  /// Whether the batch start() queued is done (`Wait`: returns only when
  /// it is). Fails on a driver error, or once the batch has run longer
  /// than the watchdog allows (as run(): every later batch fails too).
  Expected<bool> done(bool Wait);

  /// Ends the runner's kernels: a persistent kernel is asked to stop and
  /// given the watchdog's time; a kernel that does not end (or that the
  /// watchdog already gave up on) is aborted (GpuProgram::abortKernels) and
  /// given AbortWaitMs more. True when no kernel of the runner is left
  /// running; after an abort, aborted() is true and the context has a
  /// sticky error: it can only be destroyed. No run() may follow.
  bool halt();
  bool aborted() const { return Aborted; }
  /// halt() ended its kernel: no batch runs on it any more.
  bool halted() const { return Halted; }
  /// Asks a persistent kernel to return once its posted batches are done,
  /// without waiting: a runner that frees its memory (which may wait for an
  /// idle device) asks the kernels of its sibling runners first.
  void stopSoon();
  /// How long an aborted kernel has to reach a loop guard and trap.
  static constexpr uint32_t AbortWaitMs = 1000;

  const GpuRunnerOptions &options() const { return Opts; }
  /// Blocks of the program's persistent kernel the device holds at once
  /// (every persistent kernel's blocks must be resident together).
  static Expected<uint32_t> persistentBlocksResident(GpuDevice &Dev, GpuProgram &Prog);
  /// Threads of the grid: the CPUs packets are spread over.
  uint32_t gridThreads() const { return GridThreads; }

private:
  GpuRunner(GpuDevice &Dev, GpuProgram &Prog, const GpuRunnerOptions &Opts)
      : Dev(Dev), Prog(Prog), Opts(Opts) {}
  MaybeError allocate();
  /// Persistent mode: the ring, its sync words and the kernel's stream,
  /// then the kernel's launch (at create(), or at the first post()).
  MaybeError preparePersistent();
  MaybeError launchPersistent();
  void *PersistentFn = nullptr;
  uint32_t PersistentBlocks = 0;
  bool Launched = false;
  /// The program's persistent kernel (a CUfunction), or why it has none.
  static Expected<void *> persistentKernel(const CudaApi &A, GpuProgram &Prog);
  MaybeError runLaunch(uint32_t Count, size_t FrameBytes, BatchTiming *Timing);
  /// Checks a batch's descriptors and makes their buffers device addresses
  /// (offsets into the frames at `DevBase`).
  MaybeError checkBatch(ebpfgpu_packet_desc *Descs, uint32_t Count, size_t FrameBytes,
                        uint64_t DevBase);
  /// The persistent kernel did not finish batch `Batch` in time.
  Error stuck(uint32_t Batch, uint32_t Count, uint64_t Beat);
  /// Queues a launch-mode batch (copies in, kernel, copies back), with
  /// timing events where Ev is given; `Publish`: the kernel's last block
  /// sets DoneWord to DoneSeq + 1 (no copy may follow the kernel).
  MaybeError enqueueLaunch(uint32_t Count, size_t FrameBytes, void **Ev, bool Publish = false);
  MaybeError runPersistent(uint32_t Count, size_t FrameBytes, BatchTiming *Timing);
  /// True when the work queued on stream `S` ended within `Ms`.
  bool waitStopped(void *S, uint32_t Ms);
  /// Launch mode: waits for the batch on `Stream` under the watchdog.
  MaybeError waitLaunch(uint32_t Count);

  GpuDevice &Dev;
  GpuProgram &Prog;
  GpuRunnerOptions Opts;
  void *Stream = nullptr;       ///< copies, and launch-mode kernels
  bool OwnsStream = true;       ///< false: GpuRunnerOptions::Stream
  void *KernelStream = nullptr; ///< the persistent kernel
  uint8_t *HostFrames = nullptr;
  ebpfgpu_packet_desc *HostDescs = nullptr;
  ebpfgpu_verdict *HostVerdicts = nullptr;
  /// Device addresses: device memory (copy) or the mapped host buffers.
  uint64_t DevFrames = 0, DevDescs = 0, DevVerdicts = 0;
  /// Mapped path: device memory to stage packets in (owned), else 0.
  uint64_t DevStage = 0;
  /// Persistent mode, mapped, staging: the packets' first bytes (pinned,
  /// mapped; EBPFGPU_INLINE_BYTES a packet), else null.
  uint8_t *HostInline = nullptr;
  uint64_t DevInline = 0;
  void copyInline(size_t K, const uint8_t *Data);
  /// Persistent mode.
  ebpfgpu_ring *Ring = nullptr;
  uint64_t DevRing = 0, DevSync = 0;
  uint32_t NextBatch = 1;
  /// post(): each slot's batch in flight (0: none), its packets, since
  /// when, and the heartbeat then.
  struct Posted {
    uint32_t Batch = 0, Count = 0;
    uint64_t Beat = 0;
    std::chrono::steady_clock::time_point Since;
  };
  Posted Posts[EBPFGPU_RING_SLOTS];
  /// start(): the batch in flight, since when, and how many packets.
  bool Pending = false;
  uint32_t PendingCount = 0;
  std::chrono::steady_clock::time_point PendingSince;
  /// Each batch start() queues ends with its number (DoneSeq) in this
  /// word of mapped pinned memory, so that done() reads host memory
  /// instead of asking the driver (cuStreamQuery takes the context's lock:
  /// eight workers asking a million times a second queued on it). On the
  /// mapped path the kernel's last block writes it (ebpfgpu_batch_done,
  /// `DevArrived` its count of blocks); on the copy path a
  /// cuStreamWriteValue32 after the copies back does. Null where the
  /// driver cannot (done() then asks cuStreamQuery).
  uint32_t *DoneWord = nullptr;
  uint64_t DevDoneWord = 0, DevArrived = 0;
  uint32_t DoneSeq = 0;
  bool DoneWordWorks = true;
  /// When done() last asked the driver about a batch the word has not
  /// announced yet (a faulted kernel never writes it).
  std::chrono::steady_clock::time_point LastQuery;
  bool Running = false, Stuck = false, Halted = false, Aborted = false;
  uint32_t GridThreads = 0;
};

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_GPURUNNER_H

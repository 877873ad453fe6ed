// SPDX-License-Identifier: Apache-2.0
//
// Live GPU objects: a device (CUDA primary context), and a program loaded
// from a `.gpu.o` (PTX JIT-compiled by the driver, global data bound, batch
// runs). The CUDA driver is opened at run time (dlopen of libcuda.so.1), so
// a machine without a GPU or driver gets one clear error, not a failure to
// start. Every driver call is checked; errors name the call and the
// driver's error name. Objects are not thread-safe; destroy programs
// before their device.

#ifndef EBPF_GPU_LOADER_GPULOADER_H
#define EBPF_GPU_LOADER_GPULOADER_H

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Abi/TraceLog.h"
#include "ebpf-gpu/Platform/GpuAbi.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ebpfgpu::loader {

class KernelChoice;

struct CudaApi;

/// Why GPUs `Gpus` (device ordinals, the first holding the shared maps)
/// cannot share maps: a GPU after the first that cannot reach the first's
/// memory (CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED) or not with native
/// atomics (NATIVE_ATOMIC_SUPPORTED: NVLink; PCIe has none), or the same
/// device as the first; empty when every one can. Errors: no driver, no
/// such GPU.
Expected<std::string> peerMapsProblem(const std::vector<int> &Gpus);

class GpuDevice {
public:
  /// Opens GPU `Ordinal`. Fails when there is no driver or no such GPU.
  /// Devices share the GPU's primary context, unless `OwnContext`: then
  /// this device has a context of its own (cuCtxCreate), which
  /// destroyContext() can tear down without touching any other.
  static Expected<std::unique_ptr<GpuDevice>> open(int Ordinal = 0, bool OwnContext = false);
  ~GpuDevice();
  GpuDevice(const GpuDevice &) = delete;
  GpuDevice &operator=(const GpuDevice &) = delete;

  const std::string &name() const { return Name; }
  const CudaApi &api() const { return *Api; }
  /// Makes the device's context current on the calling thread: a thread
  /// other than the one that opened it (a DPDK worker) must, before any
  /// other call on the device's objects. No driver call when the thread's
  /// last bindThread() made it current already.
  MaybeError bindThread() const;
  /// Page-locks host memory [Addr, Addr + Bytes) and maps it for the GPU
  /// (cuMemHostRegister); returns the device address of Addr. The range
  /// stays mapped until unmapHostMemory(Addr) or the device is closed.
  Expected<uint64_t> mapHostMemory(void *Addr, size_t Bytes);
  void unmapHostMemory(void *Addr);
  /// Own context only: destroys it now with everything made in it (device
  /// and pinned memory, modules, streams; a kernel still running in it
  /// stops). The device's programs, runners and batches must then be
  /// neither used nor destroyed (their memory went with the context; let
  /// them leak). What a fault containment does with a kernel that hangs:
  /// the GPU itself is not reset, and other contexts carry on. False (and
  /// nothing done) for a device on the primary context.
  bool destroyContext();
  bool ownsContext() const { return Own; }
  /// Lets this device's context read and write, at their own addresses,
  /// the device memory of `Peer`'s context (cuCtxEnablePeerAccess; with
  /// unified addressing a device pointer of `Peer` is then valid here).
  /// `Peer` must be another device (peerMapsProblem says whether it can).
  MaybeError enablePeerAccess(const GpuDevice &Peer);
  /// Threads the GPU holds at once (multiprocessors x threads each).
  uint32_t residentThreads() const { return ResidentThreads; }
  uint32_t multiprocessors() const { return Multiprocessors; }
  /// The host NUMA node nearest the GPU (0 without NUMA).
  uint32_t numaNode() const { return NumaNode; }

private:
  GpuDevice() = default;
  std::unique_ptr<CudaApi> Api;
  int Device = 0;
  void *Context = nullptr;
  bool Own = false;
  std::string Name;
  uint32_t ResidentThreads = 0;
  uint32_t Multiprocessors = 0;
  uint32_t NumaNode = 0;
  std::vector<void *> Mapped; ///< page-aligned starts of mapped host ranges
};

/// Threads per block of the batch kernels.
constexpr uint32_t GpuBlockThreads = 256;
/// Device memory per-CPU maps may take in all; their copies per thread
/// bound the batch kernel's grid.
constexpr size_t GpuPerCpuMapBytes = size_t(1) << 30;

/// Timing of one batch run, from device events.
struct BatchTiming {
  float CopyInMs = 0, KernelMs = 0, CopyOutMs = 0;
};

class GpuProgram;

/// Packets resident in device memory, for repeated runs (benchmarks): the
/// frames and descriptors are uploaded once; each launch writes verdicts.
class GpuBatch {
public:
  /// `Descs[i].buffer` is an offset into `Frames`.
  static Expected<std::unique_ptr<GpuBatch>> create(GpuDevice &Dev, const uint8_t *Frames,
                                                    size_t FrameBytes,
                                                    const std::vector<ebpfgpu_packet_desc> &Descs);
  ~GpuBatch();
  GpuBatch(const GpuBatch &) = delete;
  GpuBatch &operator=(const GpuBatch &) = delete;

  /// Runs `Prog` once over every packet; returns the kernel time in ms
  /// (device events).
  Expected<float> launch(GpuProgram &Prog);
  /// Fills the verdicts with 0xff bytes (no valid action), so a kernel that
  /// skips a packet is seen.
  MaybeError clearVerdicts();
  /// Copies the verdicts of the last launch to the host.
  MaybeError verdicts(std::vector<ebpfgpu_verdict> &Out) const;
  /// Restores the frames to their uploaded bytes (programs may rewrite them).
  MaybeError restoreFrames();
  /// Copies the frames, as the last launch left them, to the host (the
  /// layout passed to create()).
  MaybeError frames(std::vector<uint8_t> &Out) const;
  uint32_t count() const { return Count; }

private:
  GpuBatch(GpuDevice &Dev) : Dev(Dev) {}
  GpuDevice &Dev;
  uint64_t Frames = 0, Pristine = 0, Descs = 0, Verdicts = 0;
  size_t FrameBytes = 0;
  uint32_t Count = 0;
};

/// The whole path of one batch, for benchmarks of it: descriptors and
/// frames staged in pinned host memory are copied in, the program runs and
/// the verdicts are copied out, all on one stream; run() returns when the
/// verdicts are on the host. Frames are not copied back. Not thread-safe.
class GpuStagedBatch {
public:
  /// Room for `MaxPackets` descriptors and `MaxFrameBytes` bytes of frames,
  /// pinned on the host and allocated on the device.
  static Expected<std::unique_ptr<GpuStagedBatch>> create(GpuDevice &Dev, uint32_t MaxPackets,
                                                          size_t MaxFrameBytes);
  ~GpuStagedBatch();
  GpuStagedBatch(const GpuStagedBatch &) = delete;
  GpuStagedBatch &operator=(const GpuStagedBatch &) = delete;

  /// Pinned host staging. Descriptors hold device addresses:
  /// deviceFrames() + the packet buffer's offset in frames().
  uint8_t *frames() { return HostFrames; }
  ebpfgpu_packet_desc *descs() { return HostDescs; }
  const ebpfgpu_verdict *verdicts() const { return HostVerdicts; }
  uint64_t deviceFrames() const { return DevFrames; }

  /// Copies `Count` descriptors and the first `FrameBytes` bytes of frames
  /// in, runs `Prog`, copies the verdicts out, and waits for all of it.
  /// With `Timing`, device events split the time (they add a little).
  MaybeError run(GpuProgram &Prog, uint32_t Count, size_t FrameBytes,
                 BatchTiming *Timing = nullptr);

private:
  GpuStagedBatch(GpuDevice &Dev) : Dev(Dev) {}
  GpuDevice &Dev;
  void *Stream = nullptr;
  uint8_t *HostFrames = nullptr;
  ebpfgpu_packet_desc *HostDescs = nullptr;
  ebpfgpu_verdict *HostVerdicts = nullptr;
  uint64_t DevFrames = 0, DevDescs = 0, DevVerdicts = 0;
  uint32_t MaxPackets = 0;
  size_t MaxFrameBytes = 0;
};

class GpuProgram {
public:
  /// JIT-compiles the PTX of `Spec` (the driver's error log is returned on
  /// failure) and binds its global data.
  /// A map of another program of the same `.gpu.o` on another GPU (its
  /// sharedMaps()) that this one uses instead of making its own.
  struct SharedMap {
    uint64_t Header = 0, Storage = 0;
    abi::MapLayout Layout;
  };
  using SharedMaps = std::map<std::string, SharedMap>;
  /// With `Shared`, the maps it names are not made: the module is bound to
  /// those (another context's device memory, which `Dev` must reach:
  /// GpuDevice::enablePeerAccess), neither zeroed nor freed here, nor
  /// reclaimed by this program.
  static Expected<std::unique_ptr<GpuProgram>> load(GpuDevice &Dev, const abi::GpuObjectSpec &Spec,
                                                    const SharedMaps *Shared = nullptr);
  /// The maps named in `Names` as another program may share them (the
  /// names it lacks left out).
  SharedMaps sharedMaps(const std::vector<std::string> &Names) const;
  ~GpuProgram();
  GpuProgram(const GpuProgram &) = delete;
  GpuProgram &operator=(const GpuProgram &) = delete;

  /// Raw programs (conformance): one thread, r1 = a device copy of `Mem`,
  /// r2 = its length; returns r0.
  Expected<uint64_t> runRaw(const std::vector<uint8_t> &Mem);

  const std::string &jitInfoLog() const { return InfoLog; }
  /// Which build of the batch kernel launches run (KernelChoice: the
  /// default one, or the register-budget one the compiler emits beside
  /// it, timed against each other on the first large batches), in words.
  std::string kernelChoice() const;

  /// The GPU's CPUs for this program: the copies of per-CPU values, and the
  /// most threads a persistent kernel has (thread t is CPU t). The batch
  /// kernel has a thread per packet: its blocks claim groups of these CPUs
  /// (GpuAbi.h: EBPFGPU_CPU_GROUPS_GLOBAL), or, a per-CPU program compiled
  /// before groups, it has at most cpus() threads, each taking packets i,
  /// i + cpus, ... Without per-CPU maps, unbounded.
  uint32_t cpus() const { return CpuSlots; }
  /// The threads of a batch kernel launch over `Packets` packets, at most:
  /// a grid capped at the CPUs launches no more blocks than its build
  /// holds resident at once.
  uint64_t launchThreads(uint32_t Packets) const {
    return uint64_t(blocksFor(Packets)) * GpuBlockThreads;
  }

  /// The program's maps and global data, read back from the GPU, as text
  /// (abi/MapMemory.h), in map name order.
  Expected<std::string> dumpMaps() const;
  /// Between batches: returns what the last batch deleted from hash maps
  /// to their free lists (no thread may still hold those elements).
  MaybeError reclaimMaps();
  /// Whether batches need the host between them (reclaimMaps, takeTrace,
  /// takeEvents can find work: hashed maps the device cannot reclaim,
  /// event maps, bpf_trace_printk): such a program's batches run one at a
  /// time, each followed by that work; others may have several batches in
  /// flight at once.
  bool needsHostBetweenBatches() const;
  /// Whether the module's reclaim kernel (GpuAbi.h: EBPFGPU_RECLAIM_KERNEL)
  /// can return what batches retired from every hashed map of the program
  /// (LPM tries aside: their reclaim rebuilds host-made tables) to the free
  /// lists: batches then need no host between them for their maps, only
  /// a reclaim kernel between them, with none beside it (one stream, or
  /// GpuReclaimBarrier).
  bool reclaimsOnDevice() const { return ReclaimKernel != nullptr; }
  /// Launches the reclaim on `Stream` (a CUstream): after the batches
  /// before it on that stream, before those after. Nothing else may run on
  /// the maps meanwhile: every batch of the program must go on that stream.
  MaybeError enqueueReclaim(void *Stream) const;
  /// The fewest spare elements (pool beyond max_entries) of the hashed
  /// maps the device reclaims: how many retirements the batches between
  /// two reclaims may make before an insert finds a pool empty (0: none).
  uint64_t reclaimSpares() const;
  /// Per hashed map with any: "NAME: N" updates refused so far because a
  /// batch unlinked every spare element (abi::starvedUpdates).
  Expected<std::vector<std::string>> starvedMaps() const;
  /// Between batches: the lines bpf_trace_printk wrote since the last take
  /// (empty when the program never calls it), and the log emptied.
  Expected<abi::TraceText> takeTrace();
  /// Between batches: checks every map's structure (abi::checkMapIntegrity).
  MaybeError checkMaps() const;
  /// Between batches: the records the event maps (ringbuf,
  /// perf_event_array) hold, appended to `Out` with `FirstPacket` added to
  /// the packet indexes of the last launch, and the maps emptied.
  MaybeError takeEvents(uint32_t FirstPacket, abi::EventBatch &Out);
  /// Between batches: sets `Key` to `Value` in the map named `Map`.
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value);
  /// Between batches: the forwarding table bpf_fib_lookup reads from now on
  /// (a block of loader/Fib.h, copied to device memory; empty: none). A
  /// program that never calls bpf_fib_lookup ignores it.
  MaybeError setFib(const std::vector<uint8_t> &Block);
  /// Between batches: makes slot `Key` of the map of maps `Outer` hold the
  /// map named `Inner` (one of its inner map table).
  MaybeError setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                         const std::string &Inner);

  /// Between batches: runs `Op` on a host copy of the map (or global data,
  /// seen as an array of one entry) named `Map`, whose header points into
  /// the copy; the copy goes back to the device when `Op` sets its flag.
  MaybeError accessMap(const std::string &Map,
                       const std::function<MaybeError(ebpfgpu_map &, bool &)> &Op);

  /// Between batches: keeps a device copy of every map's contents and
  /// global data, and of the module globals named in `Globals` (a
  /// hand-written kernel's tables), replacing any earlier copy;
  /// restoreState puts it back. A benchmark starts each timed run of a
  /// stateful program from one state this way.
  MaybeError saveState(const std::vector<std::string> &Globals = {});
  /// Between batches: the state saveState kept (fails when none was kept).
  MaybeError restoreState();

  /// Makes every kernel of this program still running trap at its next
  /// loop guard (GpuAbi.h: EBPFGPU_ABORT_GLOBAL): the way to end a kernel
  /// that hangs, after which the context has a sticky error and can only
  /// be destroyed. False when the module has no abort word (no loop and no
  /// wait to stop, or compiled by an older ebpf-gpu-cc).
  bool abortKernels();

  /// Between batches: writes or reads `Bytes` bytes at `Offset` of the
  /// module global `Name` (hand-written kernels keep their tables there).
  /// Fails when the module has no such global or it is too small.
  MaybeError writeGlobal(const std::string &Name, size_t Offset, const void *Data,
                         size_t Bytes);
  MaybeError readGlobal(const std::string &Name, size_t Offset, void *Data, size_t Bytes) const;

private:
  friend class GpuBatch;
  friend class GpuStagedBatch;
  friend class GpuRunner;
  Expected<uint64_t> global(const std::string &Name, size_t Offset, size_t Bytes) const;
  struct DeviceMap {
    std::string Name;
    uint64_t Header = 0, Storage = 0; ///< device memory owned (0 for global data)
    bool Borrowed = false;            ///< Header, Storage: another program's (SharedMap)
    uint64_t DataAddr = 0;            ///< global data: the module global
    uint32_t DataSize = 0;
    abi::MapLayout Layout;            ///< maps: the header, with device addresses
    platform::MapShape Shape;
    uint64_t InnerTable = 0;          ///< maps of maps: device memory owned, headers
    std::vector<std::string> InnerNames;
    uint64_t ObjectGlobal = 0;        ///< the module's global for the map (0: none)
    size_t ObjectGlobalBytes = 0;     ///< a pointer's 8, or the header's (constant memory)
  };
  std::vector<DeviceMap> Maps;
  struct Saved {
    uint64_t At = 0, Copy = 0; ///< the state's device address, its copy (owned)
    size_t Bytes = 0;
  };
  std::vector<Saved> SavedState;
  bool StateSaved = false;
  void freeSavedState();
  DeviceMap *findMap(const std::string &Name);
  MaybeError setEntry(const DeviceMap &D, const std::vector<uint8_t> &Key,
                      const std::vector<uint8_t> &Value);
  explicit GpuProgram(GpuDevice &Dev); // out of line: KernelChoice is private
  /// load()'s steps after the module's JIT, each on the program being made.
  MaybeError bindCpuGroups(size_t PerCpu);
  MaybeError bindAbortWord();
  MaybeError bindNumaNode();
  MaybeError bindTraceLog();
  MaybeError bindMaps(const abi::GpuObjectSpec &Spec, const SharedMaps *Shared);
  MaybeError bindReclaim();
  unsigned blocksFor(uint32_t Packets) const;
  /// Queues the batch kernel (the build Choice picks, timed while it
  /// decides) on `Stream` (a CUstream) over `Count` packets.
  MaybeError launchBatchKernel(void *Stream, unsigned Blocks, uint32_t Count, void **Args);
  GpuDevice &Dev;
  uint32_t CpuSlots = 0;
  /// A grid capped at the CPUs: the blocks each build of the batch kernel
  /// (KernelChoice::builds(), in order) holds resident at once; empty for
  /// an uncapped grid.
  std::vector<uint32_t> ResidentBlocks;
  uint64_t TraceLog = 0;  ///< device memory owned: bpf_trace_printk's log, or 0
  uint64_t Fib = 0;       ///< device memory owned: bpf_fib_lookup's table, or 0
  uint64_t CpuGroups = 0; ///< device memory owned: the per-CPU group table, or 0
  void *ReclaimKernel = nullptr; ///< EBPFGPU_RECLAIM_KERNEL when reclaimsOnDevice()
  uint64_t ReclaimTable = 0;     ///< device memory owned: the hashed maps' headers
  uint32_t ReclaimCount = 0;
  bool UsesFib = false;   ///< the module has the EBPFGPU_FIB_GLOBAL pointer
  uint32_t *AbortWord = nullptr; ///< mapped pinned host memory owned, or null
  void *Module = nullptr;
  void *Kernel = nullptr;
  /// The build of the batch kernel (Kernel or the register-budget one) a
  /// launch of `Packets` runs, and a trial's timing around it.
  std::unique_ptr<KernelChoice> Choice;
  bool IsXdp = false;
  std::string InfoLog;
};

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_GPULOADER_H

// SPDX-License-Identifier: Apache-2.0
//
// The CUDA driver API, opened with dlopen, and the device and program
// objects built on it (the batches that run programs on packets in device
// memory: GpuBatch.cpp).

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Loader/GpuLoader.h"
#include "ebpf-gpu/Platform/GpuAbi.h"

#include "CudaApi.h"
#include "KernelChoice.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace ebpfgpu::loader {

namespace {

Expected<std::unique_ptr<CudaApi>> openDriver() {
  auto Api = std::make_unique<CudaApi>();
  Api->Lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!Api->Lib)
    return Error(std::string("no CUDA driver on this machine (") + dlerror() + ")");
#define EBPFGPU_RESOLVE(Fn, Sym)                                                              \
  Api->Fn = reinterpret_cast<decltype(&::Fn)>(dlsym(Api->Lib, Sym));                          \
  if (!Api->Fn)                                                                               \
    return Error("the CUDA driver lacks " Sym " (driver too old?)");
  EBPFGPU_CUDA_FNS(EBPFGPU_RESOLVE)
#undef EBPFGPU_RESOLVE
  Api->cuCtxCreateV2 =
      reinterpret_cast<decltype(Api->cuCtxCreateV2)>(dlsym(Api->Lib, "cuCtxCreate_v2"));
  if (!Api->cuCtxCreateV2)
    return Error("the CUDA driver lacks cuCtxCreate_v2 (driver too old?)");
  return Api;
}

/// Device memory freed on scope exit.
class DeviceBuffer {
public:
  DeviceBuffer(const CudaApi &Api) : Api(Api) {}
  ~DeviceBuffer() {
    if (Ptr)
      Api.cuMemFree(Ptr);
  }
  MaybeError alloc(size_t Bytes) {
    EBPFGPU_CHECK(Api, cuMemAlloc, &Ptr, Bytes ? Bytes : 1);
    return std::nullopt;
  }
  CUdeviceptr get() const { return Ptr; }

private:
  const CudaApi &Api;
  CUdeviceptr Ptr = 0;
};


/// The driver, initialised, on a machine that has every GPU of `Ordinals`
/// (the first one it lacks named).
Expected<std::unique_ptr<CudaApi>> openDriverWith(const std::vector<int> &Ordinals) {
  auto Api = openDriver();
  if (!Api)
    return Api.takeError();
  const CudaApi &A = **Api;
  if (CUresult R = A.cuInit(0); R != CUDA_SUCCESS)
    return A.error("cuInit", R).withContext("no usable GPU");
  int Count = 0;
  EBPFGPU_CHECK(A, cuDeviceGetCount, &Count);
  for (int G : Ordinals)
    if (G < 0 || G >= Count)
      return Error("no GPU " + std::to_string(G) + " (the machine has " + std::to_string(Count) +
                   ")");
  return Api;
}

} // namespace

Expected<std::string> peerMapsProblem(const std::vector<int> &Gpus) {
  auto Api = openDriverWith(Gpus);
  if (!Api)
    return Api.takeError();
  const CudaApi &A = **Api;
  CUdevice Owner;
  EBPFGPU_CHECK(A, cuDeviceGet, &Owner, Gpus[0]);
  for (size_t I = 1; I < Gpus.size(); ++I) {
    const std::string Pair =
        "GPU " + std::to_string(Gpus[I]) + " and GPU " + std::to_string(Gpus[0]);
    if (Gpus[I] == Gpus[0])
      return Pair + " are one device, whose two contexts do not reach each other's memory";
    CUdevice Dev;
    EBPFGPU_CHECK(A, cuDeviceGet, &Dev, Gpus[I]);
    // From the GPU that reaches the memory to the GPU that holds it.
    int Access = 0, Atomics = 0;
    EBPFGPU_CHECK(A, cuDeviceGetP2PAttribute, &Access, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED,
                  Dev, Owner);
    EBPFGPU_CHECK(A, cuDeviceGetP2PAttribute, &Atomics,
                  CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, Dev, Owner);
    if (!Access)
      return Pair + ": the first cannot reach the second's memory (the driver's "
                    "CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED is 0)";
    if (!Atomics)
      return Pair + ": the first reaches the second's memory without native atomics "
                    "(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED is 0: a PCIe link, not "
                    "NVLink), so their atomics on one map would not be one another's";
  }
  return std::string();
}

MaybeError GpuDevice::enablePeerAccess(const GpuDevice &Peer) {
  if (MaybeError E = bindThread())
    return E;
  CUresult R = Api->cuCtxEnablePeerAccess(static_cast<CUcontext>(Peer.Context), 0);
  if (R != CUDA_SUCCESS && R != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
    return Api->error("cuCtxEnablePeerAccess", R);
  return std::nullopt;
}

Expected<std::unique_ptr<GpuDevice>> GpuDevice::open(int Ordinal, bool OwnContext) {
  auto Api = openDriverWith({Ordinal});
  if (!Api)
    return Api.takeError();
  const CudaApi &A = **Api;
  std::unique_ptr<GpuDevice> D(new GpuDevice());
  D->Api = std::move(*Api);
  CUdevice Dev;
  EBPFGPU_CHECK(A, cuDeviceGet, &Dev, Ordinal);
  char Name[256] = {};
  EBPFGPU_CHECK(A, cuDeviceGetName, Name, int(sizeof(Name)), Dev);
  CUcontext Ctx;
  if (OwnContext)
    EBPFGPU_CHECK(A, cuCtxCreateV2, &Ctx, CU_CTX_MAP_HOST, Dev);
  else
    EBPFGPU_CHECK(A, cuDevicePrimaryCtxRetain, &Ctx, Dev);
  D->Device = Dev;
  D->Context = Ctx;
  D->Own = OwnContext;
  D->Name = Name;
  if (MaybeError E = D->bindThread())
    return std::move(*E);
  int Sms = 0, PerSm = 0;
  EBPFGPU_CHECK(A, cuDeviceGetAttribute, &Sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Dev);
  EBPFGPU_CHECK(A, cuDeviceGetAttribute, &PerSm,
                CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, Dev);
  D->ResidentThreads = uint32_t(Sms) * uint32_t(PerSm);
  D->Multiprocessors = uint32_t(Sms);
  // -1 where the system has no NUMA (or a driver before CUDA 12.2 does not
  // know the attribute): one node, 0.
  int Numa = -1;
  if (A.cuDeviceGetAttribute(&Numa, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, Dev) != CUDA_SUCCESS)
    Numa = -1;
  D->NumaNode = Numa < 0 ? 0 : uint32_t(Numa);
  return D;
}

namespace {
/// The context this thread last made current through a GpuDevice, and how
/// many contexts had ended then (a handle may come back for a new context):
/// a thread that runs batches of several programs, each with a context of
/// its own (the daemon's workers), switches only when the program changes.
/// Every context this process makes current goes through here.
struct BoundContext {
  void *Context = nullptr;
  uint64_t Ended = 0;
};
thread_local BoundContext ThisThread;
std::atomic<uint64_t> ContextsEnded{0};
} // namespace

MaybeError GpuDevice::bindThread() const {
  const uint64_t Ended = ContextsEnded.load(std::memory_order_acquire);
  if (ThisThread.Context == Context && ThisThread.Ended == Ended)
    return std::nullopt;
  EBPFGPU_CHECK(*Api, cuCtxSetCurrent, static_cast<CUcontext>(Context));
  ThisThread = {Context, Ended};
  return std::nullopt;
}

Expected<uint64_t> GpuDevice::mapHostMemory(void *Addr, size_t Bytes) {
  // Whole pages: the driver locks pages.
  const uintptr_t Page = 4096;
  uintptr_t Lo = reinterpret_cast<uintptr_t>(Addr) & ~(Page - 1);
  uintptr_t Hi = (reinterpret_cast<uintptr_t>(Addr) + Bytes + Page - 1) & ~(Page - 1);
  void *Start = reinterpret_cast<void *>(Lo);
  CUresult R = Api->cuMemHostRegister(Start, Hi - Lo,
                                      CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE);
  // Registered already by another context of this process (one program on
  // several contexts, exec/MultiGpu.h): portable, so mapped for this one
  // too; the context that registered it unregisters it.
  if (R == CUDA_SUCCESS)
    Mapped.push_back(Start);
  else if (R != CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
    return Api->error("cuMemHostRegister", R);
  CUdeviceptr Dev;
  EBPFGPU_CHECK(*Api, cuMemHostGetDevicePointer, &Dev, Start, 0);
  return uint64_t(Dev) + (reinterpret_cast<uintptr_t>(Addr) - Lo);
}

void GpuDevice::unmapHostMemory(void *Addr) {
  uintptr_t Lo = reinterpret_cast<uintptr_t>(Addr) & ~uintptr_t(4095);
  auto It = std::find(Mapped.begin(), Mapped.end(), reinterpret_cast<void *>(Lo));
  if (It == Mapped.end())
    return;
  Api->cuMemHostUnregister(*It);
  Mapped.erase(It);
}

bool GpuDevice::destroyContext() {
  if (!Own || !Context)
    return false;
  // Registered host ranges are unregistered with the context.
  Mapped.clear();
  Api->cuCtxDestroy(static_cast<CUcontext>(Context));
  ContextsEnded.fetch_add(1, std::memory_order_acq_rel);
  Context = nullptr;
  return true;
}

GpuDevice::~GpuDevice() {
  if (!Context)
    return; // destroyed already, with what it held
  for (void *Start : Mapped)
    Api->cuMemHostUnregister(Start);
  if (Own)
    Api->cuCtxDestroy(static_cast<CUcontext>(Context));
  else
    Api->cuDevicePrimaryCtxRelease(Device);
  ContextsEnded.fetch_add(1, std::memory_order_acq_rel);
}

MaybeError GpuProgram::enqueueReclaim(void *Stream) const {
  if (!ReclaimKernel)
    return Error("the program's maps are reclaimed by the host, not on the device");
  const CudaApi &A = Dev.api();
  CUdeviceptr Table = ReclaimTable;
  uint32_t Count = ReclaimCount;
  void *Args[] = {&Table, &Count};
  // A thread a map (at most GpuBlockThreads of them: load() checks).
  EBPFGPU_CHECK(A, cuLaunchKernel, static_cast<CUfunction>(ReclaimKernel), 1, 1, 1,
                (Count + 31) / 32 * 32, 1, 1, 0, static_cast<CUstream>(Stream), Args, nullptr);
  return std::nullopt;
}

uint64_t GpuProgram::reclaimSpares() const {
  if (!ReclaimKernel)
    return 0;
  uint64_t Fewest = UINT64_MAX;
  for (const DeviceMap &D : Maps)
    if (!D.DataAddr && ebpfgpu_map_is_hashed(D.Layout.Header.type))
      Fewest = std::min<uint64_t>(Fewest, D.Layout.Header.pool_size - D.Layout.Header.max_entries);
  return Fewest == UINT64_MAX ? 0 : Fewest;
}

GpuProgram::DeviceMap *GpuProgram::findMap(const std::string &Name) {
  for (DeviceMap &D : Maps)
    if (D.Name == Name && !D.DataAddr)
      return &D;
  return nullptr;
}

MaybeError GpuProgram::setEntry(const DeviceMap &D, const std::vector<uint8_t> &Key,
                                const std::vector<uint8_t> &Value) {
  const CudaApi &A = Dev.api();
  // Between batches nothing runs: update a host copy of the block with
  // the programs' own code, then put it back.
  std::vector<uint8_t> Copy(D.Layout.Bytes);
  EBPFGPU_CHECK(A, cuMemcpyDtoH, Copy.data(), D.Storage, Copy.size());
  abi::MapLayout Host = abi::mapLayout(D.Shape, CpuSlots, reinterpret_cast<uint64_t>(Copy.data()));
  if (MaybeError E = abi::setMapEntry(D.Name, Host.Header, Key, Value))
    return E;
  EBPFGPU_CHECK(A, cuMemcpyHtoD, D.Storage, Copy.data(), Copy.size());
  return std::nullopt;
}

Expected<std::string> GpuProgram::dumpMaps() const {
  const CudaApi &A = Dev.api();
  std::vector<std::pair<std::string, std::string>> Parts;
  for (const DeviceMap &D : Maps) {
    size_t Bytes = D.DataAddr ? D.DataSize : D.Layout.Bytes;
    std::vector<uint8_t> Copy(Bytes);
    if (Bytes)
      EBPFGPU_CHECK(A, cuMemcpyDtoH, Copy.data(), D.DataAddr ? D.DataAddr : D.Storage, Bytes);
    Parts.push_back({D.Name, D.DataAddr ? abi::formatArrayMap(D.Name, Copy.data(), D.DataSize,
                                                              D.DataSize, 1)
                                        : abi::formatMap(D.Name, D.Layout, Copy.data(),
                                                         D.InnerNames)});
  }
  std::sort(Parts.begin(), Parts.end());
  std::string Out;
  for (auto &P : Parts)
    Out += P.second;
  return Out;
}

MaybeError GpuProgram::reclaimMaps() {
  const CudaApi &A = Dev.api();
  for (const DeviceMap &D : Maps) {
    if (D.DataAddr || !ebpfgpu_map_is_hashed(D.Layout.Header.type))
      continue;
    // Nothing to do unless the batch deleted or replaced something (the
    // block starts with the control words).
    uint32_t Control[EBPFGPU_CTL_WORDS];
    EBPFGPU_CHECK(A, cuMemcpyDtoH, Control, D.Storage, sizeof(Control));
    if (!abi::hasPendingElements(Control))
      continue;
    // Between batches nothing runs: splice on a host copy of the block.
    std::vector<uint8_t> Copy(D.Layout.Bytes);
    EBPFGPU_CHECK(A, cuMemcpyDtoH, Copy.data(), D.Storage, Copy.size());
    abi::reclaimHashMap(D.Layout, Copy.data());
    EBPFGPU_CHECK(A, cuMemcpyHtoD, D.Storage, Copy.data(), Copy.size());
  }
  return std::nullopt;
}

bool GpuProgram::needsHostBetweenBatches() const {
  if (TraceLog)
    return true;
  for (const DeviceMap &D : Maps)
    if (!D.DataAddr && ((ebpfgpu_map_is_hashed(D.Layout.Header.type) && !ReclaimKernel) ||
                        ebpfgpu_map_is_event(D.Shape.Type)))
      return true;
  return false;
}

MaybeError GpuProgram::launchBatchKernel(void *Stream, unsigned Blocks, uint32_t Count,
                                         void **Args) {
  const CudaApi &A = Dev.api();
  CUstream S = static_cast<CUstream>(Stream);
  KernelChoice::Launch K = Choice->begin(S, Count);
  // A grid capped at the CPUs without groups (thread t is CPU t, taking
  // packets t, t + grid, ...) is sized for the build holding more blocks
  // at once; the other build gets at most what it holds, not a second
  // wave of a few blocks each looping over its whole share alone (xdp_lb's
  // 39-register default build on an H100: 6 blocks an SM of the 8 sized
  // for the 32-register build; bench/NOTES.md round 9).
  if (!CpuGroups && size_t(K.Build) < ResidentBlocks.size())
    Blocks = std::min<unsigned>(Blocks, ResidentBlocks[size_t(K.Build)]);
  CUresult R = A.cuLaunchKernel(K.Fn, Blocks, 1, 1, GpuBlockThreads, 1, 1, 0, S, Args, nullptr);
  Choice->end(K, S, R == CUDA_SUCCESS);
  if (R != CUDA_SUCCESS)
    return A.error("cuLaunchKernel", R);
  return std::nullopt;
}

std::string GpuProgram::kernelChoice() const {
  return Choice ? Choice->describe() : std::string("default build");
}

unsigned GpuProgram::blocksFor(uint32_t Packets) const {
  uint32_t Wanted = (Packets + GpuBlockThreads - 1) / GpuBlockThreads;
  if (CpuGroups)
    return std::max<uint32_t>(1, Wanted); // blocks claim their CPUs
  return std::max<uint32_t>(1, std::min(Wanted, CpuSlots / GpuBlockThreads));
}

Expected<std::vector<std::string>> GpuProgram::starvedMaps() const {
  const CudaApi &A = Dev.api();
  std::vector<std::string> Out;
  for (const DeviceMap &D : Maps) {
    if (D.DataAddr || !ebpfgpu_map_is_hashed(D.Layout.Header.type))
      continue;
    uint32_t Control[EBPFGPU_CTL_WORDS];
    EBPFGPU_CHECK(A, cuMemcpyDtoH, Control, D.Storage, sizeof(Control));
    if (uint32_t N = abi::starvedUpdates(Control))
      Out.push_back(D.Name + ": " + std::to_string(N));
  }
  return Out;
}

MaybeError GpuProgram::checkMaps() const {
  const CudaApi &A = Dev.api();
  for (const DeviceMap &D : Maps) {
    if (D.DataAddr || !ebpfgpu_map_is_hashed(D.Layout.Header.type))
      continue;
    std::vector<uint8_t> Copy(D.Layout.Bytes);
    EBPFGPU_CHECK(A, cuMemcpyDtoH, Copy.data(), D.Storage, Copy.size());
    if (MaybeError E = abi::checkMapIntegrity(D.Name, D.Layout, Copy.data()))
      return E;
  }
  return std::nullopt;
}

MaybeError GpuProgram::updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                                 const std::vector<uint8_t> &Value) {
  const DeviceMap *D = findMap(Map);
  if (!D)
    return Error("no map named '" + Map + "' in the program");
  if (ebpfgpu_map_is_outer(D->Shape.Type))
    return Error("map '" + Map + "' holds maps: give the inner map's name (@NAME) as the value");
  return setEntry(*D, Key, Value);
}

MaybeError GpuProgram::setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                                   const std::string &Inner) {
  const DeviceMap *D = findMap(Outer);
  if (!D)
    return Error("no map named '" + Outer + "' in the program");
  bool Programs = D->Shape.Type == EBPFGPU_MAP_PROG_ARRAY;
  if (!Programs && !ebpfgpu_map_is_outer(D->Shape.Type))
    return Error("map '" + Outer + "' does not hold maps or programs (@" + Inner + " given)");
  auto Value = Programs ? abi::programSlotValue(Outer, D->InnerNames, Inner)
                        : abi::innerMapValue(Outer, D->InnerNames, Inner);
  if (!Value)
    return Value.takeError();
  return setEntry(*D, Key, *Value);
}

MaybeError GpuProgram::takeEvents(uint32_t FirstPacket, abi::EventBatch &Out) {
  const CudaApi &A = Dev.api();
  for (const DeviceMap &D : Maps) {
    if (D.DataAddr || !ebpfgpu_map_is_event(D.Shape.Type))
      continue;
    // Only the control words and the bytes in use come back.
    constexpr size_t Ctl = EBPFGPU_EVT_CTL_WORDS * 4;
    std::vector<uint8_t> Copy(Ctl);
    EBPFGPU_CHECK(A, cuMemcpyDtoH, Copy.data(), D.Storage, Ctl);
    uint32_t Head;
    std::memcpy(&Head, Copy.data() + 4 * EBPFGPU_EVT_HEAD, 4);
    Head = std::min(Head, D.Layout.Header.event_capacity + 1); // a bad head is reported below
    Copy.resize(Ctl + std::min<size_t>(Head, D.Layout.Header.event_capacity));
    if (Copy.size() > Ctl)
      EBPFGPU_CHECK(A, cuMemcpyDtoH, Copy.data() + Ctl, D.Storage + Ctl, Copy.size() - Ctl);
    std::vector<abi::EventRecord> Records;
    uint64_t Dropped = 0;
    if (MaybeError E =
            abi::takeEventRecords(D.Name, D.Layout, Copy.data(), FirstPacket, Records, Dropped))
      return E;
    EBPFGPU_CHECK(A, cuMemcpyHtoD, D.Storage, Copy.data(), Ctl);
    Out.Maps.push_back({D.Name, std::move(Records)});
    if (Dropped)
      Out.Dropped.push_back({D.Name, Dropped});
  }
  return std::nullopt;
}

MaybeError GpuProgram::setFib(const std::vector<uint8_t> &Block) {
  if (!UsesFib)
    return std::nullopt;
  const CudaApi &A = Dev.api();
  CUdeviceptr Table = 0;
  if (!Block.empty()) {
    EBPFGPU_CHECK(A, cuMemAlloc, &Table, Block.size());
    if (CUresult R = A.cuMemcpyHtoD(Table, Block.data(), Block.size()); R != CUDA_SUCCESS) {
      A.cuMemFree(Table);
      return A.error("cuMemcpyHtoD", R).withContext("forwarding table");
    }
  }
  CUdeviceptr G;
  size_t GSize = 0;
  uint64_t Ptr = Table;
  CUresult R = A.cuModuleGetGlobal(&G, &GSize, static_cast<CUmodule>(Module), EBPFGPU_FIB_GLOBAL);
  if (R == CUDA_SUCCESS)
    R = A.cuMemcpyHtoD(G, &Ptr, sizeof(Ptr));
  if (R != CUDA_SUCCESS) {
    if (Table)
      A.cuMemFree(Table);
    return A.error("cuModuleGetGlobal/cuMemcpyHtoD", R).withContext("forwarding table");
  }
  // No batch runs between batches: the old table has no reader left.
  if (Fib)
    A.cuMemFree(Fib);
  Fib = Table;
  return std::nullopt;
}

MaybeError GpuProgram::accessMap(const std::string &Map,
                                 const std::function<MaybeError(ebpfgpu_map &, bool &)> &Op) {
  const CudaApi &A = Dev.api();
  for (const DeviceMap &D : Maps) {
    if (D.Name != Map)
      continue;
    uint64_t Addr = D.DataAddr ? D.DataAddr : D.Storage;
    std::vector<uint8_t> Copy(D.DataAddr ? D.DataSize : D.Layout.Bytes);
    if (!Copy.empty())
      EBPFGPU_CHECK(A, cuMemcpyDtoH, Copy.data(), Addr, Copy.size());
    ebpfgpu_map Header{};
    if (D.DataAddr) {
      Header = abi::globalDataHeader(D.DataSize, reinterpret_cast<uint64_t>(Copy.data()),
                                     D.Shape.SpinLockOff);
    } else {
      Header = abi::mapLayout(D.Shape, CpuSlots, reinterpret_cast<uint64_t>(Copy.data())).Header;
    }
    bool Changed = false;
    if (MaybeError E = Op(Header, Changed))
      return E;
    if (Changed && !Copy.empty())
      EBPFGPU_CHECK(A, cuMemcpyHtoD, Addr, Copy.data(), Copy.size());
    return std::nullopt;
  }
  return Error("no map named '" + Map + "' in the program");
}

Expected<abi::TraceText> GpuProgram::takeTrace() {
  if (!TraceLog)
    return abi::TraceText();
  const CudaApi &A = Dev.api();
  ebpfgpu_trace_log Header;
  EBPFGPU_CHECK(A, cuMemcpyDtoH, &Header, TraceLog, sizeof(Header));
  if (Header.head == 0 && Header.dropped == 0)
    return abi::TraceText();
  uint32_t Used = std::min(Header.head, Header.capacity);
  std::vector<char> Bytes(Used);
  CUdeviceptr Lines = TraceLog + sizeof(Header);
  EBPFGPU_CHECK(A, cuMemcpyDtoH, Bytes.data(), Lines, Used);
  abi::TraceText T = abi::readTraceLog(Header, Bytes.data());
  // Empty again, zeros included: the next batch's lines end where zeros start.
  EBPFGPU_CHECK(A, cuMemsetD8, Lines, 0, Used);
  Header.head = Header.dropped = 0;
  EBPFGPU_CHECK(A, cuMemcpyHtoD, TraceLog, &Header, sizeof(Header));
  return T;
}

Expected<uint64_t> GpuProgram::global(const std::string &Name, size_t Offset,
                                      size_t Bytes) const {
  const CudaApi &A = Dev.api();
  CUdeviceptr G;
  size_t Size = 0;
  if (CUresult R = A.cuModuleGetGlobal(&G, &Size, static_cast<CUmodule>(Module), Name.c_str());
      R != CUDA_SUCCESS)
    return A.error("cuModuleGetGlobal", R).withContext("global '" + Name + "'");
  if (Offset > Size || Bytes > Size - Offset)
    return Error("global '" + Name + "' has " + std::to_string(Size) + " bytes, not " +
                 std::to_string(Offset + Bytes));
  return uint64_t(G) + Offset;
}

MaybeError GpuProgram::writeGlobal(const std::string &Name, size_t Offset, const void *Data,
                                   size_t Bytes) {
  auto G = global(Name, Offset, Bytes);
  if (!G)
    return G.takeError();
  if (Bytes)
    EBPFGPU_CHECK(Dev.api(), cuMemcpyHtoD, *G, Data, Bytes);
  return std::nullopt;
}

MaybeError GpuProgram::readGlobal(const std::string &Name, size_t Offset, void *Data,
                                  size_t Bytes) const {
  auto G = global(Name, Offset, Bytes);
  if (!G)
    return G.takeError();
  if (Bytes)
    EBPFGPU_CHECK(Dev.api(), cuMemcpyDtoH, Data, *G, Bytes);
  return std::nullopt;
}

void GpuProgram::freeSavedState() {
  for (const Saved &S : SavedState)
    Dev.api().cuMemFree(S.Copy);
  SavedState.clear();
  StateSaved = false;
}

MaybeError GpuProgram::saveState(const std::vector<std::string> &Globals) {
  freeSavedState();
  std::vector<Saved> Want;
  for (const DeviceMap &D : Maps)
    if (D.DataAddr)
      Want.push_back({D.DataAddr, 0, D.DataSize});
    else if (D.Storage)
      Want.push_back({D.Storage, 0, D.Layout.Bytes});
  for (const std::string &Name : Globals) {
    CUdeviceptr At = 0;
    size_t Bytes = 0;
    if (Dev.api().cuModuleGetGlobal(&At, &Bytes, static_cast<CUmodule>(Module), Name.c_str()) !=
        CUDA_SUCCESS)
      return Error("the module has no global '" + Name + "'");
    Want.push_back({At, 0, Bytes});
  }
  const CudaApi &A = Dev.api();
  for (Saved &S : Want) {
    if (!S.Bytes)
      continue;
    CUdeviceptr Copy;
    if (CUresult R = A.cuMemAlloc(&Copy, S.Bytes); R != CUDA_SUCCESS) {
      freeSavedState();
      return A.error("cuMemAlloc", R);
    }
    S.Copy = Copy;
    SavedState.push_back(S);
    if (CUresult R = A.cuMemcpyDtoD(S.Copy, S.At, S.Bytes); R != CUDA_SUCCESS) {
      freeSavedState();
      return A.error("cuMemcpyDtoD", R);
    }
  }
  StateSaved = true;
  return std::nullopt;
}

MaybeError GpuProgram::restoreState() {
  if (!StateSaved)
    return Error("no saved state to restore");
  for (const Saved &S : SavedState)
    if (S.Bytes)
      EBPFGPU_CHECK(Dev.api(), cuMemcpyDtoD, S.At, S.Copy, S.Bytes);
  return std::nullopt;
}

GpuProgram::GpuProgram(GpuDevice &Dev) : Dev(Dev) {}

GpuProgram::~GpuProgram() {
  Choice.reset(); // its events, while the context is there
  freeSavedState();
  if (TraceLog)
    Dev.api().cuMemFree(TraceLog);
  if (Fib)
    Dev.api().cuMemFree(Fib);
  if (CpuGroups)
    Dev.api().cuMemFree(CpuGroups);
  if (ReclaimTable)
    Dev.api().cuMemFree(ReclaimTable);
  for (const DeviceMap &D : Maps)
    for (uint64_t P : {D.Header, D.Storage, D.InnerTable})
      if (P && !D.Borrowed)
        Dev.api().cuMemFree(P);
  if (Module)
    Dev.api().cuModuleUnload(static_cast<CUmodule>(Module));
  if (AbortWord)
    Dev.api().cuMemFreeHost(AbortWord);
}

bool GpuProgram::abortKernels() {
  if (!AbortWord)
    return false;
  reinterpret_cast<std::atomic<uint32_t> *>(AbortWord)->store(1, std::memory_order_release);
  return true;
}

Expected<uint64_t> GpuProgram::runRaw(const std::vector<uint8_t> &Mem) {
  const CudaApi &A = Dev.api();
  if (IsXdp)
    return Error("runRaw needs a raw-platform program");
  DeviceBuffer DMem(A), DOut(A);
  if (auto E = DMem.alloc(Mem.size()))
    return std::move(*E);
  if (auto E = DOut.alloc(sizeof(uint64_t)))
    return std::move(*E);
  if (!Mem.empty())
    EBPFGPU_CHECK(A, cuMemcpyHtoD, DMem.get(), Mem.data(), Mem.size());
  uint64_t Poison = 0xdeadbeefdeadbeefull;
  EBPFGPU_CHECK(A, cuMemcpyHtoD, DOut.get(), &Poison, sizeof(Poison));
  CUdeviceptr MemPtr = Mem.empty() ? 0 : DMem.get(), OutPtr = DOut.get();
  uint64_t Len = Mem.size();
  void *Args[] = {&MemPtr, &Len, &OutPtr};
  EBPFGPU_CHECK(A, cuLaunchKernel, static_cast<CUfunction>(Kernel), 1, 1, 1, 1, 1, 1, 0, nullptr,
                Args, nullptr);
  EBPFGPU_CHECK(A, cuCtxSynchronize);
  uint64_t R0 = 0;
  EBPFGPU_CHECK(A, cuMemcpyDtoH, &R0, DOut.get(), sizeof(R0));
  return R0;
}

} // namespace ebpfgpu::loader

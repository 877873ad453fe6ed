// SPDX-License-Identifier: Apache-2.0
//
// GpuProgram::load (GpuLoader.h): the module's JIT and its steps after it,
// binding the program's CPU groups, abort word, trace log, maps and the
// device's reclaim of hashed maps.

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Abi/SyncookieSecret.h"
#include "ebpf-gpu/Platform/Platform.h"
#include "ebpf-gpu/Loader/GpuLoader.h"
#include "ebpf-gpu/Platform/GpuAbi.h"

#include "CudaApi.h"
#include "KernelChoice.h"

#include <algorithm>
#include <cstring>

namespace ebpfgpu::loader {

/// Programs with per-CPU maps (`PerCpu` bytes a CPU) or a kernel with per-CPU
/// groups: CpuSlots cut to the threads resident at once, and the groups'
/// table bound.
MaybeError GpuProgram::bindCpuGroups(size_t PerCpu) {
  const CudaApi &A = Dev.api();
  CUmodule Mod = static_cast<CUmodule>(Module);
  // A kernel compiled with per-CPU groups (GpuAbi.h) claims its CPUs a
  // block at a time: its grid has a thread per packet.
  CUdeviceptr GroupsGlobal = 0;
  size_t GroupsSize = 0;
  uint32_t PerSmBlocks = 0;
  bool Grouped = IsXdp && A.cuModuleGetGlobal(&GroupsGlobal, &GroupsSize, Mod,
                                               EBPFGPU_CPU_GROUPS_GLOBAL) == CUDA_SUCCESS;
  if ((PerCpu || Grouped) && IsXdp) {
    // The CPUs are the threads resident at once: a capped grid (a kernel
    // without groups) beyond them would run its last blocks in a second
    // wave, each still looping over its share of the packets (about twice
    // the time); groups beyond them would never all be in use. A kernel
    // needing more than 32 registers a thread holds fewer than the
    // device's most threads per SM. With two builds (KernelChoice), the
    // one that holds more: sized for the other, its blocks would wait for
    // groups (the 32-register build of xdp_l4lb on an H100: 8 blocks an
    // SM for 4 groups; its warps polled for their group 7.7 million times
    // over 2 million packets, the default build's 2.1 million).
    int PerSm = 1;
    for (CUfunction Build : Choice->builds()) {
      int N = 0;
      EBPFGPU_CHECK(A, cuOccupancyMaxActiveBlocksPerMultiprocessor, &N, Build,
                    int(GpuBlockThreads), 0);
      PerSm = std::max(PerSm, N);
      ResidentBlocks.push_back(uint32_t(std::max(N, 1)) * Dev.multiprocessors());
    }
    PerSmBlocks = uint32_t(PerSm);
    uint32_t Resident = PerSmBlocks * Dev.multiprocessors() * GpuBlockThreads;
    CpuSlots = std::min(CpuSlots, Resident);
  }
  if (Grouped) {
    if (GroupsSize != sizeof(ebpfgpu_cpu_groups))
      return Error(std::string("the module's ") + EBPFGPU_CPU_GROUPS_GLOBAL + " has " +
                   std::to_string(GroupsSize) + " bytes, not " +
                   std::to_string(sizeof(ebpfgpu_cpu_groups)));
    ebpfgpu_cpu_groups G{0, CpuSlots / GpuBlockThreads, 0};
    // A word of groups per multiprocessor when the groups are exactly the
    // blocks resident at once (not cut by the per-CPU copies' budget).
    if (G.groups == PerSmBlocks * Dev.multiprocessors() && PerSmBlocks <= 32)
      G.per_sm = PerSmBlocks;
    CUdeviceptr T;
    EBPFGPU_CHECK(A, cuMemAlloc, &T, size_t(G.groups) * 4);
    CpuGroups = T;
    EBPFGPU_CHECK(A, cuMemsetD8, T, 0, size_t(G.groups) * 4);
    G.table = T;
    EBPFGPU_CHECK(A, cuMemcpyHtoD, GroupsGlobal, &G, sizeof(G));
  }
  return std::nullopt;
}

/// The abort word its loops and waits read, where the module has one.
MaybeError GpuProgram::bindAbortWord() {
  const CudaApi &A = Dev.api();
  CUmodule Mod = static_cast<CUmodule>(Module);
  // The abort word its loops and waits read (GpuAbi.h): modules without
  // loops or waits, and older ones, have none.
  CUdeviceptr G, W;
  size_t GSize = 0;
  if (A.cuModuleGetGlobal(&G, &GSize, Mod, EBPFGPU_ABORT_GLOBAL) == CUDA_SUCCESS &&
      GSize == sizeof(uint64_t)) {
    void *H;
    EBPFGPU_CHECK(A, cuMemHostAlloc, &H, sizeof(uint32_t),
                  CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
    AbortWord = static_cast<uint32_t *>(H);
    *AbortWord = 0;
    EBPFGPU_CHECK(A, cuMemHostGetDevicePointer, &W, H, 0);
    uint64_t Ptr = W;
    EBPFGPU_CHECK(A, cuMemcpyHtoD, G, &Ptr, sizeof(Ptr));
  }
  return std::nullopt;
}

/// bpf_get_numa_node_id's node, where the module reads it.
MaybeError GpuProgram::bindNumaNode() {
  const CudaApi &A = Dev.api();
  CUdeviceptr G;
  size_t GSize = 0;
  if (A.cuModuleGetGlobal(&G, &GSize, static_cast<CUmodule>(Module), EBPFGPU_NUMA_NODE_GLOBAL) !=
          CUDA_SUCCESS ||
      GSize != sizeof(uint32_t))
    return std::nullopt;
  uint32_t Node = Dev.numaNode();
  EBPFGPU_CHECK(A, cuMemcpyHtoD, G, &Node, sizeof(Node));
  return std::nullopt;
}

/// bpf_trace_printk's log, for a program that calls it.
MaybeError GpuProgram::bindTraceLog() {
  const CudaApi &A = Dev.api();
  CUmodule Mod = static_cast<CUmodule>(Module);
  size_t Bytes = sizeof(ebpfgpu_trace_log) + abi::TraceLogCapacity;
  CUdeviceptr L, G;
  size_t GSize = 0;
  EBPFGPU_CHECK(A, cuMemAlloc, &L, Bytes);
  TraceLog = L;
  EBPFGPU_CHECK(A, cuMemsetD8, L, 0, Bytes);
  ebpfgpu_trace_log Header{0, abi::TraceLogCapacity, 0, 0};
  EBPFGPU_CHECK(A, cuMemcpyHtoD, L, &Header, sizeof(Header));
  if (CUresult R = A.cuModuleGetGlobal(&G, &GSize, Mod, EBPFGPU_TRACE_LOG_GLOBAL);
      R != CUDA_SUCCESS)
    return A.error("cuModuleGetGlobal", R).withContext("trace log");
  uint64_t Ptr = L;
  EBPFGPU_CHECK(A, cuMemcpyHtoD, G, &Ptr, sizeof(Ptr));
  return std::nullopt;
}

/// Each map's header and zeroed storage in device memory, bound to its
/// module global; global data found in the module; then the maps of maps'
/// tables of inner maps.
MaybeError GpuProgram::bindMaps(const abi::GpuObjectSpec &Spec, const SharedMaps *Shared) {
  const CudaApi &A = Dev.api();
  CUmodule Mod = static_cast<CUmodule>(Module);
  const uint32_t Slots = CpuSlots;
  // Maps: header and zeroed values in device memory, bound to the module's
  // map global. Global data lives in the module itself.
  for (const platform::MapSpec &M : Spec.Maps) {
    DeviceMap D;
    D.Name = M.Name;
    D.Shape = M;
    auto Borrowed = Shared ? Shared->find(M.Name) : SharedMaps::const_iterator();
    if (!M.ObjectGlobal.empty() && Shared && Borrowed != Shared->end()) {
      // Another context's copy, made and filled by its program: the same
      // device addresses, reached over peer access.
      CUdeviceptr G;
      size_t GSize = 0;
      D.Header = Borrowed->second.Header;
      D.Storage = Borrowed->second.Storage;
      D.Layout = Borrowed->second.Layout;
      D.Borrowed = true;
      if (CUresult R = A.cuModuleGetGlobal(&G, &GSize, Mod, M.ObjectGlobal.c_str());
          R != CUDA_SUCCESS)
        return A.error("cuModuleGetGlobal", R).withContext("map '" + M.Name + "'");
      if (GSize != sizeof(uint64_t) && GSize != sizeof(ebpfgpu_map))
        return Error("map '" + M.Name + "': the module's global " + M.ObjectGlobal + " has " +
                     std::to_string(GSize) + " bytes, neither a pointer nor a map header");
      D.ObjectGlobal = G;
      D.ObjectGlobalBytes = GSize;
      Maps.push_back(D);
      continue;
    }
    if (!M.ObjectGlobal.empty()) {
      size_t Bytes = abi::mapLayout(M, Slots, 0).Bytes;
      CUdeviceptr H, V, G;
      size_t GSize = 0;
      EBPFGPU_CHECK(A, cuMemAlloc, &H, sizeof(ebpfgpu_map));
      D.Header = H;
      Maps.push_back(D);
      EBPFGPU_CHECK(A, cuMemAlloc, &V, Bytes ? Bytes : 1);
      Maps.back().Storage = V;
      EBPFGPU_CHECK(A, cuMemsetD8, V, 0, Bytes ? Bytes : 1);
      Maps.back().Layout = abi::mapLayout(M, Slots, V);
      EBPFGPU_CHECK(A, cuMemcpyHtoD, H, &Maps.back().Layout.Header, sizeof(ebpfgpu_map));
      Maps.back().InnerNames = M.InnerMaps;
      for (const auto &[Slot, Value] : M.ProgramSlots) {
        if (ebpfgpu_map_is_outer(M.Type))
          continue; // once every inner map exists (below)
        if (Slot >= M.MaxEntries)
          return Error("map '" + M.Name + "': program slot " + std::to_string(Slot) +
                       " is past max_entries");
        EBPFGPU_CHECK(A, cuMemcpyHtoD, V + uint64_t(Slot) * Maps.back().Layout.Header.value_stride,
                      &Value, sizeof(Value));
      }
      if (CUresult R = A.cuModuleGetGlobal(&G, &GSize, Mod, M.ObjectGlobal.c_str());
          R != CUDA_SUCCESS)
        return A.error("cuModuleGetGlobal", R).withContext("map '" + M.Name + "'");
      // The module's global holds a pointer to the header, or the header
      // itself (constant memory: LiftOptions::MapHeaderAddrSpace), written
      // once every header is final (below).
      if (GSize != sizeof(uint64_t) && GSize != sizeof(ebpfgpu_map))
        return Error("map '" + M.Name + "': the module's global " + M.ObjectGlobal + " has " +
                     std::to_string(GSize) + " bytes, neither a pointer nor a map header (" +
                     std::to_string(sizeof(ebpfgpu_map)) + ")");
      Maps.back().ObjectGlobal = G;
      Maps.back().ObjectGlobalBytes = GSize;
      continue;
    }
    if (!M.DataGlobal.empty()) {
      CUdeviceptr G;
      size_t GSize = 0;
      if (A.cuModuleGetGlobal(&G, &GSize, Mod, M.DataGlobal.c_str()) != CUDA_SUCCESS)
        continue; // optimised away: the program never writes it
      D.DataAddr = G;
      D.DataSize = M.ValueSize;
      Maps.push_back(D);
    }
  }
  // Maps of maps: a device table of their inner maps' headers (then, below,
  // the slots the object fills).
  for (const platform::MapSpec &M : Spec.Maps) {
    if (!ebpfgpu_map_is_outer(M.Type) || M.ObjectGlobal.empty())
      continue;
    DeviceMap *Outer = findMap(M.Name);
    std::vector<uint64_t> Table;
    for (const std::string &N : M.InnerMaps) {
      const DeviceMap *In = findMap(N);
      if (!In || !In->Header || ebpfgpu_map_is_outer(In->Shape.Type))
        return Error("map '" + M.Name + "': inner map '" + N + "' is not among the program's maps");
      Table.push_back(In->Header);
    }
    CUdeviceptr T;
    EBPFGPU_CHECK(A, cuMemAlloc, &T, std::max<size_t>(Table.size(), 1) * 8);
    Outer->InnerTable = T;
    if (!Table.empty())
      EBPFGPU_CHECK(A, cuMemcpyHtoD, T, Table.data(), Table.size() * 8);
    Outer->Layout.Header.inner_maps = T;
    Outer->Layout.Header.inner_count = uint32_t(Table.size());
    EBPFGPU_CHECK(A, cuMemcpyHtoD, Outer->Header, &Outer->Layout.Header, sizeof(ebpfgpu_map));
  }
  // The module's map globals: each header where the module keeps them,
  // else a pointer to the one in device memory.
  for (DeviceMap &D : Maps) {
    if (!D.ObjectGlobal)
      continue;
    uint64_t Ptr = D.Header;
    if (D.ObjectGlobalBytes == sizeof(ebpfgpu_map))
      EBPFGPU_CHECK(A, cuMemcpyHtoD, D.ObjectGlobal, &D.Layout.Header, sizeof(ebpfgpu_map));
    else
      EBPFGPU_CHECK(A, cuMemcpyHtoD, D.ObjectGlobal, &Ptr, sizeof(Ptr));
  }
  // The slots the object fills in maps of maps.
  for (const platform::MapSpec &M : Spec.Maps) {
    if (!ebpfgpu_map_is_outer(M.Type) || M.ObjectGlobal.empty())
      continue;
    DeviceMap *Outer = findMap(M.Name);
    for (const auto &[Slot, Id] : M.ProgramSlots) {
      std::vector<uint8_t> Key(4), Value(4);
      std::memcpy(Key.data(), &Slot, 4);
      std::memcpy(Value.data(), &Id, 4);
      if (MaybeError E = setEntry(*Outer, Key, Value))
        return std::move(*E);
    }
  }
  return std::nullopt;
}

/// The device's reclaim of hashed maps, where it can do it.
MaybeError GpuProgram::bindReclaim() {
  const CudaApi &A = Dev.api();
  CUmodule Mod = static_cast<CUmodule>(Module);
  // The device reclaims the hashed maps when none is an LPM trie (whose
  // reclaim rebuilds tables on the host) and the module has the kernel.
  std::vector<uint64_t> Hashed;
  bool HostOnly = false;
  for (const DeviceMap &D : Maps)
    if (!D.DataAddr && !D.Borrowed && ebpfgpu_map_is_hashed(D.Layout.Header.type)) {
      Hashed.push_back(D.Header);
      HostOnly |= D.Layout.Header.type == EBPFGPU_MAP_LPM_TRIE;
    }
  CUfunction Reclaim;
  if (!Hashed.empty() && !HostOnly && Hashed.size() <= GpuBlockThreads &&
      A.cuModuleGetFunction(&Reclaim, Mod, EBPFGPU_RECLAIM_KERNEL) == CUDA_SUCCESS) {
    CUdeviceptr T;
    EBPFGPU_CHECK(A, cuMemAlloc, &T, Hashed.size() * 8);
    ReclaimTable = T;
    EBPFGPU_CHECK(A, cuMemcpyHtoD, T, Hashed.data(), Hashed.size() * 8);
    ReclaimCount = uint32_t(Hashed.size());
    ReclaimKernel = Reclaim;
  }
  return std::nullopt;
}

Expected<std::unique_ptr<GpuProgram>>
GpuProgram::load(GpuDevice &Dev, const abi::GpuObjectSpec &Spec, const SharedMaps *Shared) {
  const CudaApi &A = Dev.api();
  // The batch kernel's threads are the GPU's CPUs. Without per-CPU maps
  // the grid has a thread per packet (the fastest launch); per-CPU maps
  // keep a copy of each value per thread, so then the grid has no more
  // threads than the device holds at once, nor than their memory allows.
  size_t PerCpu = 0;
  for (const platform::MapSpec &M : Spec.Maps)
    if (!M.ObjectGlobal.empty()) {
      if (MaybeError E = abi::checkMapSupported(M.Name, M))
        return std::move(*E);
      PerCpu += abi::perCpuBytes(M);
    }
  uint32_t Slots = UINT32_MAX / GpuBlockThreads * GpuBlockThreads;
  if (PerCpu)
    Slots = uint32_t(std::min<size_t>(Dev.residentThreads() / GpuBlockThreads * GpuBlockThreads,
                                      GpuPerCpuMapBytes / PerCpu / GpuBlockThreads *
                                          GpuBlockThreads));
  if (Slots < GpuBlockThreads)
    return Error("per-CPU maps need " + std::to_string(PerCpu) + " bytes per GPU thread; " +
                 std::to_string(GpuBlockThreads) + " threads would exceed the " +
                 std::to_string(GpuPerCpuMapBytes >> 20) + " MiB set aside for them");
  std::unique_ptr<GpuProgram> P(new GpuProgram(Dev));
  P->IsXdp = Spec.Platform == platform::PlatformKind::Xdp;
  P->CpuSlots = Slots;
  std::vector<char> ErrLog(16384, 0), InfoLog(16384, 0);
  CUjit_option Opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *Vals[] = {ErrLog.data(), reinterpret_cast<void *>(ErrLog.size()), InfoLog.data(),
                  reinterpret_cast<void *>(InfoLog.size())};
  CUmodule Mod;
  if (CUresult R = A.cuModuleLoadDataEx(&Mod, Spec.Ptx.c_str(), 4, Opts, Vals); R != CUDA_SUCCESS) {
    Error E = A.error("cuModuleLoadDataEx", R);
    return Error(E.message() + (ErrLog[0] ? std::string("\n") + ErrLog.data() : ""));
  }
  P->Module = Mod;
  P->InfoLog = InfoLog.data();
  CUfunction Fn, Budget = nullptr;
  EBPFGPU_CHECK(A, cuModuleGetFunction, &Fn, Mod, Spec.Kernel.c_str());
  P->Kernel = Fn;
  // The register-budget build of the batch kernel, where the compiler
  // emitted one (GpuAbi.h), for KernelChoice to time against the default.
  if (P->IsXdp && A.cuModuleGetFunction(&Budget, Mod, EBPFGPU_XDP_BUDGET_KERNEL) != CUDA_SUCCESS)
    Budget = nullptr;
  P->Choice = std::make_unique<KernelChoice>(A, Fn, Budget);
  if (MaybeError E = P->bindCpuGroups(PerCpu))
    return std::move(*E);
  if (MaybeError E = P->bindAbortWord())
    return std::move(*E);
  if (MaybeError E = P->bindNumaNode())
    return std::move(*E);
  // The SYN cookie secrets, the process's, where the module has them: a
  // cookie the host back end made checks here, and the other way round.
  {
    CUdeviceptr G;
    size_t GSize = 0;
    if (A.cuModuleGetGlobal(&G, &GSize, Mod, abi::SyncookieSecretGlobal) == CUDA_SUCCESS &&
        GSize == abi::SyncookieSecretBytes)
      EBPFGPU_CHECK(A, cuMemcpyHtoD, G, abi::syncookieSecret(), GSize);
  }
  if (platform::usesTraceLog(Spec.Helpers))
    if (MaybeError E = P->bindTraceLog())
      return std::move(*E);
  P->UsesFib = std::count(Spec.Helpers.begin(), Spec.Helpers.end(), "fib_lookup") != 0 ||
               std::count(Spec.Helpers.begin(), Spec.Helpers.end(), "check_mtu") != 0;
  if (MaybeError E = P->bindMaps(Spec, Shared))
    return std::move(*E);
  if (MaybeError E = P->bindReclaim())
    return std::move(*E);
  return P;
}

GpuProgram::SharedMaps GpuProgram::sharedMaps(const std::vector<std::string> &Names) const {
  SharedMaps Out;
  for (const DeviceMap &D : Maps)
    if (D.Header && std::count(Names.begin(), Names.end(), D.Name))
      Out[D.Name] = {D.Header, D.Storage, D.Layout};
  return Out;
}

} // namespace ebpfgpu::loader

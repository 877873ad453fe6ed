// SPDX-License-Identifier: Apache-2.0
//
// What the C API's two halves share, private to api/ (not installed): the
// program and the maps a C caller holds, the error a failed call leaves for
// ebpf_gpu_last_error(), and the host's access to a live map, which the
// program's load and bursts (CApi.cpp) and the map calls (CApiMaps.cpp)
// both go through.

#ifndef EBPF_GPU_API_LIB_CAPIINTERNAL_H
#define EBPF_GPU_API_LIB_CAPIINTERNAL_H

#include "ebpf-gpu/ebpf-gpu.h"

#include "ebpf-gpu/Exec/Executors.h"
#include "ebpf-gpu/Runtime/BatchExecutor.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <sys/mman.h>
#include <vector>

struct ebpf_gpu_map {
  ebpf_gpu_prog *Prog = nullptr;
  ebpfgpu::runtime::MapInfo Info;
  uint32_t Cpus = 1;
  /// The map lives in the loaded program (false before load).
  bool Live = false;
  /// Global data in host memory (ebpf_gpu_map__data): `Size` bytes in
  /// whole pages of their own (so that .rodata's can be made read-only),
  /// from open or the first call to close. `Shared`: handed out, so kept
  /// in step with the live map.
  uint8_t *Data = nullptr;
  size_t Size = 0, Mapped = 0;
  bool Shared = false;
  /// A map of maps: its inner map's shape is known (the object's own
  /// definition, or a template set by ebpf_gpu_map__set_inner_map).
  bool HasInner = false;

  ~ebpf_gpu_map() {
    if (Data)
      munmap(Data, Mapped);
  }
};

struct ebpf_gpu_lane {
  ebpf_gpu_prog *Prog = nullptr;
  uint32_t Worker = 0;
  std::unique_ptr<ebpfgpu::runtime::BatchLane> Lane;
  /// The batch its bursts run in, reused (nothing allocated once grown).
  ebpfgpu::runtime::PacketBatch Batch{64};
};

struct ebpf_gpu_prog {
  ebpfgpu::exec::LoadedProgram Loaded; ///< Exec null while opened
  /// load_opts.workers (at least 1), and the lanes opened so far (each
  /// made once, under LanesLock; destroyed before the executor).
  uint32_t Workers = 1;
  std::mutex LanesLock;
  std::vector<std::unique_ptr<ebpf_gpu_lane>> Lanes;
  std::string Name;
  std::vector<std::unique_ptr<ebpf_gpu_map>> Maps;
  /// The batch ebpf_gpu_prog__run_burst's bursts run in, reused.
  ebpfgpu::runtime::PacketBatch Batch{64};
  /// Opened: what load_opened asks exec::load() for (the object's bytes,
  /// the program, the back end); its initial values come from the maps.
  ebpfgpu::exec::LoadRequest Request;
  /// Opened from a .gpu.o: its global data is compiled into its code, so
  /// there are no bytes of it to hand out before load.
  bool GpuObject = false;
  /// Taken from the back end, not handed to the caller yet (a callback
  /// stopped the call that took them): event records (map, bytes) and
  /// trace lines, oldest first.
  std::deque<std::pair<std::string, std::vector<uint8_t>>> PendingEvents;
  std::deque<std::string> PendingTrace;
  /// Packet memory given to the back end (use_packet_memory): bursts on
  /// the GPU then hand it their packets' own buffers.
  bool PacketMemory = false;
  /// Host bursts run in the caller's buffers (the GPU's are counted by
  /// its back end).
  std::atomic<uint64_t> HostInPlace{0};
};

namespace ebpfgpu::capi {

/// The message of this thread's last failed call, for ebpf_gpu_last_error().
extern thread_local std::string LastError;

/// Records `Msg` for ebpf_gpu_last_error(), sets errno (as libbpf's calls
/// do) and returns -Errno.
int failWith(int Errno, std::string Msg);

template <typename T> T *failNull(int Errno, std::string Msg) {
  failWith(Errno, std::move(Msg));
  errno = Errno;
  return nullptr;
}

/// Global data's one value in the map's block `H`.
uint8_t *dataValue(::ebpfgpu_map &H);

/// Runs `Op` on the map's block in host memory (BatchExecutor::accessMap:
/// the map itself on the host, a copy of the device block written back
/// when `Op` sets Changed on the GPU); `Op` returns 0 or a negative errno.
/// Global data the caller holds (Shared) is copied in first and back
/// after (unless `Mirror` is false): what the caller wrote is what `Op`
/// and the program see.
int accessMap(const ebpf_gpu_map *M, const std::function<int(::ebpfgpu_map &, bool &)> &Op,
              bool Mirror = true);

/// Copies the global data the caller holds (ebpf_gpu_map__data) into the
/// live maps (`In`: before a burst) or back (after it); 0 or a negative
/// errno.
int syncData(ebpf_gpu_prog &P, bool In);

/// Host memory of its own for `M`'s global data (whole pages), `Init`
/// copied in; false when out of memory.
bool allocData(ebpf_gpu_map &M, const std::vector<uint8_t> &Init);

/// After load: .rodata's bytes as the program has them, then read-only
/// (the kernel freezes it; a write through a skeleton faults, as libbpf's).
int freezeReadOnly(ebpf_gpu_map &M);

} // namespace ebpfgpu::capi

#endif // EBPF_GPU_API_LIB_CAPIINTERNAL_H

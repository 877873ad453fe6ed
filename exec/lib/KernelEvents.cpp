// SPDX-License-Identifier: Apache-2.0
//
// Reading the kernel's ring buffers and perf buffers after test runs.

#include "KernelEvents.h"

#include "ebpf-gpu/Abi/MapMemory.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ebpfgpu::exec {

/// One event map: its name and the records read since the last take.
struct MapRecords {
  std::string Name;
  std::vector<abi::EventRecord> Records;
  uint64_t *Lost = nullptr;
};

struct KernelEvents::Impl {
  struct ring_buffer *Ring = nullptr;
  std::vector<struct perf_buffer *> Perf;
  // Stable addresses: the readers' callbacks hold pointers to these.
  std::vector<std::unique_ptr<MapRecords>> Maps;

  ~Impl() {
    if (Ring)
      ring_buffer__free(Ring);
    for (struct perf_buffer *B : Perf)
      perf_buffer__free(B);
  }
};

namespace {

int onRingRecord(void *Ctx, void *Data, size_t Size) {
  auto *M = static_cast<MapRecords *>(Ctx);
  auto *D = static_cast<const uint8_t *>(Data);
  M->Records.push_back({0, std::vector<uint8_t>(D, D + Size)});
  return 0;
}

void onPerfRecord(void *Ctx, int, void *Data, __u32 Size) {
  onRingRecord(Ctx, Data, Size);
}

void onPerfLost(void *Ctx, int, __u64 Count) { *static_cast<MapRecords *>(Ctx)->Lost += Count; }

} // namespace

Expected<std::unique_ptr<KernelEvents>> KernelEvents::open(const std::vector<KernelMap> &Maps) {
  std::unique_ptr<KernelEvents> K(new KernelEvents());
  K->P = std::make_unique<Impl>();
  for (const KernelMap &M : Maps) {
    uint32_t T = M.Type;
    if (T != BPF_MAP_TYPE_RINGBUF && T != BPF_MAP_TYPE_PERF_EVENT_ARRAY)
      continue;
    K->P->Maps.push_back(std::make_unique<MapRecords>());
    MapRecords *R = K->P->Maps.back().get();
    R->Name = M.Name;
    R->Lost = &K->Lost;
    std::string Where = "map '" + R->Name + "': ";
    if (T == BPF_MAP_TYPE_RINGBUF) {
      int Err = 0;
      if (!K->P->Ring) {
        K->P->Ring = ring_buffer__new(M.Fd, onRingRecord, R, nullptr);
        Err = K->P->Ring ? 0 : -errno;
      } else {
        Err = ring_buffer__add(K->P->Ring, M.Fd, onRingRecord, R);
      }
      if (Err)
        return Error(Where + "cannot read the kernel's ring buffer: " + std::strerror(-Err));
      continue;
    }
    struct perf_buffer *B = perf_buffer__new(M.Fd, EBPFGPU_PERF_STREAM_BYTES / 4096,
                                             onPerfRecord, onPerfLost, R, nullptr);
    if (!B)
      return Error(Where + "cannot open the kernel's perf buffers: " + std::strerror(errno));
    K->P->Perf.push_back(B);
  }
  return K;
}

KernelEvents::~KernelEvents() = default;

MaybeError KernelEvents::take(abi::EventBatch &Out) {
  if (P->Ring) {
    int N = ring_buffer__consume(P->Ring);
    if (N < 0)
      return Error(std::string("reading the kernel's ring buffers: ") + std::strerror(-N));
  }
  for (struct perf_buffer *B : P->Perf) {
    int Err = perf_buffer__consume(B);
    if (Err < 0)
      return Error(std::string("reading the kernel's perf buffers: ") + std::strerror(-Err));
  }
  for (auto &M : P->Maps) {
    Out.Maps.push_back({M->Name, std::move(M->Records)});
    M->Records.clear();
  }
  return std::nullopt;
}

Expected<int> pinCurrentThread() {
  cpu_set_t Allowed;
  CPU_ZERO(&Allowed);
  if (sched_getaffinity(0, sizeof(Allowed), &Allowed) != 0)
    return Error(std::string("sched_getaffinity: ") + std::strerror(errno));
  int Cpu = CPU_ISSET(0, &Allowed) ? 0 : sched_getcpu();
  if (Cpu < 0)
    return Error(std::string("sched_getcpu: ") + std::strerror(errno));
  cpu_set_t One;
  CPU_ZERO(&One);
  CPU_SET(Cpu, &One);
  if (sched_setaffinity(0, sizeof(One), &One) != 0)
    return Error("cannot keep the test runs on CPU " + std::to_string(Cpu) + ": " +
                 std::strerror(errno));
  return Cpu;
}

} // namespace ebpfgpu::exec

// SPDX-License-Identifier: Apache-2.0
//
// Device-side reclaims between overlapping batches (GpuReclaimBarrier.h).

#include "ebpf-gpu/Loader/GpuReclaimBarrier.h"

#include "CudaApi.h"

#include <algorithm>

namespace ebpfgpu::loader {

uint64_t GpuReclaimBarrier::periodFor(const GpuProgram &Prog) {
  return std::max<uint64_t>(1, Prog.reclaimSpares() / 4);
}

Expected<std::unique_ptr<GpuReclaimBarrier>>
GpuReclaimBarrier::create(GpuDevice &Dev, GpuProgram &Prog, uint64_t Period) {
  if (!Prog.reclaimsOnDevice())
    return Error("the program's maps are reclaimed by the host, not on the device");
  std::unique_ptr<GpuReclaimBarrier> B(
      new GpuReclaimBarrier(Dev, Prog, Period ? Period : periodFor(Prog)));
  const CudaApi &A = Dev.api();
  CUstream S;
  EBPFGPU_CHECK(A, cuStreamCreate, &S, CU_STREAM_NON_BLOCKING);
  B->ReclaimStream = S;
  CUevent E;
  EBPFGPU_CHECK(A, cuEventCreate, &E, CU_EVENT_DISABLE_TIMING);
  B->Done = E;
  return B;
}

GpuReclaimBarrier::~GpuReclaimBarrier() {
  const CudaApi &A = Dev.api();
  for (Lane &L : Lanes) {
    if (L.Stream) {
      A.cuStreamSynchronize(static_cast<CUstream>(L.Stream));
      A.cuStreamDestroy(static_cast<CUstream>(L.Stream));
    }
    if (L.Tail)
      A.cuEventDestroy(static_cast<CUevent>(L.Tail));
  }
  if (ReclaimStream) {
    A.cuStreamSynchronize(static_cast<CUstream>(ReclaimStream));
    A.cuStreamDestroy(static_cast<CUstream>(ReclaimStream));
  }
  if (Done)
    A.cuEventDestroy(static_cast<CUevent>(Done));
}

Expected<unsigned> GpuReclaimBarrier::addStream() {
  std::lock_guard Lock(M);
  auto Free = std::find_if(Lanes.begin(), Lanes.end(), [](const Lane &L) { return !L.InUse; });
  if (Free == Lanes.end()) {
    const CudaApi &A = Dev.api();
    Lane L;
    CUstream S;
    EBPFGPU_CHECK(A, cuStreamCreate, &S, CU_STREAM_NON_BLOCKING);
    L.Stream = S;
    CUevent E;
    if (CUresult R = A.cuEventCreate(&E, CU_EVENT_DISABLE_TIMING); R != CUDA_SUCCESS) {
      A.cuStreamDestroy(S);
      return A.error("cuEventCreate", R);
    }
    L.Tail = E;
    Lanes.push_back(L);
    Free = Lanes.end() - 1;
  }
  // A new stream has nothing to wait for but the last reclaim.
  Free->Seen = Epoch ? Epoch - 1 : 0;
  Free->InUse = true;
  return unsigned(Free - Lanes.begin());
}

void GpuReclaimBarrier::release(unsigned Stream) {
  std::lock_guard Lock(M);
  Dev.api().cuStreamSynchronize(static_cast<CUstream>(Lanes[Stream].Stream));
  Lanes[Stream].InUse = false;
}

void *GpuReclaimBarrier::stream(unsigned Stream) {
  // Under the lock: another thread's addStream() may be growing Lanes.
  std::lock_guard Lock(M);
  return Lanes[Stream].Stream;
}

MaybeError GpuReclaimBarrier::launch(unsigned Stream, uint32_t Packets,
                                     const std::function<MaybeError()> &Start) {
  std::lock_guard Lock(M);
  Lane &L = Lanes[Stream];
  const CudaApi &A = Dev.api();
  if (L.Seen != Epoch) {
    EBPFGPU_CHECK(A, cuStreamWaitEvent, static_cast<CUstream>(L.Stream),
                  static_cast<CUevent>(Done), 0);
    L.Seen = Epoch;
  }
  if (MaybeError E = Start())
    return E;
  Since += Packets;
  if (Since >= Period)
    return reclaim();
  return std::nullopt;
}

MaybeError GpuReclaimBarrier::reclaim() {
  const CudaApi &A = Dev.api();
  auto *R = static_cast<CUstream>(ReclaimStream);
  // Behind the last batch of every stream (a stream that queued nothing
  // since the last reclaim has its tail done already)...
  for (Lane &L : Lanes)
    if (L.InUse) {
      EBPFGPU_CHECK(A, cuEventRecord, static_cast<CUevent>(L.Tail),
                    static_cast<CUstream>(L.Stream));
      EBPFGPU_CHECK(A, cuStreamWaitEvent, R, static_cast<CUevent>(L.Tail), 0);
    }
  if (MaybeError E = Prog.enqueueReclaim(R))
    return E;
  // ...and before the next batch of every stream (launch()).
  EBPFGPU_CHECK(A, cuEventRecord, static_cast<CUevent>(Done), R);
  ++Epoch;
  Since = 0;
  return std::nullopt;
}

std::unique_lock<std::mutex> GpuReclaimBarrier::quiesce() {
  std::unique_lock Lock(M);
  const CudaApi &A = Dev.api();
  for (Lane &L : Lanes)
    if (L.InUse)
      A.cuStreamSynchronize(static_cast<CUstream>(L.Stream));
  A.cuStreamSynchronize(static_cast<CUstream>(ReclaimStream));
  return Lock;
}

} // namespace ebpfgpu::loader

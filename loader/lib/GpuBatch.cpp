// SPDX-License-Identifier: Apache-2.0
//
// Batches of packets in device memory run through a program's kernel:
// GpuBatch (resident frames, the benchmarks' kernel-only timing) and
// GpuStagedBatch (copied in and out around each run), timed with device
// events.

#include "ebpf-gpu/Loader/GpuLoader.h"
#include "ebpf-gpu/Platform/GpuAbi.h"

#include "CudaApi.h"

#include <algorithm>
#include <cstring>

namespace ebpfgpu::loader {

namespace {

class Event {
public:
  Event(const CudaApi &Api) : Api(Api) {}
  ~Event() {
    if (E)
      Api.cuEventDestroy(E);
  }
  MaybeError create() {
    EBPFGPU_CHECK(Api, cuEventCreate, &E, CU_EVENT_DEFAULT);
    return std::nullopt;
  }
  MaybeError record() {
    EBPFGPU_CHECK(Api, cuEventRecord, E, nullptr);
    return std::nullopt;
  }
  CUevent get() const { return E; }

private:
  const CudaApi &Api;
  CUevent E = nullptr;
};

} // namespace

Expected<std::unique_ptr<GpuBatch>> GpuBatch::create(GpuDevice &Dev, const uint8_t *Frames,
                                                     size_t FrameBytes,
                                                     const std::vector<ebpfgpu_packet_desc> &Descs) {
  const CudaApi &A = Dev.api();
  std::unique_ptr<GpuBatch> B(new GpuBatch(Dev));
  B->FrameBytes = FrameBytes;
  B->Count = uint32_t(Descs.size());
  CUdeviceptr P;
  EBPFGPU_CHECK(A, cuMemAlloc, &P, FrameBytes ? FrameBytes : 1);
  B->Frames = P;
  EBPFGPU_CHECK(A, cuMemAlloc, &P, FrameBytes ? FrameBytes : 1);
  B->Pristine = P;
  EBPFGPU_CHECK(A, cuMemAlloc, &P, Descs.size() * sizeof(ebpfgpu_packet_desc) + 1);
  B->Descs = P;
  EBPFGPU_CHECK(A, cuMemAlloc, &P, Descs.size() * sizeof(ebpfgpu_verdict) + 1);
  B->Verdicts = P;
  std::vector<ebpfgpu_packet_desc> Dev2 = Descs;
  for (ebpfgpu_packet_desc &D : Dev2) {
    if (D.buffer + D.buffer_size > FrameBytes)
      return Error("packet buffer outside the frames passed in");
    D.buffer += B->Frames;
  }
  EBPFGPU_CHECK(A, cuMemcpyHtoD, B->Frames, Frames, FrameBytes);
  EBPFGPU_CHECK(A, cuMemcpyDtoD, B->Pristine, B->Frames, FrameBytes);
  EBPFGPU_CHECK(A, cuMemcpyHtoD, B->Descs, Dev2.data(), Dev2.size() * sizeof(ebpfgpu_packet_desc));
  EBPFGPU_CHECK(A, cuCtxSynchronize);
  return B;
}

GpuBatch::~GpuBatch() {
  const CudaApi &A = Dev.api();
  for (uint64_t P : {Frames, Pristine, Descs, Verdicts})
    if (P)
      A.cuMemFree(P);
}

Expected<float> GpuBatch::launch(GpuProgram &Prog) {
  const CudaApi &A = Dev.api();
  if (!Prog.IsXdp)
    return Error("GpuBatch::launch needs an XDP program");
  Event E0(A), E1(A);
  for (Event *E : {&E0, &E1})
    if (auto Err = E->create())
      return std::move(*Err);
  CUdeviceptr DescPtr = Descs, VerdictPtr = Verdicts;
  uint32_t N = Count;
  uint64_t Seed = 0x5eed0000ull;
  CUdeviceptr Stage = 0, Done = 0; // packets in device memory: nothing to stage; the event ends it
  uint32_t Seq = 0;
  void *Args[] = {&DescPtr, &VerdictPtr, &N, &Seed, &Stage, &Done, &Done, &Seq};
  if (auto Err = E0.record())
    return std::move(*Err);
  if (MaybeError E = Prog.launchBatchKernel(nullptr, Prog.blocksFor(N), N, Args))
    return std::move(*E);
  if (auto Err = E1.record())
    return std::move(*Err);
  EBPFGPU_CHECK(A, cuEventSynchronize, E1.get());
  float Ms = 0;
  EBPFGPU_CHECK(A, cuEventElapsedTime, &Ms, E0.get(), E1.get());
  return Ms;
}

MaybeError GpuBatch::clearVerdicts() {
  const CudaApi &A = Dev.api();
  EBPFGPU_CHECK(A, cuMemsetD8, Verdicts, 0xff, Count * sizeof(ebpfgpu_verdict));
  EBPFGPU_CHECK(A, cuCtxSynchronize);
  return std::nullopt;
}

MaybeError GpuBatch::verdicts(std::vector<ebpfgpu_verdict> &Out) const {
  const CudaApi &A = Dev.api();
  Out.resize(Count);
  EBPFGPU_CHECK(A, cuMemcpyDtoH, Out.data(), Verdicts, Count * sizeof(ebpfgpu_verdict));
  return std::nullopt;
}

MaybeError GpuBatch::restoreFrames() {
  const CudaApi &A = Dev.api();
  EBPFGPU_CHECK(A, cuMemcpyDtoD, Frames, Pristine, FrameBytes);
  return std::nullopt;
}

MaybeError GpuBatch::frames(std::vector<uint8_t> &Out) const {
  const CudaApi &A = Dev.api();
  Out.resize(FrameBytes);
  if (FrameBytes)
    EBPFGPU_CHECK(A, cuMemcpyDtoH, Out.data(), Frames, FrameBytes);
  return std::nullopt;
}

Expected<std::unique_ptr<GpuStagedBatch>>
GpuStagedBatch::create(GpuDevice &Dev, uint32_t MaxPackets, size_t MaxFrameBytes) {
  const CudaApi &A = Dev.api();
  std::unique_ptr<GpuStagedBatch> B(new GpuStagedBatch(Dev));
  B->MaxPackets = MaxPackets;
  B->MaxFrameBytes = MaxFrameBytes;
  CUstream S;
  EBPFGPU_CHECK(A, cuStreamCreate, &S, CU_STREAM_NON_BLOCKING);
  B->Stream = S;
  void *H;
  EBPFGPU_CHECK(A, cuMemHostAlloc, &H, MaxFrameBytes ? MaxFrameBytes : 1, 0);
  B->HostFrames = static_cast<uint8_t *>(H);
  EBPFGPU_CHECK(A, cuMemHostAlloc, &H, MaxPackets * sizeof(ebpfgpu_packet_desc) + 1, 0);
  B->HostDescs = static_cast<ebpfgpu_packet_desc *>(H);
  EBPFGPU_CHECK(A, cuMemHostAlloc, &H, MaxPackets * sizeof(ebpfgpu_verdict) + 1, 0);
  B->HostVerdicts = static_cast<ebpfgpu_verdict *>(H);
  CUdeviceptr P;
  EBPFGPU_CHECK(A, cuMemAlloc, &P, MaxFrameBytes ? MaxFrameBytes : 1);
  B->DevFrames = P;
  EBPFGPU_CHECK(A, cuMemAlloc, &P, MaxPackets * sizeof(ebpfgpu_packet_desc) + 1);
  B->DevDescs = P;
  EBPFGPU_CHECK(A, cuMemAlloc, &P, MaxPackets * sizeof(ebpfgpu_verdict) + 1);
  B->DevVerdicts = P;
  return B;
}

GpuStagedBatch::~GpuStagedBatch() {
  const CudaApi &A = Dev.api();
  if (Stream)
    A.cuStreamSynchronize(static_cast<CUstream>(Stream));
  for (uint64_t P : {DevFrames, DevDescs, DevVerdicts})
    if (P)
      A.cuMemFree(P);
  for (void *H : {static_cast<void *>(HostFrames), static_cast<void *>(HostDescs),
                  static_cast<void *>(HostVerdicts)})
    if (H)
      A.cuMemFreeHost(H);
  if (Stream)
    A.cuStreamDestroy(static_cast<CUstream>(Stream));
}

MaybeError GpuStagedBatch::run(GpuProgram &Prog, uint32_t Count, size_t FrameBytes,
                               BatchTiming *Timing) {
  const CudaApi &A = Dev.api();
  if (!Prog.IsXdp)
    return Error("GpuStagedBatch::run needs an XDP program");
  if (Count > MaxPackets || FrameBytes > MaxFrameBytes)
    return Error("staged batch too large: " + std::to_string(Count) + " packets, " +
                 std::to_string(FrameBytes) + " bytes of frames");
  if (Count == 0)
    return std::nullopt;
  CUstream S = static_cast<CUstream>(Stream);
  Event E0(A), E1(A), E2(A), E3(A);
  if (Timing)
    for (Event *E : {&E0, &E1, &E2, &E3})
      if (auto Err = E->create())
        return Err;
  auto Record = [&](Event &E) -> MaybeError {
    if (Timing)
      EBPFGPU_CHECK(A, cuEventRecord, E.get(), S);
    return std::nullopt;
  };
  if (auto Err = Record(E0))
    return Err;
  EBPFGPU_CHECK(A, cuMemcpyHtoDAsync, DevDescs, HostDescs, Count * sizeof(ebpfgpu_packet_desc),
                S);
  if (FrameBytes)
    EBPFGPU_CHECK(A, cuMemcpyHtoDAsync, DevFrames, HostFrames, FrameBytes, S);
  if (auto Err = Record(E1))
    return Err;
  CUdeviceptr DescPtr = DevDescs, VerdictPtr = DevVerdicts;
  uint64_t Seed = 0x5eed0000ull;
  CUdeviceptr Stage = 0, Done = 0; // packets in device memory: nothing to stage; copies end it
  uint32_t Seq = 0;
  void *Args[] = {&DescPtr, &VerdictPtr, &Count, &Seed, &Stage, &Done, &Done, &Seq};
  if (MaybeError E = Prog.launchBatchKernel(S, Prog.blocksFor(Count), Count, Args))
    return E;
  if (auto Err = Record(E2))
    return Err;
  EBPFGPU_CHECK(A, cuMemcpyDtoHAsync, HostVerdicts, DevVerdicts, Count * sizeof(ebpfgpu_verdict),
                S);
  if (auto Err = Record(E3))
    return Err;
  EBPFGPU_CHECK(A, cuStreamSynchronize, S);
  if (Timing) {
    EBPFGPU_CHECK(A, cuEventElapsedTime, &Timing->CopyInMs, E0.get(), E1.get());
    EBPFGPU_CHECK(A, cuEventElapsedTime, &Timing->KernelMs, E1.get(), E2.get());
    EBPFGPU_CHECK(A, cuEventElapsedTime, &Timing->CopyOutMs, E2.get(), E3.get());
  }
  return std::nullopt;
}

} // namespace ebpfgpu::loader

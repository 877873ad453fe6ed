// SPDX-License-Identifier: Apache-2.0
#include "KernelChoice.h"

#include "ebpf-gpu/Platform/GpuAbi.h"

#include <algorithm>
#include <cstdio>

namespace ebpfgpu::loader {

namespace {

int registersOf(const CudaApi &A, CUfunction F) {
  int N = 0;
  if (!F || A.cuFuncGetAttribute(&N, CU_FUNC_ATTRIBUTE_NUM_REGS, F) != CUDA_SUCCESS)
    return 0;
  return N;
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  const size_t N = V.size();
  return N % 2 ? V[N / 2] : (V[N / 2 - 1] + V[N / 2]) / 2;
}

} // namespace

KernelChoice::KernelChoice(const CudaApi &A, CUfunction Default, CUfunction Budget)
    : A(A), Fns{Default, Budget} {
  Registers[0] = registersOf(A, Default);
  Registers[1] = registersOf(A, Budget);
  // A default build within the budget already: the two are alike.
  if (!Budget || !Registers[0] || !Registers[1] || Registers[1] >= Registers[0]) {
    Chosen = 0;
    TwoBuilds = false;
  }
}

std::vector<CUfunction> KernelChoice::builds() const {
  if (TwoBuilds)
    return {Fns[0], Fns[1]};
  return {Fns[0]};
}

KernelChoice::~KernelChoice() {
  // An event still waiting on work is released once the work is done.
  for (const Trial &T : Pending) {
    A.cuEventDestroy(T.Start);
    A.cuEventDestroy(T.Stop);
  }
}

void KernelChoice::collect() {
  for (size_t I = 0; I < Pending.size();) {
    Trial &T = Pending[I];
    CUresult R = A.cuEventQuery(T.Stop);
    if (R == CUDA_ERROR_NOT_READY) {
      ++I;
      continue;
    }
    float Ms = 0;
    if (R == CUDA_SUCCESS && A.cuEventElapsedTime(&Ms, T.Start, T.Stop) == CUDA_SUCCESS)
      NsPerPacket[T.Build].push_back(double(Ms) * 1e6 / T.Packets);
    A.cuEventDestroy(T.Start);
    A.cuEventDestroy(T.Stop);
    Pending.erase(Pending.begin() + long(I));
  }
}

void KernelChoice::decide() {
  if (NsPerPacket[0].size() < TrialsEach || NsPerPacket[1].size() < TrialsEach)
    return;
  Chosen = median(NsPerPacket[1]) < median(NsPerPacket[0]) ? 1 : 0;
}

KernelChoice::Launch KernelChoice::begin(CUstream Stream, uint32_t Packets) {
  std::lock_guard<std::mutex> Lock(Mu);
  Launch L;
  L.Packets = Packets;
  if (Chosen >= 0) {
    L.Fn = Fns[Chosen];
    L.Build = Chosen;
    return L;
  }
  collect();
  decide();
  if (Chosen >= 0 || Packets < TrialPackets) {
    L.Build = Chosen >= 0 ? Chosen : 0;
    L.Fn = Fns[L.Build];
    return L;
  }
  // Alternate, so that both builds see the same phases of the traffic
  // (and of the maps: a table filling up, then settled).
  L.Build = int(Started++ % 2);
  L.Fn = Fns[L.Build];
  if (A.cuEventCreate(&L.Start, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      A.cuEventCreate(&L.Stop, CU_EVENT_DEFAULT) != CUDA_SUCCESS ||
      A.cuEventRecord(L.Start, Stream) != CUDA_SUCCESS) {
    // No events: no timing either. The default build from now on.
    if (L.Start)
      A.cuEventDestroy(L.Start);
    if (L.Stop)
      A.cuEventDestroy(L.Stop);
    L.Start = L.Stop = nullptr;
    Chosen = L.Build = 0;
    L.Fn = Fns[0];
  }
  return L;
}

void KernelChoice::end(Launch &L, CUstream Stream, bool Launched) {
  if (!L.Start)
    return;
  std::lock_guard<std::mutex> Lock(Mu);
  if (Launched && A.cuEventRecord(L.Stop, Stream) == CUDA_SUCCESS) {
    Pending.push_back({L.Build, L.Packets, L.Start, L.Stop});
  } else {
    A.cuEventDestroy(L.Start);
    A.cuEventDestroy(L.Stop);
  }
  L.Start = L.Stop = nullptr;
}

std::string KernelChoice::describe() const {
  std::lock_guard<std::mutex> Lock(Mu);
  char Buf[256];
  auto Times = [&](int B) {
    return NsPerPacket[B].empty() ? 0.0 : median(NsPerPacket[B]);
  };
  if (!Fns[1] || (Chosen == 0 && NsPerPacket[0].empty()))
    std::snprintf(Buf, sizeof Buf, "default build (%d registers)", Registers[0]);
  else if (Chosen < 0)
    std::snprintf(Buf, sizeof Buf, "timing the default build (%d registers) against the %d-register one (%d)",
                  Registers[0], EBPFGPU_XDP_BUDGET_REGISTERS, Registers[1]);
  else
    std::snprintf(Buf, sizeof Buf,
                  "%s build (%d registers): median %.3f ns a packet, the %s %.3f, over %u "
                  "large batches each",
                  Chosen ? "register-budget" : "default", Registers[Chosen], Times(Chosen),
                  Chosen ? "default build's" : "register-budget build's", Times(1 - Chosen),
                  TrialsEach);
  return Buf;
}

} // namespace ebpfgpu::loader

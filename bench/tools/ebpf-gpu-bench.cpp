// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-bench: compiled program vs hand-written CUDA kernel on the same
// packets, resident in GPU memory, in one run. Both are loaded through the
// loader (PTX JIT-compiled by the driver), both run on the same descriptor
// and frame arrays; verdicts must agree before a time is kept. Times are
// device events around each launch: warm-up, then many repetitions,
// median and spread reported. No LLVM needed.
//
// usage: ebpf-gpu-bench --gpu-object P.gpu.o --cuda-ptx K.ptx --cuda-kernel NAME
//                       --pcap IN.pcap [--packets N] [--reps R] [--json FILE]

#include "ebpf-gpu/Loader/GpuLoader.h"
#include "ebpf-gpu/Runtime/Packets.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

using namespace ebpfgpu;

namespace {

[[noreturn]] void fail(const std::string &Msg, int Code = 1) {
  std::fprintf(stderr, "ebpf-gpu-bench: error: %s\n", Msg.c_str());
  std::exit(Code);
}

struct Stats {
  double Median = 0, Min = 0, P90 = 0;
};

Stats summarize(std::vector<float> Ms) {
  std::sort(Ms.begin(), Ms.end());
  Stats S;
  S.Min = Ms.front();
  S.Median = Ms[Ms.size() / 2];
  S.P90 = Ms[std::min(Ms.size() - 1, Ms.size() * 9 / 10)];
  return S;
}

} // namespace

int main(int argc, char **argv) {
  std::string GpuObj, Ptx, Kernel, Pcap, Json;
  uint64_t Packets = 0, Reps = 50;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    auto Val = [&]() -> std::string {
      if (I + 1 >= argc)
        fail(A + " needs a value", 2);
      return argv[++I];
    };
    if (A == "--gpu-object") GpuObj = Val();
    else if (A == "--cuda-ptx") Ptx = Val();
    else if (A == "--cuda-kernel") Kernel = Val();
    else if (A == "--pcap") Pcap = Val();
    else if (A == "--json") Json = Val();
    else if (A == "--packets") Packets = std::strtoull(Val().c_str(), nullptr, 0);
    else if (A == "--reps") Reps = std::strtoull(Val().c_str(), nullptr, 0);
    else fail("unknown argument " + A, 2);
  }
  if (GpuObj.empty() || Ptx.empty() || Kernel.empty() || Pcap.empty() || Reps == 0)
    fail("need --gpu-object, --cuda-ptx, --cuda-kernel and --pcap", 2);

  auto Compiled = loader::readGpuObjectFile(GpuObj);
  if (!Compiled)
    fail(Compiled.error().message());
  std::ifstream PtxIn(Ptx);
  if (!PtxIn)
    fail(Ptx + ": cannot open file");
  loader::GpuObjectSpec Hand;
  Hand.Program = Kernel;
  Hand.Platform = "xdp";
  Hand.Kernel = Kernel;
  Hand.Ptx.assign(std::istreambuf_iterator<char>(PtxIn), {});

  auto Batch = runtime::readPcap(Pcap);
  if (!Batch)
    fail(Batch.error().message());
  size_t N = Packets ? std::min<size_t>(Packets, Batch->size()) : Batch->size();
  std::vector<ebpfgpu_packet_desc> Descs(N);
  for (size_t I = 0; I < N; ++I) {
    Descs[I] = {};
    Descs[I].buffer = I * Batch->stride();
    Descs[I].data_offset = Batch->offset(I);
    Descs[I].length = Batch->length(I);
    Descs[I].buffer_size = uint32_t(Batch->stride());
  }

  auto Dev = loader::GpuDevice::open(0);
  if (!Dev)
    fail(Dev.error().message());
  auto ProgA = loader::GpuProgram::load(**Dev, *Compiled);
  if (!ProgA)
    fail(GpuObj + ": " + ProgA.error().message());
  auto ProgB = loader::GpuProgram::load(**Dev, Hand);
  if (!ProgB)
    fail(Ptx + ": " + ProgB.error().message());
  auto GB = loader::GpuBatch::create(**Dev, Batch->frames(), N * Batch->stride(), Descs);
  if (!GB)
    fail(GB.error().message());

  // Correctness first: both must give the same verdict for every packet.
  std::vector<ebpfgpu_verdict> VA, VB;
  for (auto [P, V] : {std::pair{&*ProgA, &VA}, std::pair{&*ProgB, &VB}}) {
    if (MaybeError E = (*GB)->clearVerdicts())
      fail(E->message());
    auto Ms = (*GB)->launch(**P);
    if (!Ms)
      fail(Ms.error().message());
    if (MaybeError E = (*GB)->verdicts(*V))
      fail(E->message());
  }
  size_t Mismatch = 0;
  std::array<uint64_t, 5> Counts{};
  for (size_t I = 0; I < N; ++I) {
    if (VA[I].action > 4 || VB[I].action > 4)
      fail("packet " + std::to_string(I) + " got no verdict from " +
           (VA[I].action > 4 ? "the compiled program" : "the CUDA kernel"));
    if (VA[I].action != VB[I].action)
      ++Mismatch;
    if (VA[I].action < 5)
      ++Counts[VA[I].action];
  }
  if (Mismatch)
    fail(std::to_string(Mismatch) + " of " + std::to_string(N) +
         " verdicts differ between the compiled program and the CUDA kernel");

  // Interleaved repetitions, so clock and thermal drift hit both alike.
  std::vector<float> TA, TB;
  for (uint64_t R = 0; R < Reps + 5; ++R) {
    for (auto [P, T] : {std::pair{&*ProgA, &TA}, std::pair{&*ProgB, &TB}}) {
      auto Ms = (*GB)->launch(**P);
      if (!Ms)
        fail(Ms.error().message());
      if (R >= 5)
        T->push_back(*Ms);
    }
  }
  Stats A = summarize(TA), B = summarize(TB);
  double MppsA = N / (A.Median * 1e3), MppsB = N / (B.Median * 1e3);
  std::printf("device: %s, %zu packets resident in GPU memory, %llu repetitions\n",
              (*Dev)->name().c_str(), N, (unsigned long long)Reps);
  std::printf("verdicts agree on all %zu packets (DROP %llu, PASS %llu)\n", N,
              (unsigned long long)Counts[1], (unsigned long long)Counts[2]);
  std::printf("%-28s %10s %10s %10s %12s\n", "kernel", "median ms", "min ms", "p90 ms", "Mpps");
  std::printf("%-28s %10.4f %10.4f %10.4f %12.1f\n", ("compiled " + Compiled->Program).c_str(),
              A.Median, A.Min, A.P90, MppsA);
  std::printf("%-28s %10.4f %10.4f %10.4f %12.1f\n", ("hand-written " + Kernel).c_str(), B.Median,
              B.Min, B.P90, MppsB);
  std::printf("compiled / hand-written throughput: %.3f\n", MppsA / MppsB);
  if (!Json.empty()) {
    std::ofstream J(Json);
    J << "{\"device\": \"" << (*Dev)->name() << "\", \"packets\": " << N << ", \"reps\": " << Reps
      << ", \"compiled\": {\"median_ms\": " << A.Median << ", \"mpps\": " << MppsA
      << "}, \"cuda\": {\"median_ms\": " << B.Median << ", \"mpps\": " << MppsB
      << "}, \"ratio\": " << MppsA / MppsB << "}\n";
  }
  return 0;
}

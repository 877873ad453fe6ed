// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-runner-bench: the GPU back end's batch path as the runtime uses
// it (loader::GpuRunner), by control-flow mode (a launch per batch, or a
// persistent kernel fed through a doorbell ring), data path (batches copied
// to GPU memory, or read in mapped pinned host memory), batch size and
// frame size. For each combination: a warm-up, then batch after batch of
// fresh packets (the pcap's packets cut or padded to the frame size, padding
// from a PRNG, never zeros; each batch takes the next packets), timing each
// batch on the host clock: the staging of its packets in pinned memory
// (the CPU's copy, as the runtime's), and run() from then until its
// verdicts are on the host: p50/p99 of run() (the batch latency the GPU
// path adds), staging p50, and packets per second with and without it. Before any timing, every
// combination's verdicts and output bytes on the first batches must equal
// those of launch+copy at batch size 1 (one packet a launch, the simplest
// path), so a fast path that decides differently fails the run.
//
// usage: ebpf-gpu-runner-bench --gpu-object P.gpu.o --pcap IN.pcap
//          [--batches 32,256,4096] [--frames 64,512,1500] [--modes launch,persistent]
//          [--paths copy,mapped] [--seconds S] [--json FILE]

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Loader/GpuLoader.h"
#include "ebpf-gpu/Loader/GpuRunner.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Tools/ArgCursor.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "BenchCommon.h"

using namespace ebpfgpu;
using namespace ebpfgpu::bench;

[[noreturn]] void ebpfgpu::bench::fail(const std::string &Msg, int Code) {
  std::fprintf(stderr, "ebpf-gpu-runner-bench: error: %s\n", Msg.c_str());
  std::exit(Code);
}


namespace {

std::vector<uint32_t> numbers(const std::string &S, const std::string &Opt) {
  std::vector<uint32_t> Out;
  std::stringstream In(S);
  std::string Item;
  while (std::getline(In, Item, ',')) {
    char *End = nullptr;
    unsigned long V = std::strtoul(Item.c_str(), &End, 10);
    if (Item.empty() || *End || V == 0 || V > (1u << 20))
      fail(Opt + " needs comma-separated numbers from 1 to 1048576", 2);
    Out.push_back(uint32_t(V));
  }
  return Out;
}

std::vector<std::string> names(const std::string &S) {
  std::vector<std::string> Out;
  std::stringstream In(S);
  std::string Item;
  while (std::getline(In, Item, ','))
    Out.push_back(Item);
  return Out;
}

/// The pcap's packets, each cut or padded to one frame size.
struct Frames {
  uint32_t Size = 0;
  std::vector<std::vector<uint8_t>> Packets;
};

Frames makeFrames(const runtime::PacketBatch &Pcap, uint32_t Size) {
  Frames F;
  F.Size = Size;
  uint64_t State = 0x9e3779b97f4a7c15ull ^ Size;
  F.Packets.resize(Pcap.size());
  for (size_t I = 0; I < Pcap.size(); ++I) {
    std::vector<uint8_t> &P = F.Packets[I];
    P.resize(Size);
    uint32_t Keep = std::min(Size, Pcap.length(I));
    std::memcpy(P.data(), Pcap.data(I), Keep);
    for (uint32_t B = Keep; B < Size; ++B) {
      State = State * 6364136223846793005ull + 1442695040888963407ull;
      P[B] = uint8_t(State >> 56) | 1; // never zero
    }
  }
  return F;
}

constexpr uint32_t Headroom = runtime::XdpHeadroom, Tailroom = runtime::XdpTailroom;

size_t bufferBytes(uint32_t Len) { return (Headroom + Len + Tailroom + 63) & ~size_t(63); }

/// Stages packets [First, First + Count) (wrapping) into the runner.
size_t stage(loader::GpuRunner &R, const Frames &F, size_t First, uint32_t Count) {
  size_t At = 0;
  for (uint32_t K = 0; K < Count; ++K) {
    const std::vector<uint8_t> &P = F.Packets[(First + K) % F.Packets.size()];
    ebpfgpu_packet_desc &D = R.descs()[K];
    D = {};
    D.buffer = At;
    D.data_offset = Headroom;
    D.length = uint32_t(P.size());
    D.buffer_size = uint32_t(bufferBytes(D.length));
    std::memcpy(R.frames() + At + Headroom, P.data(), P.size());
    At += D.buffer_size;
  }
  return At;
}

/// One packet's outcome: verdict, redirect target and final bytes.
struct Outcome {
  ebpfgpu_verdict V;
  std::vector<uint8_t> Bytes;
  bool operator==(const Outcome &O) const {
    return V.action == O.V.action && V.redirect_target == O.V.redirect_target &&
           V.data_offset == O.V.data_offset && V.length == O.V.length && Bytes == O.Bytes;
  }
};

void collect(loader::GpuRunner &R, uint32_t Count, std::vector<Outcome> &Out) {
  size_t At = 0;
  for (uint32_t K = 0; K < Count; ++K) {
    const ebpfgpu_verdict &V = R.verdicts()[K];
    size_t Buffer = R.descs()[K].buffer_size;
    Outcome O{V, {}};
    if (V.data_offset <= Buffer && V.length <= Buffer - V.data_offset)
      O.Bytes.assign(R.frames() + At + V.data_offset, R.frames() + At + V.data_offset + V.length);
    Out.push_back(std::move(O));
    At += Buffer;
  }
}

struct Result {
  std::string Mode, Path;
  uint32_t Batch = 0, Frame = 0;
  uint64_t Batches = 0, Packets = 0;
  /// run() alone (the GPU's part), its packets per second at p50, the
  /// host's staging, and packets per second with staging (one batch at a
  /// time, one host thread).
  double P50Us = 0, P99Us = 0, GpuMpps = 0, StageP50Us = 0, Mpps = 0;
};

} // namespace

int main(int argc, char **argv) {
  std::string Object, Pcap, Json;
  std::vector<uint32_t> BatchSizes = {32, 256, 4096}, FrameSizes = {64, 512, 1500};
  std::vector<std::string> Modes = {"launch", "persistent"}, Paths = {"copy", "mapped"};
  double Seconds = 0.5;
  for (tools::ArgCursor C(argc, argv, usage, /*Skip=*/1); C.next();) {
    const std::string &A = C.arg();
    auto Val = [&] { return C.value(); };
    if (A == "--gpu-object") Object = Val();
    else if (A == "--pcap") Pcap = Val();
    else if (A == "--json") Json = Val();
    else if (A == "--batches") BatchSizes = numbers(Val(), A);
    else if (A == "--frames") FrameSizes = numbers(Val(), A);
    else if (A == "--modes") Modes = names(Val());
    else if (A == "--paths") Paths = names(Val());
    else if (A == "--seconds") {
      Seconds = std::atof(Val().c_str());
      if (!(Seconds > 0 && Seconds <= 60))
        fail("--seconds needs a time from 0 to 60", 2);
    } else fail("unknown argument " + A, 2);
  }
  if (Object.empty() || Pcap.empty())
    fail("need --gpu-object and --pcap", 2);
  for (const std::string &M : Modes) {
    loader::GpuMode X;
    if (!loader::parseGpuMode(M, X))
      fail("unknown mode '" + M + "' (launch, persistent)", 2);
  }
  for (const std::string &P : Paths) {
    loader::GpuDataPath X;
    if (!loader::parseGpuDataPath(P, X))
      fail("unknown data path '" + P + "' (copy, mapped)", 2);
  }
  auto Spec = check(abi::readGpuObjectFile(Object), Object);
  if (!Spec.Verified)
    fail(Object + ": not verified");
  runtime::PacketBatch Traffic = check(runtime::readPcap(Pcap), Pcap);
  if (Traffic.size() == 0)
    fail(Pcap + ": no packets");
  auto Dev = check(loader::GpuDevice::open(0), "GPU");
  auto Prog = check(loader::GpuProgram::load(*Dev, Spec), Object);
  std::printf("device: %s; program %s; %zu packets from %s\n", Dev->name().c_str(),
              Spec.Program.c_str(), Traffic.size(), Pcap.c_str());
  const uint32_t MaxBatch = *std::max_element(BatchSizes.begin(), BatchSizes.end());
  using Clock = std::chrono::steady_clock;
  std::vector<Result> Results;
  for (uint32_t FrameSize : FrameSizes) {
    Frames F = makeFrames(Traffic, FrameSize);
    // The reference: one packet a launch, copied, over the first packets.
    const uint32_t CheckPackets = std::min<uint32_t>(MaxBatch, 4096);
    std::vector<Outcome> Reference;
    {
      loader::GpuRunnerOptions RO;
      RO.MaxPackets = 1;
      RO.MaxFrameBytes = bufferBytes(FrameSize);
      auto R = check(loader::GpuRunner::create(*Dev, *Prog, RO), "reference runner");
      for (uint32_t K = 0; K < CheckPackets; ++K) {
        size_t Bytes = stage(*R, F, K, 1);
        check(R->run(1, Bytes), "reference run");
        collect(*R, 1, Reference);
      }
    }
    for (const std::string &ModeName : Modes)
      for (const std::string &PathName : Paths) {
        loader::GpuRunnerOptions RO;
        loader::parseGpuMode(ModeName, RO.Mode);
        loader::parseGpuDataPath(PathName, RO.Path);
        RO.MaxPackets = MaxBatch;
        RO.MaxFrameBytes = MaxBatch * bufferBytes(FrameSize);
        auto R = check(loader::GpuRunner::create(*Dev, *Prog, RO),
                       ModeName + "/" + PathName + " runner");
        for (uint32_t BatchSize : BatchSizes) {
          std::string Label = ModeName + "/" + PathName + " batch " + std::to_string(BatchSize) +
                              " frame " + std::to_string(FrameSize);
          // Check: the first CheckPackets packets, in batches of this size.
          std::vector<Outcome> Got;
          for (uint32_t First = 0; First < CheckPackets; First += BatchSize) {
            uint32_t Count = std::min(BatchSize, CheckPackets - First);
            size_t Bytes = stage(*R, F, First, Count);
            check(R->run(Count, Bytes), Label);
            collect(*R, Count, Got);
          }
          for (size_t K = 0; K < Reference.size(); ++K)
            if (!(Got[K] == Reference[K]))
              fail(Label + ": packet " + std::to_string(K) +
                   " differs from the reference (one packet a launch, copied)");
          // Warm-up, then timed batches of fresh packets.
          size_t Next = 0;
          for (int W = 0; W < 20; ++W) {
            size_t Bytes = stage(*R, F, Next, BatchSize);
            Next += BatchSize;
            check(R->run(BatchSize, Bytes), Label);
          }
          std::vector<double> Lat, Staging;
          auto Start = Clock::now();
          double Busy = 0;
          while (Busy < Seconds || Lat.size() < 50) {
            auto T0 = Clock::now();
            size_t Bytes = stage(*R, F, Next, BatchSize);
            Next += BatchSize;
            auto T1 = Clock::now();
            check(R->run(BatchSize, Bytes), Label);
            auto T2 = Clock::now();
            Staging.push_back(std::chrono::duration<double, std::micro>(T1 - T0).count());
            Lat.push_back(std::chrono::duration<double, std::micro>(T2 - T1).count());
            Busy = std::chrono::duration<double>(T2 - Start).count();
          }
          Result Res;
          Res.Mode = ModeName, Res.Path = PathName, Res.Batch = BatchSize, Res.Frame = FrameSize;
          Res.Batches = Lat.size();
          Res.Packets = uint64_t(Lat.size()) * BatchSize;
          Res.Mpps = double(Res.Packets) / Busy / 1e6;
          std::sort(Lat.begin(), Lat.end());
          std::sort(Staging.begin(), Staging.end());
          Res.P50Us = Lat[Lat.size() / 2];
          Res.P99Us = Lat[std::min(Lat.size() - 1, Lat.size() * 99 / 100)];
          Res.StageP50Us = Staging[Staging.size() / 2];
          Res.GpuMpps = BatchSize / Res.P50Us;
          std::printf("%-10s %-6s batch %6u frame %5u: run p50 %9.1f us p99 %9.1f us (%8.2f "
                      "Mpps); staging p50 %8.1f us; with staging %8.2f Mpps (%llu batches; "
                      "verdicts = reference on %u packets)\n",
                      ModeName.c_str(), PathName.c_str(), BatchSize, FrameSize, Res.P50Us,
                      Res.P99Us, Res.GpuMpps, Res.StageP50Us, Res.Mpps,
                      (unsigned long long)Res.Batches, CheckPackets);
          std::fflush(stdout);
          Results.push_back(Res);
        }
      }
  }
  if (!Json.empty()) {
    std::ofstream Out(Json);
    Out << "{\"device\": \"" << Dev->name() << "\", \"program\": \"" << Spec.Program
        << "\", \"results\": [\n";
    for (size_t I = 0; I < Results.size(); ++I) {
      const Result &R = Results[I];
      Out << "  {\"mode\": \"" << R.Mode << "\", \"path\": \"" << R.Path << "\", \"batch\": "
          << R.Batch << ", \"frame\": " << R.Frame << ", \"batches\": " << R.Batches
          << ", \"p50_us\": " << R.P50Us << ", \"p99_us\": " << R.P99Us
          << ", \"gpu_mpps\": " << R.GpuMpps << ", \"staging_p50_us\": " << R.StageP50Us
          << ", \"mpps\": " << R.Mpps
          << "}" << (I + 1 < Results.size() ? "," : "") << "\n";
    }
    Out << "]}\n";
    if (!Out)
      fail(Json + ": cannot write");
  }
  Prog.reset();
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-host-bench: the CPU side of the benchmarks (issue 7). The host
// back end (the LLVM ORC JIT, compiler/HostJit.h) runs the suite's XDP
// programs on packets resident in host memory, on 1 thread and on N
// threads (each thread pinned to its own CPU, a contiguous share of the
// packets each), warm-up then repetitions, median Mpps reported (with
// --prefetch D, each thread also prefetches the packet D ahead); and, with
// --kernel, the same programs through the Linux kernel's own JIT with
// BPF_PROG_TEST_RUN (`repeat` runs of each of a sample of the packets,
// timed by the kernel itself: not the NIC path). Verdicts are checked
// before any time is kept (how: below). The packets' bytes are restored
// before every pass, outside the timed span (programs rewrite them).
//
// What one host pass is: each thread hands its share of the packets to
// libebpf-gpu's C API as an application embedding it would, in bursts of
// --burst packets (ebpf_gpu_lane__run_burst on the thread's own lane, each
// packet described where it lies, with an mbuf's room around it, so the
// burst runs in place), and keeps each packet's verdict, redirect target
// and bounds. All threads share one program and its maps, loaded once
// (verified first, as every load through the API) for as many workers as
// the most threads timed: each lane is a CPU of its own, so per-CPU maps
// hold a value per thread, as the kernel's per CPU.
//
// Checks, per program (the suite's check= word):
//   exact     a 1-thread pass is the reference (the loader's
//             `run --backend host` computes the same); an N-thread pass
//             must give every packet the same verdict, redirect target,
//             bounds and output bytes
//   converge  1-thread passes until two decide alike (at most 8), then an
//             N-thread pass must decide exactly as the settled pass
//   cms:T     count-min sketch (samples/xdp_ddos_cms.c) with threshold T:
//             a 1-thread pass and then an N-thread pass from a zero sketch
//             are checked against bounds computed here from the packets
//
// usage: ebpf-gpu-host-bench --suite FILE --pcap IN.pcap [options]
// Suite lines: NAME object=PROG.o [section=S] [maps=FILE] [map-size=MAP=N]...
//   [check=...] ('#' comments); maps= is a map file as the loader's
//   --map-file, map-size= its --map-size (max_entries before load).

#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Tools/ApiProgram.h"
#include "ebpf-gpu/Tools/ArgCursor.h"

#include <ebpf-gpu/ebpf-gpu.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "HostBenchKernel.h"

#include "BenchCommon.h"

using namespace ebpfgpu;
using namespace ebpfgpu::bench;

[[noreturn]] void ebpfgpu::bench::fail(const std::string &Msg, int Code) {
  std::fprintf(stderr, "ebpf-gpu-host-bench: error: %s\n", Msg.c_str());
  std::exit(Code);
}

using namespace ebpfgpu::hostbench;

namespace {

struct Options {
  std::string Suite, Pcap, Json;
  uint64_t Packets = 0, Reps = 20, Warmup = 3;
  double MaxSeconds = 10; ///< per program and thread count, repetitions stop past it
  std::vector<unsigned> Threads;
  /// Timed passes: prefetch the packet this many ahead (0: none), each.
  std::vector<unsigned> Prefetches{0};
  bool Kernel = false;
  uint64_t KernelPackets = 256, KernelRepeat = 32;
  uint64_t Burst = 256;
};

std::vector<Entry> readSuite(const std::string &Path) {
  return readSuiteFile<Entry>(
      Path, "programs",
      [](Entry &E, const std::string &K, const std::string &V, const std::string &,
         const std::string &Where) {
        if (K == "object") E.Object = V;
        else if (K == "section") E.Section = V;
        else if (K == "maps") E.MapFile = V;
        else if (K == "check") E.Check = V;
        else if (K == "map-size") {
          auto S = object::parseMapSize(V);
          if (!S)
            fail(Where + S.error().message());
          E.MapSizes.push_back(*S);
        } else fail(Where + "unknown key '" + K + "'");
      },
      [](const Entry &E, const std::string &Where) {
        if (E.Object.empty())
          fail(Where + E.Name + " needs object=");
        if (E.Check != "exact" && !convergePasses(E.Check, Where) &&
            (E.Check.rfind("cms:", 0) != 0 || E.Check.size() == 4 ||
             E.Check.find_first_not_of("0123456789", 4) != std::string::npos))
          fail(Where + "check must be exact, converge[:N] or cms:THRESHOLD");
      });
}

/// The CPUs this process may run on, in order.
std::vector<int> allowedCpus() {
  cpu_set_t Set;
  CPU_ZERO(&Set);
  if (sched_getaffinity(0, sizeof(Set), &Set) != 0)
    fail(std::string("sched_getaffinity: ") + std::strerror(errno));
  std::vector<int> Out;
  for (int C = 0; C < CPU_SETSIZE; ++C)
    if (CPU_ISSET(C, &Set))
      Out.push_back(C);
  return Out;
}

/// The packets, resident in host memory, with a pristine copy of their
/// buffers to restore before each pass.
struct Resident {
  runtime::PacketBatch Batch{64};
  size_t N = 0;
  uint32_t Burst = 256; ///< packets a burst (--burst)
  std::vector<uint8_t> Pristine;
  std::vector<Outcome> Out;
  std::vector<int> Cpus;
};

/// A program of the suite on the C API (tools::ApiProgram): opened, its
/// maps sized, loaded (verified first: the library refuses what the
/// verifier refuses) for `Workers` threads, its map file applied; a lane
/// per thread.
struct Loaded {
  tools::ApiProgram Prog;
  std::vector<ebpf_gpu_lane *> Lanes;
  std::string ProgramName;
};

Loaded load(const Entry &E, unsigned Workers) {
  tools::ApiLoad A;
  A.Object = E.Object;
  A.Section = E.Section;
  A.Backend = exec::Backend::Host;
  A.Shapes.MapSizes = E.MapSizes;
  A.Workers = Workers;
  Loaded L{check(tools::ApiProgram::load(A), E.Object), {}, ""};
  L.ProgramName = L.Prog.name();
  if (!E.MapFile.empty())
    check(L.Prog.setEntries(check(loader::readMapFile(E.MapFile), E.MapFile), ""), E.MapFile);
  for (unsigned W = 0; W < Workers; ++W)
    L.Lanes.push_back(check(L.Prog.lane(W), E.Object));
  return L;
}

/// Packet I's buffer as it was read, from its start to the tailroom past
/// the farther of its original end and where the last pass left it: every
/// byte a program can have written (the rest of the 2 KiB buffer is never
/// reached, and copying it would cost more than the programs).
void restore(Resident &R, size_t I) {
  size_t Stride = R.Batch.stride();
  size_t End = std::max<size_t>(R.Batch.offset(I) + R.Batch.length(I),
                                size_t(R.Out[I].Offset) + R.Out[I].Length);
  End = std::min(Stride, End + runtime::XdpTailroom);
  std::memcpy(R.Batch.buffer(I), R.Pristine.data() + I * Stride, End);
}

/// Packets [Lo, Hi) through `Lane` in bursts of `Burst`, each packet where
/// it lies (its buffer's headroom and tailroom around it: the library runs
/// them in place), as a DPDK application hands its mbufs over; the outcomes
/// into R.Out. Returns the library's message on failure, else "".
std::string runShare(Resident &R, ebpf_gpu_lane *Lane, size_t Lo, size_t Hi, uint32_t Burst,
                     uint32_t Prefetch) {
  std::vector<ebpf_gpu_packet> Pkts(Burst);
  ebpf_gpu_run_opts Run = {};
  Run.sz = sizeof(Run);
  Run.ingress_ifindex = R.Batch.ingressIfindex();
  Run.rx_queue_index = R.Batch.rxQueueIndex();
  Run.prefetch = Prefetch;
  for (size_t I = Lo; I < Hi; I += Burst) {
    uint32_t N = uint32_t(std::min<size_t>(Burst, Hi - I));
    for (uint32_t J = 0; J < N; ++J) {
      uint32_t Off = R.Batch.offset(I + J);
      Pkts[J] = {R.Batch.buffer(I + J) + Off, R.Batch.length(I + J),
                 uint32_t(R.Batch.bufferSize(I + J) - Off), 0, 0, Off};
    }
    if (ebpf_gpu_lane__run_burst(Lane, Pkts.data(), N, &Run) != int(N))
      return std::string("packets from ") + std::to_string(I) + ": " + ebpf_gpu_last_error();
    for (uint32_t J = 0; J < N; ++J)
      R.Out[I + J] = {Pkts[J].verdict, uint32_t(Pkts[J].data - R.Batch.buffer(I + J)),
                      Pkts[J].len, Pkts[J].redirect};
  }
  return "";
}

/// One pass over all packets on `Threads` threads (thread K pinned to the
/// K-th allowed CPU, packets [K*N/T, (K+1)*N/T), through lane K): each
/// restores its share, all meet, then run; returns the seconds from the
/// start signal to the last thread's end.
double pass(Resident &R, const Loaded &L, unsigned Threads, unsigned Prefetch = 0) {
  std::atomic<unsigned> Ready{0};
  std::atomic<bool> Go{false};
  std::vector<std::chrono::steady_clock::time_point> End(Threads);
  std::vector<std::string> Errors(Threads);
  std::vector<std::thread> Pool;
  for (unsigned K = 0; K < Threads; ++K)
    Pool.emplace_back([&, K] {
      cpu_set_t One;
      CPU_ZERO(&One);
      CPU_SET(R.Cpus[K], &One);
      if (sched_setaffinity(0, sizeof(One), &One) != 0)
        Errors[K] = "cannot pin a thread to CPU " + std::to_string(R.Cpus[K]) + ": " +
                    std::strerror(errno);
      size_t Lo = R.N * K / Threads, Hi = R.N * (K + 1) / Threads;
      for (size_t I = Lo; I < Hi; ++I)
        restore(R, I);
      Ready.fetch_add(1, std::memory_order_acq_rel);
      while (!Go.load(std::memory_order_acquire))
        std::this_thread::yield();
      if (std::string E = runShare(R, L.Lanes[K], Lo, Hi, R.Burst, Prefetch); !E.empty())
        Errors[K] = E;
      End[K] = std::chrono::steady_clock::now();
    });
  while (Ready.load(std::memory_order_acquire) != Threads)
    std::this_thread::yield();
  auto Start = std::chrono::steady_clock::now();
  Go.store(true, std::memory_order_release);
  for (std::thread &T : Pool)
    T.join();
  for (const std::string &E : Errors)
    if (!E.empty())
      fail(E);
  return std::chrono::duration<double>(*std::max_element(End.begin(), End.end()) - Start).count();
}

/// The kernel's way, on the host back end: each of `Sample` packets spread
/// over the traffic run `Repeat` times in a row on one thread (the packet
/// as the previous run left it, a fresh context each run), timed around
/// the runs of each packet; returns the median over the packets of their
/// mean ns a run (as the kernel half reports). The runs of a packet are one
/// burst through lane 0 that names the packet `Repeat` times (each entry
/// run in place, with a context of its own), so the library's cost of a
/// burst is shared by the runs, as the kernel's test-run loop shares its
/// system call. The packets are restored afterwards.
double hostRepeat(Resident &R, const Loaded &L, uint64_t Sample, uint64_t Repeat) {
  cpu_set_t One;
  CPU_ZERO(&One);
  CPU_SET(R.Cpus[0], &One);
  if (sched_setaffinity(0, sizeof(One), &One) != 0)
    fail("cannot pin to CPU " + std::to_string(R.Cpus[0]) + ": " + std::strerror(errno));
  uint64_t Take = std::min<uint64_t>(Sample, R.N);
  std::vector<double> Ns;
  std::vector<ebpf_gpu_packet> Runs(Repeat);
  for (uint64_t K = 0; K < Take; ++K) {
    size_t I = size_t(K * R.N / Take);
    restore(R, I);
    const uint32_t Off = R.Batch.offset(I);
    for (ebpf_gpu_packet &P : Runs)
      P = {R.Batch.buffer(I) + Off, R.Batch.length(I), uint32_t(R.Batch.bufferSize(I) - Off), 0,
           0, Off};
    auto T0 = std::chrono::steady_clock::now();
    if (ebpf_gpu_lane__run_burst(L.Lanes[0], Runs.data(), uint32_t(Repeat), nullptr) !=
        int(Repeat))
      fail(std::string("packet ") + std::to_string(I) + ": " + ebpf_gpu_last_error());
    auto T1 = std::chrono::steady_clock::now();
    Ns.push_back(std::chrono::duration<double, std::nano>(T1 - T0).count() / double(Repeat));
    restore(R, I);
  }
  // Back to every allowed CPU, for the passes that follow.
  cpu_set_t All;
  CPU_ZERO(&All);
  for (int C : R.Cpus)
    CPU_SET(C, &All);
  sched_setaffinity(0, sizeof(All), &All);
  std::sort(Ns.begin(), Ns.end());
  return Ns[Ns.size() / 2];
}

std::string describe(const Outcome &O) {
  return "verdict " + std::to_string(O.Verdict) + " offset " + std::to_string(O.Offset) +
         " length " + std::to_string(O.Length) + " target " + std::to_string(O.Redirect);
}

/// The first packet whose outcome or output bytes differ from the
/// reference, described; empty when none does.
std::string firstDifference(const std::string &Who, const Resident &R,
                            const std::vector<Outcome> &Ref, const std::vector<uint8_t> &RefFrames) {
  size_t Stride = R.Batch.stride();
  for (size_t I = 0; I < R.N; ++I) {
    if (!(R.Out[I] == Ref[I]))
      return Who + ": packet " + std::to_string(I) + ": " + describe(R.Out[I]) +
             ", the 1-thread reference " + describe(Ref[I]);
    if (std::memcmp(R.Batch.buffer(I), RefFrames.data() + I * Stride, Stride) != 0)
      return Who + ": packet " + std::to_string(I) + ": output bytes differ from the 1-thread pass";
  }
  return "";
}

void compareExact(const std::string &Who, const Resident &R, const std::vector<Outcome> &Ref,
                  const std::vector<uint8_t> &RefFrames) {
  if (std::string D = firstDifference(Who, R, Ref, RefFrames); !D.empty())
    fail(D);
}

/// The count-min bounds (see the top of the file) for pass `Pass` (1 or 2)
/// from a zero sketch; returns the verdicts the bounds left open.
uint64_t checkCms(const std::string &Who, const Resident &R, uint64_t Threshold, unsigned Pass) {
  const CmsBounds Bounds(
      R.N,
      [&](size_t I) { return R.Pristine.data() + I * R.Batch.stride() + R.Batch.offset(I); },
      [&](size_t I) { return R.Batch.length(I); });
  uint64_t Open = 0;
  for (size_t I = 0; I < R.N; ++I) {
    uint32_t V = R.Out[I].Verdict;
    if (!Bounds.sketched(I)) {
      if (V != 1 && V != 2) // XDP_DROP (too short) or XDP_PASS (not IPv4)
        fail(Who + ": packet " + std::to_string(I) + " (not sketched) got verdict " +
             std::to_string(V));
      continue;
    }
    const unsigned Want = Bounds.want(I, Pass, Threshold);
    if (Want == 0 && V != 1 && V != 2)
      fail(Who + ": packet " + std::to_string(I) + " got verdict " + std::to_string(V));
    if (Want == 0)
      ++Open;
    else if (V != Want)
      fail(Who + ", pass " + std::to_string(Pass) + ": packet " + std::to_string(I) +
           " must get verdict " + std::to_string(Want) + ", got " + std::to_string(V));
  }
  return Open;
}

struct Timing {
  unsigned Threads = 0, Prefetch = 0;
  uint64_t Reps = 0;
  double Median = 0, Min = 0, P90 = 0; ///< seconds a pass
};

struct Result {
  std::string Name, Program, Check, CheckNote;
  std::array<uint64_t, 5> Actions{};
  std::vector<Timing> Host;
  KernelResult Kernel;
  double HostRepeatNs = 0; ///< the host back end in the kernel's scheme
};

Result runEntry(Resident &R, const Entry &E, const Options &O) {
  Result Res;
  Res.Name = E.Name;
  Res.Check = E.Check;
  unsigned Most = *std::max_element(O.Threads.begin(), O.Threads.end());
  Loaded L = load(E, Most);
  Res.Program = L.ProgramName;
  std::string Many = std::to_string(Most) + "-thread pass";
  std::vector<Outcome> Ref;
  std::vector<uint8_t> RefFrames;
  auto Keep = [&] {
    Ref = R.Out;
    RefFrames.assign(R.Batch.frames(), R.Batch.frames() + R.N * R.Batch.stride());
    // What is timed is the in-place path: a burst copied would be slower.
    if (uint64_t In = L.Prog.packetsInPlace(); In % R.N != 0 || In == 0)
      fail(E.Name + ": " + std::to_string(In) + " packets ran in place, not every pass's " +
           std::to_string(R.N));
  };
  if (E.Check == "exact") {
    pass(R, L, 1);
    Keep();
    pass(R, L, Most);
    compareExact(E.Name + ": " + Many, R, Ref, RefFrames);
    Res.CheckNote = "a " + Many + " gives every packet the 1-thread pass's verdict, target, "
                    "bounds and output bytes";
  } else if (unsigned Least = convergePasses(E.Check, "")) {
    pass(R, L, 1);
    std::vector<Outcome> Prev = R.Out;
    unsigned Passes = 2;
    for (;; ++Passes) {
      if (Passes > Least + 6)
        fail(E.Name + ": verdicts still change after " + std::to_string(Least + 6) +
             " passes over the packets");
      pass(R, L, 1);
        if (Passes >= Least && R.Out == Prev)
        break;
      Prev = R.Out;
    }
    Keep();
    pass(R, L, Most);
    // A program whose state moves with the clock (the rate limiter's
    // tokens come back every 10 s of wall time) may see a step of it
    // between the reference and the N-thread pass: one more 1-thread
    // reference and N-thread pass, seconds before the next step, decide.
    std::string Retried;
    if (std::string D = firstDifference(E.Name + ": " + Many, R, Ref, RefFrames); !D.empty()) {
      pass(R, L, 1);
        Keep();
      pass(R, L, Most);
        compareExact(E.Name + ": " + Many + " (again, after: " + D + ")", R, Ref, RefFrames);
      Retried = " (the first " + Many + " differed: " + D + "; a fresh reference and a second " +
                Many + " agreed)";
    }
    Res.CheckNote = "settled after " + std::to_string(Passes) + " 1-thread passes; a " + Many +
                    " then decides exactly alike" + Retried;
  } else {
    uint64_t Threshold = std::strtoull(E.Check.c_str() + 4, nullptr, 10);
    pass(R, L, 1);
    Ref = R.Out;
    uint64_t Open = checkCms(E.Name + ": 1-thread pass", R, Threshold, 1);
    pass(R, L, Most);
    Open += checkCms(E.Name + ": " + Many, R, Threshold, 2);
    Res.CheckNote = "a 1-thread pass then a " + Many + " from a zero sketch within host-computed "
                    "bounds; " + std::to_string(Open) + " of " + std::to_string(2 * R.N) +
                    " verdicts left open by the bounds";
  }
  for (const Outcome &V : Ref)
    ++Res.Actions[std::min<uint32_t>(V.Verdict, 4)];
  if (MaybeError Err = L.Prog.checkMaps())
    fail(E.Name + ": " + Err->message());
  std::printf("%s: checked: %s; reference verdicts: aborted %llu drop %llu pass %llu tx %llu "
              "redirect %llu\n",
              E.Name.c_str(), Res.CheckNote.c_str(), (unsigned long long)Res.Actions[0],
              (unsigned long long)Res.Actions[1], (unsigned long long)Res.Actions[2],
              (unsigned long long)Res.Actions[3], (unsigned long long)Res.Actions[4]);
  std::fflush(stdout);

  for (unsigned T : O.Threads)
    for (unsigned Pf : O.Prefetches) {
      std::vector<double> Times;
      auto Began = std::chrono::steady_clock::now();
      for (uint64_t Rep = 0; Rep < O.Warmup + O.Reps; ++Rep) {
        double S = pass(R, L, T, Pf);
        if (Rep >= O.Warmup)
          Times.push_back(S);
        // Bounded: at least 3 timed repetitions, then none starts past the
        // budget (wall time, restoring the packets included).
        double Spent =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - Began).count();
        if (Times.size() >= 3 && Spent > O.MaxSeconds)
          break;
      }
      std::sort(Times.begin(), Times.end());
      Timing Ti{T, Pf, Times.size(), Times[Times.size() / 2], Times.front(),
                Times[std::min(Times.size() - 1, Times.size() * 9 / 10)]};
      Res.Host.push_back(Ti);
      std::string How = std::to_string(T) + (T == 1 ? " thread" : " threads") +
                        (Pf ? ", prefetch " + std::to_string(Pf) : "");
      std::printf("%s: host back end, %-24s %8.2f Mpps (median of %llu, %.4f s a pass)\n",
                  E.Name.c_str(), (How + ":").c_str(), R.N / Ti.Median / 1e6,
                  (unsigned long long)Ti.Reps, Ti.Median);
      std::fflush(stdout);
    }
  if (O.Kernel) {
    Res.Kernel = runKernel(E, R.Batch, R.Pristine, R.N, Ref, RefFrames, O.KernelPackets,
                           O.KernelRepeat);
    // Same packets, same scheme, same CPU, right after: a like-for-like ratio.
    Res.HostRepeatNs = hostRepeat(R, L, O.KernelPackets, O.KernelRepeat);
    std::printf("%s: kernel JIT (BPF_PROG_TEST_RUN, repeat %llu, %llu packets, CPU %d): "
                "%.1f ns/packet (median; mean %.1f) = %.2f Mpps; %s\n",
                E.Name.c_str(), (unsigned long long)O.KernelRepeat,
                (unsigned long long)Res.Kernel.Packets, Res.Kernel.Cpu, Res.Kernel.NsPerPacket,
                Res.Kernel.NsMean, 1e3 / Res.Kernel.NsPerPacket, Res.Kernel.CheckNote.c_str());
    std::printf("%s: host back end, the same packets and repeats, CPU %d: %.1f ns/packet "
                "(median) = "
                "%.2f Mpps (kernel JIT / host JIT time: %.3f)\n",
                E.Name.c_str(), R.Cpus[0], Res.HostRepeatNs, 1e3 / Res.HostRepeatNs,
                Res.Kernel.NsPerPacket / Res.HostRepeatNs);
    std::fflush(stdout);
  }
  return Res;
}

/// The first line of a file, or "?".
std::string firstLine(const std::string &Path) {
  std::ifstream In(Path);
  std::string Line;
  return std::getline(In, Line) ? Line : "?";
}

/// What the kernel JIT's speed depends on, for the report.
std::string kernelSettings() {
  return "Linux " + firstLine("/proc/sys/kernel/osrelease") +
         ", bpf_jit_enable=" + firstLine("/proc/sys/net/core/bpf_jit_enable") +
         ", bpf_jit_harden=" + firstLine("/proc/sys/net/core/bpf_jit_harden") +
         ", bpf_stats_enabled=" + firstLine("/proc/sys/kernel/bpf_stats_enabled") +
         ", spectre_v2: " + firstLine("/sys/devices/system/cpu/vulnerabilities/spectre_v2");
}

std::string cpuModel() {
  std::ifstream In("/proc/cpuinfo");
  std::string Line;
  while (std::getline(In, Line))
    if (Line.rfind("model name", 0) == 0 && Line.find(':') != std::string::npos)
      return Line.substr(Line.find(':') + 2);
  return "unknown";
}

void writeJson(const std::string &Path, const std::vector<Result> &Results, const Options &O,
               const Resident &R) {
  std::ostringstream J;
  J << "{\"cpu\": " << jsonString(cpuModel()) << ", \"cpus\": " << R.Cpus.size()
    << ", \"kernel_settings\": " << jsonString(O.Kernel ? kernelSettings() : "")
    << ", \"kernel_packets\": " << O.KernelPackets << ", \"kernel_repeat\": " << O.KernelRepeat
    << ", \"packets\": " << R.N << ", \"reps\": " << O.Reps << ", \"warmup\": " << O.Warmup
    << ", \"percpu_note\": "
    << jsonString("all threads share one program and its maps through the C API, each "
                  "thread on a lane of its own (a CPU for the per-CPU maps: a value per "
                  "thread, as the kernel's per CPU); bursts of " + std::to_string(R.Burst) +
                  " packets run in place")
    << ", \"programs\": [";
  for (size_t I = 0; I < Results.size(); ++I) {
    const Result &Re = Results[I];
    J << (I ? ", " : "") << "{\"name\": " << jsonString(Re.Name)
      << ", \"program\": " << jsonString(Re.Program) << ", \"check\": " << jsonString(Re.Check)
      << ", \"check_note\": " << jsonString(Re.CheckNote) << ", \"actions\": [";
    for (size_t K = 0; K < 5; ++K)
      J << (K ? ", " : "") << Re.Actions[K];
    J << "], \"host\": [";
    for (size_t K = 0; K < Re.Host.size(); ++K) {
      const Timing &T = Re.Host[K];
      J << (K ? ", " : "") << "{\"threads\": " << T.Threads << ", \"prefetch\": " << T.Prefetch
        << ", \"reps\": " << T.Reps
        << ", \"median_s\": " << T.Median << ", \"min_s\": " << T.Min << ", \"p90_s\": " << T.P90
        << ", \"mpps\": " << R.N / T.Median / 1e6 << "}";
    }
    J << "]";
    if (O.Kernel)
      J << ", \"kernel\": {\"packets\": " << Re.Kernel.Packets
        << ", \"repeat\": " << O.KernelRepeat << ", \"cpu\": " << Re.Kernel.Cpu
        << ", \"ns_per_packet\": " << Re.Kernel.NsPerPacket << ", \"ns_mean\": " << Re.Kernel.NsMean
        << ", \"mpps\": " << 1e3 / Re.Kernel.NsPerPacket
        << ", \"check_note\": " << jsonString(Re.Kernel.CheckNote) << "}"
        << ", \"host_repeat\": {\"ns_per_packet\": " << Re.HostRepeatNs
        << ", \"mpps\": " << 1e3 / Re.HostRepeatNs << "}";
    J << "}";
  }
  J << "]}\n";
  std::string Tmp = Path + ".tmp";
  std::ofstream Out(Tmp);
  Out << J.str();
  Out.close();
  if (!Out || std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    std::remove(Tmp.c_str());
    fail(Path + ": cannot write");
  }
}

} // namespace

int main(int argc, char **argv) {
  Options O;
  std::string ThreadList = "1,all", PrefetchList = "0";
  for (tools::ArgCursor C(argc, argv, usage, /*Skip=*/1); C.next();) {
    const std::string &A = C.arg();
    auto Val = [&] { return C.value(); };
    auto Num = [&](uint64_t Least) {
      std::string V = C.value();
      uint64_t N;
      if (!tools::parseNumber(V, Least, UINT64_MAX, N))
        fail(A + " needs a whole number of at least " + std::to_string(Least) + ", not '" + V +
                 "'",
             2);
      return N;
    };
    if (A == "--suite") O.Suite = Val();
    else if (A == "--pcap") O.Pcap = Val();
    else if (A == "--json") O.Json = Val();
    else if (A == "--packets") O.Packets = Num(1);
    else if (A == "--reps") O.Reps = Num(1);
    else if (A == "--warmup") O.Warmup = Num(0);
    else if (A == "--max-seconds") O.MaxSeconds = double(Num(0));
    else if (A == "--threads") ThreadList = Val();
    else if (A == "--prefetch") PrefetchList = Val();
    else if (A == "--burst") O.Burst = Num(1);
    else if (A == "--kernel") O.Kernel = true;
    else if (A == "--kernel-packets") O.KernelPackets = Num(1);
    else if (A == "--kernel-repeat") O.KernelRepeat = Num(1);
    else if (A == "-h" || A == "--help") {
      std::printf("usage: ebpf-gpu-host-bench --suite FILE --pcap IN.pcap [--threads LIST]\n"
                  "         [--reps N] [--warmup N] [--max-seconds S] [--packets N] [--burst N]\n"
                  "         [--kernel [--kernel-packets N] [--kernel-repeat N]] [--json OUT]\n"
                  "  --threads LIST   thread counts, comma-separated; 'all' = every CPU the\n"
                  "                   process may use (default 1,all)\n"
                  "  --max-seconds S  per program and thread count: no repetition starts\n"
                  "                   past S seconds of wall time once 3 are timed (default 10)\n"
                  "  --burst N        packets a burst through the C API (default 256)\n"
                  "  --prefetch LIST  distances, comma-separated: timed passes prefetch the\n"
                  "                   packet D ahead (the bursts' ebpf_gpu_run_opts.prefetch;\n"
                  "                   default 0: none)\n"
                  "  --kernel         also time the Linux kernel's JIT (BPF_PROG_TEST_RUN,\n"
                  "                   root) on N packets spread over the traffic, each run\n"
                  "                   `repeat` times (default 256 packets, repeat 32); then\n"
                  "                   the host back end on them the same way\n");
      return 0;
    } else fail("unknown argument " + A + " (see --help)", 2);
  }
  if (O.Suite.empty() || O.Pcap.empty())
    fail("need --suite and --pcap (see --help)", 2);
  if (O.Burst > 65536)
    fail("--burst: at most 65536 packets, not " + std::to_string(O.Burst), 2);
  if (O.KernelRepeat > 65536) // the host's runs of a packet are one burst
    fail("--kernel-repeat: at most 65536, not " + std::to_string(O.KernelRepeat), 2);
  Resident R;
  R.Burst = uint32_t(O.Burst);
  R.Cpus = allowedCpus();
  for (const std::string &T : split(ThreadList, ',')) {
    char *End = nullptr;
    unsigned long N = T == "all" ? R.Cpus.size() : std::strtoul(T.c_str(), &End, 10);
    if (T.empty() || (T != "all" && (*End || T[0] == '-')) || N == 0 || N > R.Cpus.size())
      fail("--threads: '" + T + "' is not 'all' or a count from 1 to " +
               std::to_string(R.Cpus.size()) + " (the CPUs this process may use)",
           2);
    if (std::find(O.Threads.begin(), O.Threads.end(), unsigned(N)) == O.Threads.end())
      O.Threads.push_back(unsigned(N));
  }
  if (O.Threads.empty())
    fail("--threads: no thread count given", 2);
  O.Prefetches.clear();
  for (const std::string &D : split(PrefetchList, ',')) {
    char *End = nullptr;
    unsigned long N = std::strtoul(D.c_str(), &End, 10);
    if (D.empty() || *End || D[0] == '-' || N > 1024)
      fail("--prefetch: '" + D + "' is not a distance from 0 to 1024", 2);
    O.Prefetches.push_back(unsigned(N));
  }
  if (O.Prefetches.empty())
    fail("--prefetch: no distance given", 2);
  std::vector<Entry> Entries = readSuite(O.Suite);
  for (const Entry &E : Entries)
    for (const std::string &F : {E.Object, E.MapFile})
      if (!F.empty() && !std::ifstream(F))
        fail(E.Name + ": " + F + ": cannot open file");

  R.Batch = check(runtime::readPcap(O.Pcap), O.Pcap);
  R.N = O.Packets ? std::min<size_t>(O.Packets, R.Batch.size()) : R.Batch.size();
  if (R.N == 0)
    fail(O.Pcap + ": no packets");
  R.Pristine.assign(R.Batch.frames(), R.Batch.frames() + R.N * R.Batch.stride());
  R.Out.resize(R.N);
  std::printf("cpu: %s, %zu CPUs usable; %zu packets (%zu-byte buffers) resident in host memory\n",
              cpuModel().c_str(), R.Cpus.size(), R.N, R.Batch.stride());
  if (O.Kernel)
    std::printf("kernel: %s\n", kernelSettings().c_str());
  std::fflush(stdout);
  std::vector<Result> Results;
  for (const Entry &E : Entries)
    Results.push_back(runEntry(R, E, O));
  if (!O.Json.empty())
    writeJson(O.Json, Results, O, R);
  return 0;
}

// SPDX-License-Identifier: Apache-2.0
//
// `ebpf-gpu-loader forward`: a program over live traffic. DPDK ports (NICs
// or vdevs) feed batches to the host or GPU back end; verdicts are acted
// on; a progress line on long runs and a summary (text or JSON, in the
// shape of `run`'s) at the end. Ctrl-C (SIGINT) or SIGTERM ends a run
// cleanly with its summary.

#include "Forward.h"

#include "ebpf-gpu/Exec/Executors.h"
#include "ebpf-gpu/Exec/MultiGpu.h"
#include "Options.h"

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Loader/Fib.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Runtime/DpdkForwarder.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <unistd.h>

namespace ebpfgpu::tools {

namespace {


std::atomic<bool> Interrupted{false};
extern "C" void onSignal(int) { Interrupted = true; }

int usage(const std::string &Msg) {
  if (!Msg.empty())
    std::fprintf(stderr, "%s: error: %s\n", Tool, Msg.c_str());
  std::fprintf(stderr,
               "usage: %s forward PROG.o|PROG.gpu.o --port DEV [--port DEV...] "
               "[options] [-- EAL-ARGS]\n"
               "  --port DEV          a port: a PCI address (0000:3b:00.0) or a DPDK "
               "vdev\n"
               "                      (net_pcap0,rx_pcap=IN.pcap,tx_pcap=OUT.pcap  "
               "net_af_packet0,iface=IF\n"
               "                      net_ring0  net_null0  net_tap0,iface=TAP); the "
               "n-th port is ifindex n\n"
               "                      for bpf_redirect; XDP_TX goes back out of the "
               "ingress port\n"
               "  --exception DEV     where XDP_PASS packets go (default: freed, "
               "counted as pass_dropped)\n"
               "  --xsk IN:QUEUE=OUT  an AF_XDP-style consumer bound to rx queue QUEUE of port\n"
               "                      IN, sending what it takes out of port OUT; the n-th --xsk\n"
               "                      is the consumer id n that xskmap entries hold (docs/MAPS.md)\n"
               "  --section NAME      program (function or section name) when the "
               "object has several\n"
               "  --backend gpu|host|null\n"
               "                      gpu: the GPU (default for a .gpu.o); host: this CPU (JIT);\n"
               "                      null: no program, every packet dropped (the ceiling of\n"
               "                      the ports and the data plane alone)\n"
               "  --queues N          rx queues per port, one worker lcore each "
               "(default 1)\n"
               "  --batch N           packets per batch (default 256)\n"
               "  --depth N           batches each queue keeps in flight in the back end "
               "(default 3)\n"
               "  --timeout-us T      run a partial batch once its first packet waited "
               "T us (default 100)\n"
               "  --count N           stop after N packets\n"
               "  --duration-ms MS    stop MS ms after the ports start\n"
               "  --idle-ms MS        stop when no packet arrived for MS ms (ends a run "
               "over pcap files)\n"
               "  --max-frame BYTES   longer frames are dropped and counted as "
               "oversized (default 2048)\n"
               "  --mbufs N           mbufs in the pool (default: sized from ports, "
               "queues and batch)\n"
               "  --stats-ms MS       progress line on stderr every MS ms (default 1000 "
               "on a terminal)\n"
               "  --gpu-mode launch|persistent\n"
               "                      gpu: a kernel launch per batch (default), or one "
               "persistent kernel\n"
               "  --gpu-data copy|mapped\n"
               "                      gpu: batches copied to GPU memory (default), or read "
               "in pinned host memory\n"
               "  --gpu-blocks N      gpu, persistent: blocks of the kernel (default: one per SM)\n"
               "  --gpus LIST         gpu: run on several GPUs, N (GPUs 0 to N-1) or ordinals\n"
               "                      (0,1; repeats are contexts of one GPU: 0,0); worker i runs\n"
               "                      on entry i mod the list's length; maps as docs/MAPS.md says\n"
               "  --gpu-stage auto|on|off\n"
               "                      gpu, mapped: small packets copied into GPU memory for the\n"
               "                      program, changed bytes written back; auto (default): for a\n"
               "                      program that may write packets, not one proven read-only\n"
               "                      (persistent mode: every program)\n"
               "  --reclaim-period N  gpu, hash maps: packets between two reclaims of deleted\n"
               "                      elements on the device (default: a quarter of the spares)\n"
               "  --watchdog-ms MS    gpu: a batch not done by then fails, either mode (default "
               "1000)\n"
               "  --zero-copy         run the program on packets in their mbufs (no copies; the\n"
               "                      GPU's mapped path reads them in place); 128 bytes of headroom\n"
               "  --gen-pcap FILE     the packets the generator port ('--port gen', a core of\n"
               "                      this process filling its rx ring) sends, over and over\n"
               "  --gen-frame BYTES   the generator's frames: its packets cut or padded to BYTES\n"
               "                      (default 64)\n"
               "  --gen-lcores N      lcores filling the generator's rx rings (default 1)\n"
               "  --gen-replay        the generator sends its frames again as they are instead\n"
               "                      of writing each (only for a program proven to read packets\n"
               "                      only; the templates' mix in proportion, not in order)\n"
               "  --map-file FILE     map entries set before the run: lines MAP:KEYHEX:VALUEHEX\n"
               "                      (or MAP:KEYHEX:@INNER), '#' comments, as for run\n"
               "  --inner-map OUTER=MAP, --map-size MAP=ENTRIES, --map-key-size MAP=BYTES,\n"
               "  --map-value-size MAP=BYTES\n"
               "                      an eBPF object's map shapes set before load, as for run\n"
               "  --fib FILE          the forwarding table bpf_fib_lookup reads (docs/MAPS.md);\n"
               "                      port i (from 0, --port order) is ifindex i + 1\n"
               "  --check-maps        after the run, check the structure of every hashed map\n"
               "                      (links, counts, free lists); a broken one fails the run\n"
               "  --dump-maps         print the program's maps after the run (per-CPU maps: the\n"
               "                      sum of every CPU's slice), as run does\n"
               "  --json              print the summary as JSON\n"
               "  --allow-unverified  run a .gpu.o compiled with --no-verify (testing "
               "only)\n"
               "  -- EAL-ARGS         passed to DPDK's EAL after the loader's own (e.g. "
               "--log-level=info)\n",
               Tool);
  return 2;
}

std::string jsonString(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (static_cast<unsigned char>(C) < 0x20) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\u%04x", C);
      Out += Buf;
      continue;
    }
    Out += C;
  }
  return Out + "\"";
}

std::string actionsJson(const runtime::ActionStats &A) {
  std::string Out = "{";
  for (unsigned I = 0; I < runtime::NumXdpActions; ++I)
    Out += std::string(I ? ", " : "") + "\"" + runtime::xdpActionName(I) +
           "\": {\"packets\": " + std::to_string(A.Packets[I]) +
           ", \"bytes\": " + std::to_string(A.Bytes[I]) + "}";
  return Out + "}";
}

/// The device name of a port string (what comes before its arguments).
std::string deviceName(const std::string &Spec) { return Spec.substr(0, Spec.find(',')); }

/// Percentiles of the GPU back end's synchronous runs (GpuExecutor::run: a
/// batch staged, run and its verdicts back), -1 when none ran that way.
struct RoundTrip {
  double P50 = -1, P99 = -1;
  int64_t Reclaims = -1; ///< the device's reclaims between batches, -1: none
};

void printJson(const runtime::ForwardReport &R, const std::string &Prog, const char *Backend,
               double P50Us, double P99Us, const RoundTrip &Gpu, const std::string *Maps,
               const std::vector<int> &Gpus) {
  std::printf("{\"program\": %s, \"backend\": \"%s\", \"packets\": %llu, "
              "\"actions\": %s, "
              "\"invalid_verdicts\": %llu, \"seconds\": %.6f, "
              "\"busy_seconds\": %.6f, \"workers\": %u, "
              "\"ports\": [",
              jsonString(Prog).c_str(), Backend, (unsigned long long)R.RxPackets,
              actionsJson(R.Actions).c_str(), (unsigned long long)R.Actions.Invalid, R.Seconds,
              R.BusySeconds, R.Workers);
  for (size_t I = 0; I < R.Ports.size(); ++I) {
    const runtime::PortReport &P = R.Ports[I];
    std::printf("%s{\"device\": %s, \"ifindex\": %zu, \"exception\": %s, "
                "\"rx_packets\": %llu, "
                "\"rx_bytes\": %llu, \"actions\": %s, \"tx_packets\": %llu, "
                "\"tx_bytes\": %llu, "
                "\"tx_full\": %llu, \"rx_nombuf\": %llu, \"rx_missed\": %llu, "
                "\"rx_errors\": %llu, \"tx_errors\": %llu}",
                I ? ", " : "", jsonString(P.Device).c_str(), P.Exception ? 0 : I + 1,
                P.Exception ? "true" : "false", (unsigned long long)P.RxPackets,
                (unsigned long long)P.RxBytes, actionsJson(P.Actions).c_str(),
                (unsigned long long)P.TxPackets, (unsigned long long)P.TxBytes,
                (unsigned long long)P.TxFull, (unsigned long long)P.RxNoMbuf,
                (unsigned long long)P.RxMissed, (unsigned long long)P.RxErrors,
                (unsigned long long)P.TxErrors);
  }
  std::printf("], \"errors\": {\"oversized\": %llu, \"redirect_unknown\": %llu, "
              "\"pass_dropped\": %llu, \"exec_failed\": %llu, \"broadcast_failed\": %llu}, "
              "\"broadcast_copies\": %llu, \"redirect_cpu\": %llu, \"redirect_xsk\": %llu, "
              "\"xsk_refused\": %llu",
              (unsigned long long)R.Oversized, (unsigned long long)R.RedirectUnknown,
              (unsigned long long)R.PassDropped, (unsigned long long)R.ExecFailed,
              (unsigned long long)R.BroadcastFailed, (unsigned long long)R.BroadcastCopies,
              (unsigned long long)R.RedirectCpu, (unsigned long long)R.RedirectXsk,
              (unsigned long long)R.XskRefused);
  if (R.Generated)
    std::printf(", \"generated\": %llu, \"gen_no_mbuf\": %llu, \"gen_written\": %llu, "
                "\"gen_replay\": %s",
                (unsigned long long)R.Generated, (unsigned long long)R.GenNoMbuf,
                (unsigned long long)R.GenWritten, R.GenReplay ? "true" : "false");
  if (P50Us >= 0)
    std::printf(", \"batches\": %llu, \"batch_latency_us\": {\"p50\": %.2f, \"p99\": %.2f}",
                (unsigned long long)R.Batches, P50Us, P99Us);
  if (Gpu.P50 >= 0)
    std::printf(", \"gpu_round_trip_us\": {\"p50\": %.2f, \"p99\": %.2f}", Gpu.P50, Gpu.P99);
  if (Gpu.Reclaims >= 0)
    std::printf(", \"gpu_reclaims\": %lld", (long long)Gpu.Reclaims);
  if (!Gpus.empty())
    std::printf(", \"gpus\": [%s]", exec::gpuListText(Gpus).c_str());
  std::printf(", \"worker_ns\": {\"submit\": %llu, \"wait\": %llu, \"act\": %llu}",
              (unsigned long long)R.SubmitNs, (unsigned long long)R.WaitNs,
              (unsigned long long)R.ActNs);
  if (Maps)
    std::printf(", \"maps\": %s", jsonString(*Maps).c_str());
  std::printf("}\n");
}

void printText(const runtime::ForwardReport &R, const std::string &Prog, const std::string &Object,
               const char *Backend) {
  double Mpps = R.BusySeconds > 0 ? double(R.RxPackets) / R.BusySeconds / 1e6 : 0;
  size_t Ports = R.Ports.size() - (R.Ports.empty() || !R.Ports.back().Exception ? 0 : 1);
  std::printf("%s: %s (%s) on the %s back end, %llu packets from %zu port(s), "
              "%u worker(s)\n",
              Tool, Prog.c_str(), Object.c_str(), Backend, (unsigned long long)R.RxPackets, Ports,
              R.Workers);
  std::printf("  %-14s %10s %12s\n", "action", "packets", "bytes");
  for (unsigned A = 0; A < runtime::NumXdpActions; ++A)
    std::printf("  %-14s %10llu %12llu\n", runtime::xdpActionName(A),
                (unsigned long long)R.Actions.Packets[A], (unsigned long long)R.Actions.Bytes[A]);
  if (R.Actions.Invalid)
    std::printf("  (%llu verdicts outside 0..4 counted as XDP_ABORTED)\n",
                (unsigned long long)R.Actions.Invalid);
  std::printf("  %-20s %10s %10s %8s %9s %7s %7s %7s\n", "port", "rx", "tx", "tx-full", "rx-nombuf",
              "missed", "rx-err", "tx-err");
  for (size_t I = 0; I < R.Ports.size(); ++I) {
    const runtime::PortReport &P = R.Ports[I];
    std::string Name = (P.Exception ? "exc " : std::to_string(I + 1) + " ") + deviceName(P.Device);
    std::printf("  %-20s %10llu %10llu %8llu %9llu %7llu %7llu %7llu\n", Name.c_str(),
                (unsigned long long)P.RxPackets, (unsigned long long)P.TxPackets,
                (unsigned long long)P.TxFull, (unsigned long long)P.RxNoMbuf,
                (unsigned long long)P.RxMissed, (unsigned long long)P.RxErrors,
                (unsigned long long)P.TxErrors);
  }
  std::printf("  dropped: oversized %llu, redirect to no port %llu, pass without "
              "exception port "
              "%llu, back-end failure %llu\n",
              (unsigned long long)R.Oversized, (unsigned long long)R.RedirectUnknown,
              (unsigned long long)R.PassDropped, (unsigned long long)R.ExecFailed);
  if (R.BroadcastCopies || R.BroadcastFailed)
    std::printf("  broadcasts: %llu copies sent, %llu copies to no port or without an mbuf\n",
                (unsigned long long)R.BroadcastCopies, (unsigned long long)R.BroadcastFailed);
  if (R.RedirectCpu)
    std::printf("  redirected into a cpumap (to the exception port, as XDP_PASS): %llu\n",
                (unsigned long long)R.RedirectCpu);
  if (R.RedirectXsk || R.XskRefused)
    std::printf("  redirected into an xskmap: %llu to their consumers' ports, %llu dropped (no "
                "consumer bound to the packet's port and queue)\n",
                (unsigned long long)R.RedirectXsk, (unsigned long long)R.XskRefused);
  std::printf("  %.3f s; %.6f s from the first packet to the last batch: %.3f Mpps\n", R.Seconds,
              R.BusySeconds, Mpps);
}

void printProgress(const runtime::ForwardReport &R) {
  uint64_t Tx = 0;
  for (const runtime::PortReport &P : R.Ports)
    Tx += P.TxPackets;
  std::fprintf(stderr,
               "%s: %.1f s: rx %llu (%.3f Mpps), tx %llu, drop %llu, pass %llu, aborted "
               "%llu\n",
               Tool, R.Seconds, (unsigned long long)R.RxPackets,
               R.Seconds > 0 ? double(R.RxPackets) / R.Seconds / 1e6 : 0.0, (unsigned long long)Tx,
               (unsigned long long)R.Actions.Packets[unsigned(runtime::XdpAction::Drop)],
               (unsigned long long)R.Actions.Packets[unsigned(runtime::XdpAction::Pass)],
               (unsigned long long)R.Actions.Packets[unsigned(runtime::XdpAction::Aborted)]);
}

/// `forward`'s command line.
struct ForwardArgs {
  runtime::ForwardOptions O;
  std::string Object, Section, FibFile, GenPcap;
  std::optional<exec::Backend> Backend; ///< none: gpu for a .gpu.o, else host
  std::vector<loader::MapEntry> MapEntries;
  bool DumpMaps = false, CheckMaps = false, Json = false, AllowUnverified = false;
  int64_t StatsMs = -1;
  exec::GpuExecOptions GpuOpts;
  std::vector<int> Gpus; ///< --gpus; empty: GPU 0 alone
  MapShapeArgs Shapes;   ///< --inner-map, --map-size, --map-key-size, --map-value-size
};

/// `forward`'s arguments into `F`: an exit status to return (a usage
/// error, or --help), else nothing.
std::optional<int> parseForwardArgs(int argc, char **argv, ForwardArgs &F) {
  for (ArgCursor C(argc, argv, usage); C.next();) {
    const std::string &A = C.arg();
    if (A == "--") {
      F.O.EalArgs = C.rest();
      break;
    }
    if (auto Bad = parseGpuFlag(A, [&] { return C.value(); }, F.GpuOpts, /*Lanes=*/true)) {
      if (!Bad->empty())
        return usage(*Bad);
    } else if (auto Bad = parseMapShapeFlag(A, [&] { return C.value(); }, F.Shapes)) {
      if (!Bad->empty())
        return usage(*Bad);
    } else if (A == "--port")
      F.O.Ports.push_back(C.value());
    else if (A == "--exception")
      F.O.Exception = C.value();
    else if (A == "--xsk") {
      // IN:QUEUE=OUT, all decimal; the ranges are checked with the ports.
      const std::string V = C.value();
      unsigned In = 0, Queue = 0, Out = 0;
      int End = -1;
      if (std::sscanf(V.c_str(), "%u:%u=%u%n", &In, &Queue, &Out, &End) != 3 ||
          End != int(V.size()) || V.find_first_not_of("0123456789:=") != std::string::npos)
        return usage("--xsk takes IN:QUEUE=OUT (ports by ifindex, e.g. 1:0=2), not '" + V + "'");
      F.O.Xsks.push_back({In, Queue, Out});
    }
    else if (A == "--section")
      F.Section = C.value();
    else if (A == "--gpus") {
      auto G = exec::parseGpuList(C.value());
      if (!G)
        return usage("--gpus: " + G.error().message());
      F.Gpus = std::move(*G);
    }
    else if (A == "--backend") {
      F.Backend = exec::parseBackend(C.value());
      if (!F.Backend || F.Backend == exec::Backend::Kernel)
        return usage("--backend must be gpu, host or null");
    }
    else if (A == "--queues")
      F.O.Queues = uint32_t(C.number(1, runtime::MaxForwardQueues));
    else if (A == "--batch")
      F.O.BatchSize = uint32_t(C.number(1, runtime::MaxForwardBatch));
    else if (A == "--depth")
      F.O.Depth = uint32_t(C.number(1, runtime::MaxForwardDepth));
    else if (A == "--gen-lcores")
      F.O.GenLcores = uint32_t(C.number(1, runtime::MaxForwardQueues));
    else if (A == "--timeout-us")
      F.O.TimeoutUs = uint32_t(C.number(0, 10000000));
    else if (A == "--count")
      F.O.Count = C.number(1, UINT64_MAX);
    else if (A == "--duration-ms")
      F.O.DurationMs = uint32_t(C.number(1, 86400000));
    else if (A == "--idle-ms")
      F.O.IdleMs = uint32_t(C.number(1, 86400000));
    else if (A == "--max-frame")
      F.O.MaxFrame = uint32_t(C.number(runtime::MinForwardFrame, runtime::MaxForwardFrame));
    else if (A == "--mbufs")
      F.O.Mbufs = uint32_t(C.number(1023, 1u << 30));
    else if (A == "--stats-ms")
      F.StatsMs = int64_t(C.number(0, 86400000));
    else if (A == "--zero-copy")
      F.O.ZeroCopy = true;
    else if (A == "--gen-pcap")
      F.GenPcap = C.value();
    else if (A == "--gen-replay")
      F.O.GenReplay = true;
    else if (A == "--gen-frame")
      F.O.GenFrame = uint32_t(C.number(runtime::MinForwardFrame, runtime::MaxForwardFrame));
    else if (A == "--map-file") {
      auto Entries = loader::readMapFile(C.value());
      if (!Entries)
        fail(Entries.error().message());
      F.MapEntries.insert(F.MapEntries.end(), Entries->begin(), Entries->end());
    } else if (A == "--fib")
      F.FibFile = C.value();
    else if (A == "--dump-maps")
      F.DumpMaps = true;
    else if (A == "--check-maps")
      F.CheckMaps = true;
    else if (A == "--json")
      F.Json = true;
    else if (A == "--allow-unverified")
      F.AllowUnverified = true;
    else if (A == "-h" || A == "--help") {
      usage("");
      return 0;
    } else
      C.program(F.Object);
  }
  return std::nullopt;
}

/// The back end `F` names, its program loaded (and verified), the map
/// entries and forwarding table given set in it; fails on any error.
exec::LoadedProgram makeForwardExecutor(ForwardArgs &F) {
  exec::LoadRequest L;
  L.Path = F.Object;
  L.Section = F.Section;
  L.Kind = F.Backend;
  L.AllowUnverified = F.AllowUnverified;
  L.Gpus = F.Gpus;
  F.Shapes.into(L);
  // A slice of each per-CPU map per worker: workers run the program at
  // once and never update one value together.
  L.Host.Reclaim = exec::HostReclaim::EachBatch;
  L.Host.Cpus = uint32_t(F.O.Ports.size() * F.O.Queues);
  exec::GpuExecOptions &GO = L.Gpu;
  GO = F.GpuOpts;
  GO.LaunchSize = F.O.BatchSize;
  GO.MaxFrame = F.O.MaxFrame;
  GO.TimeKernel = false; // the batch path's latency, not the kernel's share
  GO.AsyncLanes = true;  // each worker its own runners, batches in flight
  // Every worker keeps --depth batches in flight, each on a stream of its
  // own: the driver maps streams onto 8 hardware queues by default, where
  // one stream's wait for its kernel holds back the others' launches.
  // Before the driver starts; a value the user set wins.
  if (F.Backend != exec::Backend::Host && F.Backend != exec::Backend::Null)
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
  auto Loaded = exec::load(L);
  if (!Loaded)
    fail(Loaded.error().message());
  std::unique_ptr<runtime::BatchExecutor> &Exec = Loaded->Exec;
  for (const loader::MapEntry &E : F.MapEntries)
    if (MaybeError Err = applyMapEntry(*Exec, E))
      fail("--map-file: " + Err->message());
  // The ports are the links bpf_fib_lookup sees: port i is ifindex i + 1.
  if (!F.FibFile.empty()) {
    auto Fib = loader::readFibFile(F.FibFile);
    if (!Fib)
      fail(Fib.error().message());
    if (MaybeError E = Exec->setFib(*Fib))
      fail("--fib: " + E->message());
  }
  return std::move(*Loaded);
}

} // namespace

int forwardCommand(int argc, char **argv) {
  ForwardArgs F;
  if (std::optional<int> Exit = parseForwardArgs(argc, argv, F))
    return *Exit;
  runtime::ForwardOptions &O = F.O;
  if (F.Object.empty())
    return usage("no program given");
  if (O.Ports.empty())
    return usage("no port given (--port)");
  if (abi::isGpuObjectFile(F.Object) && !F.Shapes.empty())
    return usage(MapShapesOfGpuObject);
  if (!F.Gpus.empty() && F.Backend && *F.Backend != exec::Backend::Gpu)
    return usage(std::string("--gpus is for the gpu back end, not --backend ") +
                 exec::backendName(*F.Backend));
  O.ProgressMs = uint32_t(F.StatsMs >= 0 ? F.StatsMs : (isatty(STDERR_FILENO) ? 1000 : 0));

  exec::LoadedProgram Loaded = makeForwardExecutor(F);
  std::unique_ptr<runtime::BatchExecutor> &Exec = Loaded.Exec;

  std::optional<runtime::PacketBatch> GenPackets;
  if (!F.GenPcap.empty()) {
    auto B = runtime::readPcap(F.GenPcap);
    if (!B)
      fail(B.error().message());
    GenPackets = std::move(*B);
    O.GenPackets = &*GenPackets;
  }
  struct sigaction Sa = {};
  Sa.sa_handler = onSignal;
  sigaction(SIGINT, &Sa, nullptr);
  sigaction(SIGTERM, &Sa, nullptr);
  O.Stop = &Interrupted;
  runtime::ForwardHooks Hooks;
  Hooks.Started = [&](const runtime::ForwardReport &R) {
    std::fprintf(stderr, "%s: forwarding: %s on the %s back end, %zu port(s), %u worker(s)\n", Tool,
                 Exec->programName().c_str(), Exec->backendName(), O.Ports.size(), R.Workers);
  };
  Hooks.Progress = printProgress;
  Expected<runtime::ForwardReport> R = runtime::forward(*Exec, O, Hooks);
  if (!R)
    fail(R.error().message());
  // Batch latency as the data plane sees it: a batch's first packet
  // received to its last one sent or freed.
  double P50 = -1, P99 = -1;
  if (R->Batches) {
    P50 = double(runtime::LatencyHistogram::quantile(R->Latency, 0.50)) / 1000.0;
    P99 = double(runtime::LatencyHistogram::quantile(R->Latency, 0.99)) / 1000.0;
  }
  if (F.CheckMaps)
    if (MaybeError E = Exec->checkMaps())
      fail(std::string(Exec->backendName()) + " back end: " + E->message());
  RoundTrip Gpu;
#ifdef EBPF_GPU_HAVE_CUDA
  if (Loaded.Kind == exec::Backend::Gpu) {
    Gpu.P50 = exec::gpuLatencyUs(*Exec, 50);
    Gpu.P99 = exec::gpuLatencyUs(*Exec, 99);
    Gpu.Reclaims = exec::gpuReclaims(*Exec);
  }
#endif
  std::string Maps;
  if (F.DumpMaps) {
    auto M = Exec->dumpMaps();
    if (!M)
      fail("--dump-maps: " + M.error().message());
    Maps = std::move(*M);
  }
  if (F.Json) {
    printJson(*R, Exec->programName(), Exec->backendName(), P50, P99, Gpu,
              F.DumpMaps ? &Maps : nullptr, F.Gpus);
  } else {
    printText(*R, Exec->programName(), F.Object, Exec->backendName());
    if (R->Generated)
      std::printf("  generator: %llu frames made (%llu written, %s), %llu bursts without a free "
                  "mbuf\n",
                  (unsigned long long)R->Generated, (unsigned long long)R->GenWritten,
                  R->GenReplay ? "the others replayed" : "no replay",
                  (unsigned long long)R->GenNoMbuf);
    if (P50 >= 0)
      std::printf("  %llu batches; batch latency (first packet in to last out): p50 %.1f us, "
                  "p99 %.1f us\n",
                  (unsigned long long)R->Batches, P50, P99);
    if (Gpu.P50 >= 0)
      std::printf("  GPU round trip (a batch staged to its verdicts back): p50 %.1f us, p99 %.1f "
                  "us%s\n",
                  Gpu.P50, Gpu.P99, F.Gpus.size() > 1 ? " (the slowest GPU's)" : "");
    if (F.Gpus.size() > 1)
      std::printf("  GPUs %s: worker i on entry i mod %zu, each a context of its own\n",
                  exec::gpuListText(F.Gpus).c_str(), F.Gpus.size());
    else if (!F.Gpus.empty())
      std::printf("  GPU %d\n", F.Gpus[0]);
  }
  if (F.DumpMaps && !F.Json)
    std::printf("%s", Maps.c_str());
  return 0;
}

} // namespace ebpfgpu::tools

// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-loader: runs XDP programs over packets and reports what they
// decided. `run` is the one-shot mode: a program over the packets of a pcap
// file, on one of the back ends this build has:
//   gpu     a .gpu.o (or, in builds with the compiler, an eBPF object
//           compiled on the spot) on the GPU through the CUDA driver
//   host    an eBPF object JIT-compiled for this CPU (needs the compiler)
//   kernel  the Linux kernel's own verifier and BPF_PROG_TEST_RUN (needs
//           root); the reference the other back ends are compared against
// `forward` runs it over DPDK ports (Forward.cpp; builds with DPDK).
// `test-run` runs a raw-platform .gpu.o once on the GPU (conformance).
// Exit codes: 0 success, 1 the program or the packets were refused, 2 bad
// command line.

#include "Daemon.h"
#include "ebpf-gpu/Exec/Executors.h"
#include "Forward.h"
#include "Options.h"
#include "Run.h"
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include "Compare.h"
#endif

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Loader/Fib.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/OutputPath.h"

#ifdef EBPF_GPU_HAVE_CUDA
#include "ebpf-gpu/Loader/GpuLoader.h"
#endif
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include <bpf/libbpf.h>
#endif

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <unistd.h>

using namespace ebpfgpu;
using runtime::PacketBatch;

namespace {

using tools::fail;
using tools::Tool;

int usage(const std::string &Msg) {
  if (!Msg.empty())
    std::fprintf(stderr, "%s: error: %s\n", Tool, Msg.c_str());
  std::fprintf(stderr,
               "usage: %s run PROG.o|PROG.gpu.o --pcap IN.pcap [options]\n"
               "       %s forward PROG.o|PROG.gpu.o --port DEV... [options] [-- EAL-ARGS]"
               " (forward --help)\n"
               "       %s test-run PROG.gpu.o [--mem HEX]\n"
               "       %s compare PROG.o --pcap IN.pcap [--section NAME]... (ebpf-gpu and the\n"
               "           kernel on every program: compare --help)\n"
               "       %s daemon [--socket PATH] [options] (daemon --help)\n"
               "       %s [--socket PATH] [--json|--pretty] prog|net|map|stats ... (a running daemon;"
               " prog --help)\n"
               "  --section NAME      program (function or section name) when the object has several\n"
               "  --backend gpu|host|kernel\n"
               "                      gpu: the GPU (default for a .gpu.o)\n"
               "                      host: this CPU through the JIT (default for an eBPF object)\n"
               "                      kernel: the Linux kernel's BPF_PROG_TEST_RUN (root)\n"
               "  --out OUT.pcap      write the packets the program passed, sent or redirected\n"
               "  --verdicts FILE     write one line per packet: index, verdict, length\n"
               "  --dump-maps FILE    write the maps and global data after the run\n"
               "  --batch N           gpu: N packets per batch (default: all in one batch);\n"
               "                      kernel: event maps read every N packets\n"
               "  --gpu-mode launch|persistent\n"
               "                      gpu: a kernel launch per batch (default), or one persistent\n"
               "                      kernel fed through a doorbell ring in pinned memory\n"
               "  --gpu-data copy|mapped\n"
               "                      gpu: batches copied to GPU memory and back (default), or read\n"
               "                      and written by the GPU in pinned host memory\n"
               "  --gpu-blocks N      gpu, persistent: blocks of the kernel (default: one per SM)\n"
               "  --gpu-stage auto|on|off\n"
               "                      gpu, mapped: small packets copied into GPU memory for the\n"
               "                      program, changed bytes written back; auto (default): for a\n"
               "                      program that may write packets, not one proven read-only\n"
               "                      (persistent mode: every program)\n"
               "  --watchdog-ms MS    gpu: a batch not done by then fails (default 1000)\n"
               "  --map-set MAP:KEY:VALUE\n"
               "                      before the run, set KEY to VALUE in MAP (hex bytes as the\n"
               "                      map stores them, e.g. routes:18000000c0a80100:02000000);\n"
               "                      maps of maps: MAP:KEY:@INNER, the map the slot holds;\n"
               "                      pattern maps: MAP:@RULES, a pattern file compiled into\n"
               "                      the map; model maps: MAP:@MODEL, a model file (its first\n"
               "                      line 'ebpf-gpu-model 1') (docs/KFUNCS.md; in a --map-file,\n"
               "                      relative to the file's folder); repeatable\n"
               "  --map-file FILE     --map-set for each line MAP:KEY:VALUE of FILE ('#' comments)\n"

               "  --inner-map OUTER=MAP\n"
               "                      eBPF objects: the map of maps OUTER, defined without\n"
               "                      __array(values, ...), holds maps shaped as MAP (what user\n"
               "                      space gives libbpf as the inner map); its slots start empty\n"
               "  --map-key-size MAP=BYTES, --map-value-size MAP=BYTES\n"
               "                      eBPF objects: the key or value size of MAP, as user\n"
               "                      space sets it before load (a global data section such\n"
               "                      as .bss resized, its last array with it); repeatable\n"
               "  --map-size MAP=ENTRIES\n"
               "                      eBPF objects: max_entries of MAP, as user space sets it\n"
               "                      before load (maps the object leaves at 0)\n"
               "  --fib FILE          host, gpu: the forwarding table bpf_fib_lookup reads (links,\n"
               "                      routes, neighbours; docs/MAPS.md); the kernel back end reads\n"
               "                      its network namespace's (run it under ip netns exec)\n"
               "  --ingress-ifindex N what programs read as ctx->ingress_ifindex (default: 0 on\n"
               "                      host and gpu; the kernel's loopback device, 1, on kernel)\n"
               "  --check-maps        host, gpu: after the run, check the structure of every\n"
               "                      hash map (links, buckets, counts, free lists)\n"
               "  --trace FILE        host, gpu: write bpf_trace_printk lines to FILE (default:\n"
               "                      standard error)\n"
               "  --events FILE       write the records of ring buffers and perf event arrays,\n"
               "                      one line 'MAP HEXBYTES' each: map by map, then run by\n"
               "                      run (the maps are taken after each gpu launch, --batch,\n"
               "                      and every --batch packets on the kernel), by packet\n"
               "  --json              print the summary as JSON\n"
               "  --allow-unverified  run a .gpu.o compiled with --no-verify (testing only)\n",
               Tool, Tool, Tool, Tool, Tool, Tool);
  return 2;
}

using loader::MapEntry;
using loader::parseHexBytes;
using loader::parseMapEntry;

using tools::RunOptions;
using tools::RunResult;

/// Nothing unverified runs unless the operator says so (back-end tests).
void requireVerified(const abi::GpuObjectSpec &Spec, const std::string &Path, bool Allow) {
  if (!Spec.Verified && !Allow)
    fail(Path + ": compiled without the safety verifier (--no-verify); refusing to run it "
                "(--allow-unverified overrides, for testing)");
}

/// The kernel back end over the whole pcap: map entries set first, map
/// structure checked and warnings printed after.
void runExecutor(runtime::BatchExecutor &Exec, const RunOptions &O, PacketBatch &Batch,
                 std::string &MapsText, std::string &EventsText) {
  std::string Where = std::string(Exec.backendName()) + " back end: ";
  for (const MapEntry &E : O.MapEntries)
    if (MaybeError Err = tools::applyMapEntry(Exec, E))
      fail("--map-set: " + Err->message());
  if (MaybeError E = Exec.run(Batch))
    fail(Where + E->message());
  if (O.CheckMaps)
    if (MaybeError E = Exec.checkMaps())
      fail(Where + E->message());
  auto Trace = Exec.takeTrace();
  if (!Trace)
    fail(Where + Trace.error().message());
  if (!O.TraceFile.empty()) {
    std::vector<uint8_t> Bytes(Trace->begin(), Trace->end());
    if (MaybeError E = abi::writeFileAtomically(O.TraceFile, Bytes))
      fail(E->message());
  } else if (!Trace->empty()) {
    std::fputs(Trace->c_str(), stderr);
  }
  auto Events = Exec.takeEvents();
  if (!Events)
    fail(Where + Events.error().message());
  EventsText = std::move(*Events);
  auto Warnings = Exec.warnings();
  if (!Warnings)
    fail(Where + Warnings.error().message());
  for (const std::string &W : *Warnings)
    std::fprintf(stderr, "%s: warning: %s\n", Tool, W.c_str());
  auto Dump = Exec.dumpMaps();
  if (!Dump)
    fail(Where + Dump.error().message());
  MapsText = *Dump;
}

#ifdef EBPF_GPU_HAVE_CUDA
int testRunCommand(int argc, char **argv) {
  std::string Path, MemHex;
  bool AllowUnverified = false;
  for (int I = 2; I < argc; ++I) {
    std::string A = argv[I];
    if (A == "--mem" && I + 1 < argc)
      MemHex = argv[++I];
    else if (A == "--allow-unverified")
      AllowUnverified = true;
    else if (A.rfind("-", 0) == 0)
      return usage("unknown option " + A);
    else
      Path = A;
  }
  if (Path.empty())
    return usage("no program given");
  auto Bytes = parseHexBytes(MemHex);
  if (!Bytes)
    return usage("--mem needs hex bytes (an even number of hex digits)");
  std::vector<uint8_t> Mem = std::move(*Bytes);
  auto Spec = abi::readGpuObjectFile(Path);
  if (!Spec)
    fail(Spec.error().message());
  requireVerified(*Spec, Path, AllowUnverified);
  auto Dev = loader::GpuDevice::open(0);
  if (!Dev)
    fail("gpu back end: " + Dev.error().message());
  auto Prog = loader::GpuProgram::load(**Dev, *Spec);
  if (!Prog)
    fail(Path + ": " + Prog.error().message());
  auto R0 = (*Prog)->runRaw(Mem);
  if (!R0)
    fail(Path + ": " + R0.error().message());
  std::printf("%llx\n", static_cast<unsigned long long>(*R0));
  return 0;
}
#endif // EBPF_GPU_HAVE_CUDA

/// `run`'s arguments into `O`: an exit status for a usage error, else
/// nothing.
std::optional<int> parseRunArgs(int argc, char **argv, RunOptions &O) {
  for (tools::ArgCursor C(argc, argv, usage); C.next();) {
    const std::string &A = C.arg();
    auto Value = [&](std::string &V) { V = C.value(); };
    if (auto Bad = tools::parseGpuFlag(A, [&] { return C.value(); }, O.Gpu, /*Lanes=*/false)) {
      if (!Bad->empty())
        return usage(*Bad);
    } else if (auto Bad = tools::parseMapShapeFlag(A, [&] { return C.value(); }, O.Shapes)) {
      if (!Bad->empty())
        return usage(*Bad);
    } else if (A == "--pcap")
      Value(O.Pcap);
    else if (A == "--section")
      Value(O.Section);
    else if (A == "--backend") {
      std::string V;
      Value(V);
      O.Backend = exec::parseBackend(V);
      if (!O.Backend || O.Backend == exec::Backend::Null)
        return usage("--backend must be gpu, host or kernel");
    }
    else if (A == "--out")
      Value(O.Out);
    else if (A == "--verdicts")
      Value(O.Verdicts);
    else if (A == "--dump-maps")
      Value(O.MapsFile);
    else if (A == "--json")
      O.Json = true;
    else if (A == "--allow-unverified")
      O.AllowUnverified = true;
    else if (A == "--check-maps")
      O.CheckMaps = true;
    else if (A == "--trace")
      Value(O.TraceFile);
    else if (A == "--fib")
      Value(O.FibFile);
    else if (A == "--ingress-ifindex") {
      std::string V;
      Value(V);
      char *End = nullptr;
      unsigned long long N = std::strtoull(V.c_str(), &End, 10);
      if (V.empty() || *End || !std::isdigit(static_cast<unsigned char>(V[0])) || N > INT32_MAX)
        return usage("--ingress-ifindex needs an interface index (0 to 2147483647)");
      O.IngressIfindex = uint32_t(N);
    }
    else if (A == "--events")
      Value(O.EventsFile);
    else if (A == "--map-set") {
      std::string V;
      Value(V);
      auto E = parseMapEntry(V);
      if (!E)
        return usage("--map-set needs MAP:KEYHEX:VALUEHEX, MAP:KEYHEX:@INNER or MAP:@FILE (a "
                     "pattern map's rules), not '" + V + "'");
      if (MaybeError Err = loader::compilePatternEntry(*E))
        fail("--map-set: " + Err->message());
      O.MapEntries.push_back(std::move(*E));
    } else if (A == "--map-file") {
      std::string Path;
      Value(Path);
      auto Entries = loader::readMapFile(Path);
      if (!Entries)
        fail(Entries.error().message());
      O.MapEntries.insert(O.MapEntries.end(), Entries->begin(), Entries->end());
    } else if (A == "--batch") {
      std::string V;
      Value(V);
      char *End = nullptr;
      unsigned long long B = std::strtoull(V.c_str(), &End, 10);
      if (V.empty() || *End || B == 0 || B > (1ull << 26))
        return usage("--batch needs a number of packets from 1 to 67108864");
      O.BatchSize = size_t(B);
    } else
      C.program(O.Object);
  }
  return std::nullopt;
}

/// Loads `O.Object` on the back end `O` asks for and runs `Batch` through
/// it; fails on any error. The host and GPU back ends are the C API's
/// (RunApi.cpp); the kernel, which the library does not offer, is
/// exec::load's.
RunResult runOnBackend(const RunOptions &O, PacketBatch &Batch) {
  if (O.Backend != exec::Backend::Kernel)
    return tools::runOnApi(O, Batch);
  exec::LoadRequest L;
  L.Path = O.Object;
  L.Section = O.Section;
  L.Kind = O.Backend;
  O.Shapes.into(L);
  L.Kernel.Ingress = O.IngressIfindex;
  L.Kernel.EventBatch = O.BatchSize;
  auto Loaded = exec::load(L);
  if (!Loaded)
    fail(Loaded.error().message());
  runtime::BatchExecutor &Exec = *Loaded->Exec;
  RunResult R;
  R.ProgName = Exec.programName();
  R.Backend = exec::backendName(Loaded->Kind);
  runExecutor(Exec, O, Batch, R.MapsText, R.EventsText);
  return R;
}

/// The files `run` was asked for: the packets passed on (--out), the
/// events, the maps, the verdicts; each written whole or not at all.
void writeRunFiles(const RunOptions &O, const PacketBatch &Batch, const RunResult &R) {
  if (!O.Out.empty()) {
    unsigned Keep = 1u << unsigned(runtime::XdpAction::Pass) |
                    1u << unsigned(runtime::XdpAction::Tx) |
                    1u << unsigned(runtime::XdpAction::Redirect);
    if (MaybeError E = runtime::writePcap(O.Out, Batch, Keep))
      fail(E->message());
  }
  if (!O.EventsFile.empty()) {
    std::vector<uint8_t> Bytes(R.EventsText.begin(), R.EventsText.end());
    if (MaybeError E = abi::writeFileAtomically(O.EventsFile, Bytes))
      fail(E->message());
  }
  if (!O.MapsFile.empty()) {
    std::vector<uint8_t> Bytes(R.MapsText.begin(), R.MapsText.end());
    if (MaybeError E = abi::writeFileAtomically(O.MapsFile, Bytes))
      fail(E->message());
  }
  if (!O.Verdicts.empty()) {
    std::string Tmp = stagingPath(O.Verdicts, ".tmp");
    {
      std::ofstream V(Tmp);
      for (size_t I = 0; I < Batch.size(); ++I)
        V << I << " " << runtime::xdpActionName(Batch.verdict(I)) << " "
          << Batch.length(I) << "\n";
      if (!V)
        fail(O.Verdicts + ": cannot write");
    }
    if (Tmp != O.Verdicts && std::rename(Tmp.c_str(), O.Verdicts.c_str()) != 0)
      fail(O.Verdicts + ": cannot write");
  }
}

int runCommand(int argc, char **argv) {
  RunOptions O;
  if (std::optional<int> Exit = parseRunArgs(argc, argv, O))
    return *Exit;
  if (O.Object.empty())
    return usage("no program given");
  if (O.Pcap.empty())
    return usage("no packets given (--pcap)");
  if (abi::isGpuObjectFile(O.Object) && !O.Shapes.empty())
    return usage(tools::MapShapesOfGpuObject);
  if (!O.FibFile.empty()) {
    if (O.Backend == exec::Backend::Kernel)
      return usage("--fib: the kernel back end looks routes up in its own network namespace "
                   "(give it the namespace with ip netns exec, not a file)");
    // (Read before the packets and the program, to refuse a bad one early;
    // the back end reads it again.)
    if (auto Fib = loader::readFibFile(O.FibFile); !Fib)
      fail(Fib.error().message());
  }

  Expected<PacketBatch> Batch = runtime::readPcap(O.Pcap);
  if (!Batch)
    fail(Batch.error().message());
  // The packets arrive on the loopback device (ifindex 1), queue 0, as
  // BPF_PROG_TEST_RUN without a context says on the kernel back end,
  // unless --ingress-ifindex names another.
  Batch->setIngress(O.IngressIfindex ? *O.IngressIfindex : 1, 0);
  auto Start = std::chrono::steady_clock::now();
  RunResult R = runOnBackend(O, *Batch);
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();

  runtime::ActionStats Stats;
  for (size_t I = 0; I < Batch->size(); ++I)
    Stats.count(Batch->verdict(I), Batch->length(I));
  writeRunFiles(O, *Batch, R);
  size_t EventCount = size_t(std::count(R.EventsText.begin(), R.EventsText.end(), '\n'));
  // Where the redirects went (a broadcast: to which ports), but for the
  // kernel's test run, which does not say.
  std::map<uint64_t, uint64_t> Targets;
  if (O.Backend != exec::Backend::Kernel)
    for (size_t I = 0; I < Batch->size(); ++I)
      if (Batch->verdict(I) == uint64_t(runtime::XdpAction::Redirect))
        ++Targets[Batch->redirectTarget(I)];
  if (O.Json) {
    std::printf("{\"program\": \"%s\", \"backend\": \"%s\", \"packets\": %zu, \"actions\": {",
                R.ProgName.c_str(), R.Backend.c_str(), Batch->size());
    for (unsigned A = 0; A < runtime::NumXdpActions; ++A)
      std::printf("%s\"%s\": {\"packets\": %llu, \"bytes\": %llu}", A ? ", " : "",
                  runtime::xdpActionName(A), (unsigned long long)Stats.Packets[A],
                  (unsigned long long)Stats.Bytes[A]);
    std::printf("}, \"redirects\": {");
    for (auto It = Targets.begin(); It != Targets.end(); ++It)
      std::printf("%s\"%s\": %llu", It == Targets.begin() ? "" : ", ",
                  runtime::redirectTargetName(It->first).c_str(),
                  (unsigned long long)It->second);
    std::printf("}, \"invalid_verdicts\": %llu, \"events\": %zu, \"seconds\": %.6f",
                (unsigned long long)Stats.Invalid, EventCount, Secs);
    if (R.KernelMs >= 0)
      std::printf(", \"kernel_ms\": %.4f", R.KernelMs);
    std::printf("}\n");
    return 0;
  }
  std::printf("%s: %s (%s) on the %s back end, %zu packets from %s\n", Tool, R.ProgName.c_str(),
              O.Object.c_str(), R.Backend.c_str(), Batch->size(), O.Pcap.c_str());
  std::printf("  %-14s %10s %12s\n", "action", "packets", "bytes");
  for (unsigned A = 0; A < runtime::NumXdpActions; ++A)
    std::printf("  %-14s %10llu %12llu\n", runtime::xdpActionName(A),
                (unsigned long long)Stats.Packets[A], (unsigned long long)Stats.Bytes[A]);
  if (Stats.Invalid)
    std::printf("  (%llu verdicts outside 0..4 counted as XDP_ABORTED)\n",
                (unsigned long long)Stats.Invalid);
  for (const auto &[Target, Count] : Targets)
    std::printf("  redirect to %s: %llu\n", runtime::redirectTargetName(Target).c_str(),
                (unsigned long long)Count);
  if (EventCount)
    std::printf("  %zu event records%s\n", EventCount,
                O.EventsFile.empty() ? " (--events FILE writes them)" : "");
  std::printf("  %.3f ms for the run", Secs * 1e3);
  if (R.KernelMs >= 0)
    std::printf(" (GPU kernel %.3f ms)", R.KernelMs);
  std::printf("\n");
  return 0;
}

} // namespace

int main(int argc, char **argv) {
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
  libbpf_set_print(nullptr);
#endif
  if (argc < 2)
    return usage("no command");
  std::string Cmd = argv[1];
  if (Cmd == "-h" || Cmd == "--help") {
    usage("");
    return 0;
  }
  if (Cmd == "run")
    return runCommand(argc, argv);
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
  if (Cmd == "compare")
    return tools::compareCommand(argc, argv);
#endif
#ifdef EBPF_GPU_HAVE_DPDK
  if (Cmd == "forward")
    return tools::forwardCommand(argc, argv);
  if (Cmd == "daemon")
    return tools::daemonCommand(argc, argv);
#endif
  if (Cmd == "prog" || Cmd == "net" || Cmd == "map" || Cmd == "stats" || Cmd == "--socket" ||
      Cmd == "--json" || Cmd == "-j" || Cmd == "--pretty" || Cmd == "-p")
    return tools::clientCommand(argc, argv);
#ifdef EBPF_GPU_HAVE_CUDA
  if (Cmd == "test-run")
    return testRunCommand(argc, argv);
#endif
  return usage("unknown command '" + Cmd + "'");
}

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
#include "Executors.h"
#include "Forward.h"
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include "KernelEvents.h"
#endif

#include "ebpf-gpu/Loader/Fib.h"
#include "ebpf-gpu/Loader/GpuObject.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Loader/MapMemory.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/OutputPath.h"

#ifdef EBPF_GPU_HAVE_CUDA
#include "ebpf-gpu/Loader/GpuLoader.h"
#endif
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include <bpf/bpf.h>
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

constexpr const char *Tool = "ebpf-gpu-loader";

[[noreturn]] void fail(const std::string &Msg, int Code = 1) {
  std::fprintf(stderr, "%s: error: %s\n", Tool, Msg.c_str());
  std::exit(Code);
}

int usage(const std::string &Msg) {
  if (!Msg.empty())
    std::fprintf(stderr, "%s: error: %s\n", Tool, Msg.c_str());
  std::fprintf(stderr,
               "usage: %s run PROG.o|PROG.gpu.o --pcap IN.pcap [options]\n"
               "       %s forward PROG.o|PROG.gpu.o --port DEV... [options] [-- EAL-ARGS]"
               " (forward --help)\n"
               "       %s test-run PROG.gpu.o [--mem HEX]\n"
               "       %s daemon [--socket PATH] [options] (daemon --help)\n"
               "       %s [--socket PATH] [--json] prog|net|map|stats ... (a running daemon;"
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
               "  --watchdog-ms MS    gpu: a batch not done by then fails (default 1000)\n"
               "  --map-set MAP:KEY:VALUE\n"
               "                      before the run, set KEY to VALUE in MAP (hex bytes as the\n"
               "                      map stores them, e.g. routes:18000000c0a80100:02000000);\n"
               "                      maps of maps: MAP:KEY:@INNER, the map the slot holds;\n"
               "                      repeatable\n"
               "  --map-file FILE     --map-set for each line MAP:KEY:VALUE of FILE ('#' comments)\n"
               "  --inner-map OUTER=MAP\n"
               "                      eBPF objects: the map of maps OUTER, defined without\n"
               "                      __array(values, ...), holds maps shaped as MAP (what user\n"
               "                      space gives libbpf as the inner map); its slots start empty\n"
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
               Tool, Tool, Tool, Tool, Tool);
  return 2;
}

using loader::MapEntry;
using loader::parseHexBytes;
using loader::parseMapEntry;

struct RunOptions {
  std::string Object, Pcap, Section, Out, Verdicts, MapsFile;
  std::string Backend;
  size_t BatchSize = 0; ///< gpu: packets per batch (0: all in one)
  std::string GpuMode = "launch", GpuData = "copy"; ///< gpu: --gpu-mode, --gpu-data
  uint32_t GpuBlocks = 0, WatchdogMs = 1000;        ///< gpu: --gpu-blocks, --watchdog-ms
  bool Json = false;
  bool AllowUnverified = false;
  bool CheckMaps = false;
  std::string TraceFile; ///< --trace: where bpf_trace_printk lines go (default stderr)
  std::string EventsFile; ///< --events: where ringbuf/perf event records go
  std::vector<MapEntry> MapEntries; ///< --map-set, in order
  /// --inner-map OUTER=MAP: inner map templates of maps of maps (eBPF objects)
  std::vector<std::pair<std::string, std::string>> InnerMaps;
  /// --map-size MAP=ENTRIES: max_entries set before load (eBPF objects)
  std::vector<std::pair<std::string, uint32_t>> MapSizes;
  std::string FibFile;              ///< --fib: bpf_fib_lookup's table
  std::vector<uint8_t> Fib;         ///< its block (loader/Fib.h)
  std::optional<uint32_t> IngressIfindex; ///< --ingress-ifindex
};

/// Nothing unverified runs unless the operator says so (back-end tests).
void requireVerified(const loader::GpuObjectSpec &Spec, const std::string &Path, bool Allow) {
  if (!Spec.Verified && !Allow)
    fail(Path + ": compiled without the safety verifier (--no-verify); refusing to run it "
                "(--allow-unverified overrides, for testing)");
}

/// The .gpu.o at `Path`, or an error saying why it is not one.
Expected<loader::GpuObjectSpec> gpuObjectAt(const std::string &Path) {
  return loader::readGpuObjectFile(Path);
}

#ifdef EBPF_GPU_LOADER_WITH_COMPILER

std::string LibbpfLog;
int collectLibbpfLog(enum libbpf_print_level Level, const char *Fmt, va_list Args) {
  if (Level == LIBBPF_DEBUG)
    return 0;
  char Buf[4096];
  int N = std::vsnprintf(Buf, sizeof(Buf), Fmt, Args);
  LibbpfLog += Buf;
  return N;
}

object::ReadOptions readOptions(const RunOptions &O) {
  object::ReadOptions R;
  R.InnerMapTemplates = O.InnerMaps;
  R.MaxEntries = O.MapSizes;
  return R;
}

/// --map-size and --inner-map on the kernel back end: sizes set on libbpf's
/// maps; for --inner-map, a map of TEMPLATE's shape made for
/// libbpf to create OUTER with (bpf_map__set_inner_map_fd), as user space
/// does; closed by the caller after the load. Fails on names that are no
/// maps of the object.
std::vector<int> setKernelInnerMaps(struct bpf_object *Obj, const RunOptions &O) {
  std::vector<int> Fds;
  for (const auto &[Name, Entries] : O.MapSizes) {
    struct bpf_map *M = bpf_object__find_map_by_name(Obj, Name.c_str());
    if (!M)
      fail("--map-size " + Name + "=" + std::to_string(Entries) +
           ": the object has no map named '" + Name + "'");
    if (int Err = bpf_map__set_max_entries(M, Entries))
      fail("--map-size " + Name + ": " + std::strerror(-Err));
  }
  for (const auto &[OuterName, TemplateName] : O.InnerMaps) {
    struct bpf_map *Outer = bpf_object__find_map_by_name(Obj, OuterName.c_str());
    struct bpf_map *T = bpf_object__find_map_by_name(Obj, TemplateName.c_str());
    if (!Outer || !T)
      fail("--inner-map " + OuterName + "=" + TemplateName + ": the object has no map named '" +
           (Outer ? TemplateName : OuterName) + "'");
    LIBBPF_OPTS(bpf_map_create_opts, Opts, .map_flags = bpf_map__map_flags(T));
    int Fd = bpf_map_create(bpf_map__type(T), (OuterName + "_inner").substr(0, 15).c_str(),
                            bpf_map__key_size(T), bpf_map__value_size(T),
                            bpf_map__max_entries(T), &Opts);
    if (Fd < 0)
      fail("--inner-map " + OuterName + "=" + TemplateName +
           ": the kernel refused a map of that shape: " + std::strerror(errno));
    if (int Err = bpf_map__set_inner_map_fd(Outer, Fd))
      fail("--inner-map " + OuterName + "=" + TemplateName + ": " + std::strerror(-Err));
    Fds.push_back(Fd);
  }
  return Fds;
}

/// The kernel back end: load with libbpf, BPF_PROG_TEST_RUN per packet.
/// Kernel per-CPU values come as one copy per possible CPU, each rounded up
/// to 8 bytes; the common text form shows their sum.
bool isPercpuType(enum bpf_map_type T) {
  return T == BPF_MAP_TYPE_PERCPU_ARRAY || T == BPF_MAP_TYPE_PERCPU_HASH ||
         T == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

/// A map's value from the kernel, per-CPU copies summed (as MapMemory does).
bool kernelLookup(struct bpf_map *M, const void *Key, std::vector<uint8_t> &Value) {
  uint32_t KS = bpf_map__key_size(M), VS = bpf_map__value_size(M);
  bool PerCpu = isPercpuType(bpf_map__type(M));
  uint32_t Stride = (VS + 7u) & ~7u, Cpus = PerCpu ? uint32_t(libbpf_num_possible_cpus()) : 1;
  std::vector<uint8_t> Raw(size_t(PerCpu ? Stride : VS) * Cpus);
  if (bpf_map__lookup_elem(M, Key, KS, Raw.data(), Raw.size(), 0) != 0)
    return false;
  Value = PerCpu ? loader::sumPerCpuValues(Raw.data(), VS, Stride, Cpus) : Raw;
  return true;
}

/// The maps and global data of a loaded object, in the common text form.
std::string dumpKernelMaps(struct bpf_object *Obj) {
  std::vector<std::pair<std::string, std::string>> Parts;
  struct bpf_map *M;
  // Maps of maps hold kernel map ids: shown as the names of the maps.
  std::map<uint32_t, std::string> NameOfId;
  bpf_object__for_each_map(M, Obj) {
    struct bpf_map_info Info = {};
    uint32_t Len = sizeof(Info);
    if (bpf_map__fd(M) >= 0 && bpf_obj_get_info_by_fd(bpf_map__fd(M), &Info, &Len) == 0)
      NameOfId[Info.id] = bpf_map__name(M);
  }
  bpf_object__for_each_map(M, Obj) {
    enum bpf_map_type T = bpf_map__type(M);
    uint32_t KS = bpf_map__key_size(M), VS = bpf_map__value_size(M);
    std::vector<uint8_t> Value;
    if (ebpfgpu_map_is_outer(T)) {
      std::vector<std::pair<std::vector<uint8_t>, std::string>> KV;
      auto Add = [&](const std::vector<uint8_t> &Key) {
        uint32_t Id = 0;
        if (bpf_map__lookup_elem(M, Key.data(), KS, &Id, sizeof(Id), 0) != 0)
          return;
        auto It = NameOfId.find(Id);
        KV.push_back({Key, It == NameOfId.end() ? "(map id " + std::to_string(Id) + ")"
                                                : It->second});
      };
      if (T == BPF_MAP_TYPE_ARRAY_OF_MAPS) {
        for (uint32_t K = 0; K < bpf_map__max_entries(M); ++K)
          Add(std::vector<uint8_t>(reinterpret_cast<uint8_t *>(&K),
                                   reinterpret_cast<uint8_t *>(&K) + 4));
      } else {
        std::vector<uint8_t> Key(KS), Next(KS);
        for (void *Prev = nullptr; bpf_map__get_next_key(M, Prev, Next.data(), KS) == 0;
             Prev = Key.data()) {
          Add(Next);
          Key = Next;
        }
      }
      Parts.push_back({bpf_map__name(M), loader::formatOuterEntries(
                                             bpf_map__name(M), T == BPF_MAP_TYPE_ARRAY_OF_MAPS,
                                             std::move(KV))});
      continue;
    }
    if (ebpfgpu_map_is_hashed(T)) {
      std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> KV;
      std::vector<uint8_t> Key(KS), Next(KS);
      void *Prev = nullptr;
      while (bpf_map__get_next_key(M, Prev, Next.data(), KS) == 0) {
        if (kernelLookup(M, Next.data(), Value))
          KV.push_back({Next, Value});
        Key = Next;
        Prev = Key.data();
      }
      Parts.push_back({bpf_map__name(M), loader::formatHashEntries(bpf_map__name(M), KV)});
      continue;
    }
    if (T != BPF_MAP_TYPE_ARRAY && T != BPF_MAP_TYPE_PERCPU_ARRAY && T != BPF_MAP_TYPE_DEVMAP)
      continue;
    std::string Name = bpf_map__name(M);
    if (bpf_map__is_internal(M)) // libbpf names global data "<obj>.<section>"
      Name = Name.substr(Name.find('.'));
    uint32_t Entries = bpf_map__max_entries(M);
    std::vector<uint8_t> Values(size_t(VS) * Entries, 0);
    for (uint32_t K = 0; K < Entries; ++K)
      if (kernelLookup(M, &K, Value))
        std::memcpy(Values.data() + size_t(K) * VS, Value.data(), VS);
    Parts.push_back({Name, loader::formatArrayMap(Name, Values.data(), VS, VS, Entries)});
  }
  std::sort(Parts.begin(), Parts.end());
  std::string Out;
  for (auto &P : Parts)
    Out += P.second;
  return Out;
}

/// --map-set on the kernel back end (per-CPU maps: the value on CPU 0).
void setKernelMapEntries(struct bpf_object *Obj, const RunOptions &O) {
  for (const MapEntry &E : O.MapEntries) {
    struct bpf_map *M = bpf_object__find_map_by_name(Obj, E.Map.c_str());
    if (!M)
      fail("--map-set: no map named '" + E.Map + "' in the program");
    uint32_t KS = bpf_map__key_size(M), VS = bpf_map__value_size(M);
    bool Outer = ebpfgpu_map_is_outer(bpf_map__type(M));
    if (Outer != !E.Inner.empty())
      fail("--map-set: map '" + E.Map + "'" +
           (Outer ? " holds maps: give the inner map's name (@NAME) as the value"
                  : " does not hold maps (@" + E.Inner + " given)"));
    if (Outer) {
      // The kernel takes the inner map's file descriptor.
      struct bpf_map *In = bpf_object__find_map_by_name(Obj, E.Inner.c_str());
      if (!In)
        fail("--map-set: map '" + E.Map + "': no map named '" + E.Inner + "' in the program");
      int Fd = bpf_map__fd(In);
      if (E.Key.size() != KS)
        fail("--map-set: map '" + E.Map + "': takes " + std::to_string(KS) + "-byte keys");
      if (int Err = bpf_map__update_elem(M, E.Key.data(), KS, &Fd, sizeof(Fd), 0))
        fail("--map-set: map '" + E.Map + "': the kernel refused the update: " +
             std::strerror(-Err));
      continue;
    }
    if (E.Key.size() != KS || E.Value.size() != VS)
      fail("--map-set: map '" + E.Map + "': takes " + std::to_string(KS) + "-byte keys and " +
           std::to_string(VS) + "-byte values");
    std::vector<uint8_t> Value = E.Value;
    if (isPercpuType(bpf_map__type(M)))
      Value.resize(size_t((VS + 7u) & ~7u) * libbpf_num_possible_cpus(), 0);
    if (int Err = bpf_map__update_elem(M, E.Key.data(), KS, Value.data(), Value.size(), 0))
      fail("--map-set: map '" + E.Map + "': the kernel refused the update: " +
           std::strerror(-Err));
  }
}

void runKernel(const RunOptions &O, PacketBatch &Batch, std::string &ProgName,
               std::string &MapsText, std::string &EventsText) {
  libbpf_set_print(collectLibbpfLog);
  struct bpf_object *Obj = bpf_object__open_file(O.Object.c_str(), nullptr);
  if (!Obj)
    fail(O.Object + ": kernel back end: cannot open: " + std::strerror(errno) +
         (LibbpfLog.empty() ? "" : "\n" + LibbpfLog));
  // With program arrays, every program loads (tail calls may reach any,
  // and libbpf fills the arrays' static slots); otherwise only the chosen.
  bool TailCalls = false;
  struct bpf_map *Map;
  bpf_object__for_each_map(Map, Obj) {
    TailCalls |= bpf_map__type(Map) == BPF_MAP_TYPE_PROG_ARRAY;
    // A one-shot run starts from the object's own maps, as the host and
    // GPU back ends do: libbpf would otherwise pin LIBBPF_PIN_BY_NAME maps
    // under /sys/fs/bpf, leave them there, and reuse whatever an earlier
    // run (or another program with a map of that name) left in them.
    bpf_map__set_pin_path(Map, nullptr);
  }
  struct bpf_program *Chosen = nullptr, *P;
  int Count = 0;
  bpf_object__for_each_program(P, Obj) {
    ++Count;
    bool Match = O.Section.empty() ? Count == 1
                                   : (O.Section == bpf_program__name(P) ||
                                      O.Section == bpf_program__section_name(P));
    if (Match && !Chosen)
      Chosen = P;
    else if (TailCalls)
      bpf_program__set_type(P, BPF_PROG_TYPE_XDP);
    else
      bpf_program__set_autoload(P, false);
  }
  if (!Chosen || (O.Section.empty() && Count > 1)) {
    bpf_object__close(Obj);
    fail(O.Object + ": kernel back end: " +
         (Chosen ? "several programs; choose one with --section" : "no such program"));
  }
  ProgName = bpf_program__name(Chosen);
  bpf_program__set_type(Chosen, BPF_PROG_TYPE_XDP);
  std::vector<int> InnerFds = setKernelInnerMaps(Obj, O);
  int LoadErr = bpf_object__load(Obj);
  for (int Fd : InnerFds)
    close(Fd);
  if (int Err = LoadErr) {
    bpf_object__close(Obj);
    std::string Why = Err == -EPERM ? "permission denied (needs root or CAP_BPF)"
                                    : std::string(std::strerror(-Err));
    fail(O.Object + ": kernel back end: the kernel refused the program: " + Why +
         (LibbpfLog.empty() ? "" : "\n" + LibbpfLog));
  }
  setKernelMapEntries(Obj, O);
  // One CPU for every test run: perf records stay in one CPU's buffer, in
  // order, and BPF_F_CURRENT_CPU names the CPU the host back end's is.
  if (auto Cpu = tools::pinCurrentThread(); !Cpu) {
    bpf_object__close(Obj);
    fail("kernel back end: " + Cpu.error().message());
  }
  auto Events = tools::KernelEvents::open(Obj);
  if (!Events) {
    bpf_object__close(Obj);
    fail("kernel back end: " + Events.error().message());
  }
  loader::EventLog Log;
  auto TakeEvents = [&] {
    loader::EventBatch Run;
    if (MaybeError E = (*Events)->take(Run)) {
      bpf_object__close(Obj);
      fail("kernel back end: " + E->message());
    }
    Log.add(Run);
  };
  int Fd = bpf_program__fd(Chosen);
  std::vector<uint8_t> Out(Batch.maxLen() + runtime::XdpHeadroom + runtime::XdpTailroom);
  for (size_t I = 0; I < Batch.size(); ++I) {
    LIBBPF_OPTS(bpf_test_run_opts, Run, .data_in = Batch.data(I),
                .data_out = Out.data(), .data_size_in = Batch.length(I),
                .data_size_out = uint32_t(Out.size()), .repeat = 1);
    // The context, only to name the ingress device (the kernel then takes
    // the packet as received there, in the caller's network namespace).
    struct xdp_md Ctx = {};
    if (O.IngressIfindex) {
      Ctx.data_end = Batch.length(I);
      Ctx.ingress_ifindex = *O.IngressIfindex;
      Run.ctx_in = &Ctx;
      Run.ctx_size_in = sizeof(Ctx);
    }
    if (int Err = bpf_prog_test_run_opts(Fd, &Run)) {
      bpf_object__close(Obj);
      fail("kernel back end: BPF_PROG_TEST_RUN on packet " + std::to_string(I) + ": " +
           std::strerror(-Err));
    }
    if (!Batch.setResult(I, Out.data(), Run.data_size_out, Run.retval)) {
      bpf_object__close(Obj);
      fail("kernel back end: packet " + std::to_string(I) + " grew past its buffer");
    }
    if (O.BatchSize && (I + 1) % O.BatchSize == 0)
      TakeEvents();
  }
  TakeEvents();
  EventsText = Log.take();
  if (uint64_t Lost = (*Events)->lost())
    std::fprintf(stderr, "%s: warning: the kernel lost %llu perf event records (its buffers were "
                 "full)\n", Tool, static_cast<unsigned long long>(Lost));
  MapsText = dumpKernelMaps(Obj);
  bpf_object__close(Obj);
}
#endif // EBPF_GPU_LOADER_WITH_COMPILER

/// The host or GPU back end over the whole pcap: map entries set first,
/// map structure checked and warnings printed after.
void runExecutor(runtime::BatchExecutor &Exec, const RunOptions &O, PacketBatch &Batch,
                 std::string &MapsText, std::string &EventsText) {
  std::string Where = std::string(Exec.backendName()) + " back end: ";
  for (const MapEntry &E : O.MapEntries)
    if (MaybeError Err = E.Inner.empty() ? Exec.updateMap(E.Map, E.Key, E.Value)
                                         : Exec.setInnerMap(E.Map, E.Key, E.Inner))
      fail("--map-set: " + Err->message());
  if (!O.FibFile.empty())
    if (MaybeError Err = Exec.setFib(O.Fib))
      fail("--fib: " + Err->message());
  if (MaybeError E = Exec.run(Batch)) {
#ifdef EBPF_GPU_HAVE_CUDA
    // A hung kernel is ended here rather than by the process's exit, and
    // the user told how.
    if (std::string(Exec.backendName()) == "gpu")
      if (std::string Halt = tools::haltGpuExecutor(Exec); !Halt.empty())
        std::fprintf(stderr, "%s: %s\n", Tool, Halt.c_str());
#endif
    fail(Where + E->message());
  }
  if (O.CheckMaps)
    if (MaybeError E = Exec.checkMaps())
      fail(Where + E->message());
  auto Trace = Exec.takeTrace();
  if (!Trace)
    fail(Where + Trace.error().message());
  if (!O.TraceFile.empty()) {
    std::vector<uint8_t> Bytes(Trace->begin(), Trace->end());
    if (MaybeError E = loader::writeFileAtomically(O.TraceFile, Bytes))
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
  auto Spec = gpuObjectAt(Path);
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

int runCommand(int argc, char **argv) {
  RunOptions O;
  for (int I = 2; I < argc; ++I) {
    std::string A = argv[I];
    auto Value = [&](std::string &V) {
      if (I + 1 >= argc)
        std::exit(usage(A + " needs a value"));
      V = argv[++I];
    };
    if (A == "--pcap")
      Value(O.Pcap);
    else if (A == "--section")
      Value(O.Section);
    else if (A == "--backend")
      Value(O.Backend);
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
    else if (A == "--inner-map") {
      std::string V;
      Value(V);
      size_t Eq = V.find('=');
      if (Eq == std::string::npos || Eq == 0 || Eq + 1 == V.size())
        return usage("--inner-map needs OUTER=MAP, not '" + V + "'");
      O.InnerMaps.emplace_back(V.substr(0, Eq), V.substr(Eq + 1));
    } else if (A == "--map-size") {
      std::string V;
      Value(V);
      size_t Eq = V.find('=');
      std::string N = Eq == std::string::npos ? "" : V.substr(Eq + 1);
      char *End = nullptr;
      unsigned long long E = N.empty() ? 0 : std::strtoull(N.c_str(), &End, 10);
      if (Eq == 0 || N.empty() || *End || !std::isdigit(static_cast<unsigned char>(N[0])) ||
          E == 0 || E > 0x7fffffffu)
        return usage("--map-size needs MAP=ENTRIES (1 to 2147483647), not '" + V + "'");
      O.MapSizes.emplace_back(V.substr(0, Eq), uint32_t(E));
    }
    else if (A == "--map-set") {
      std::string V;
      Value(V);
      auto E = parseMapEntry(V);
      if (!E)
        return usage("--map-set needs MAP:KEYHEX:VALUEHEX or MAP:KEYHEX:@INNER, not '" + V + "'");
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
    } else if (A == "--gpu-mode") {
      Value(O.GpuMode);
      if (O.GpuMode != "launch" && O.GpuMode != "persistent")
        return usage("--gpu-mode must be launch or persistent");
    } else if (A == "--gpu-data") {
      Value(O.GpuData);
      if (O.GpuData != "copy" && O.GpuData != "mapped")
        return usage("--gpu-data must be copy or mapped");
    } else if (A == "--gpu-blocks" || A == "--watchdog-ms") {
      std::string V;
      Value(V);
      char *End = nullptr;
      unsigned long long N = std::strtoull(V.c_str(), &End, 10);
      if (V.empty() || *End || N == 0 || N > 1000000)
        return usage(A + " needs a number from 1 to 1000000");
      (A == "--gpu-blocks" ? O.GpuBlocks : O.WatchdogMs) = uint32_t(N);
    } else if (A.rfind("-", 0) == 0)
      return usage("unknown option " + A);
    else if (O.Object.empty())
      O.Object = A;
    else
      return usage("more than one program given ('" + O.Object + "', '" + A + "')");
  }
  if (O.Object.empty())
    return usage("no program given");
  if (O.Pcap.empty())
    return usage("no packets given (--pcap)");
  Expected<loader::GpuObjectSpec> GpuObj = gpuObjectAt(O.Object);
  if (!GpuObj && loader::isGpuObjectFile(O.Object))
    fail(GpuObj.error().message()); // a .gpu.o, but damaged
  if (GpuObj && (!O.InnerMaps.empty() || !O.MapSizes.empty()))
    return usage("--inner-map and --map-size apply to eBPF objects; a .gpu.o has its maps "
                 "from ebpf-gpu-cc (give them there)");
  if (O.Backend.empty())
    O.Backend = GpuObj ? "gpu" : "host";
  if (O.Backend != "gpu" && O.Backend != "host" && O.Backend != "kernel")
    return usage("--backend must be gpu, host or kernel");
  if (!O.FibFile.empty()) {
    if (O.Backend == "kernel")
      return usage("--fib: the kernel back end looks routes up in its own network namespace "
                   "(give it the namespace with ip netns exec, not a file)");
    auto Fib = loader::readFibFile(O.FibFile);
    if (!Fib)
      fail(Fib.error().message());
    O.Fib = std::move(*Fib);
  }

  Expected<PacketBatch> Batch = runtime::readPcap(O.Pcap);
  if (!Batch)
    fail(Batch.error().message());
  // The packets arrive on the loopback device (ifindex 1), queue 0, as
  // BPF_PROG_TEST_RUN without a context says on the kernel back end,
  // unless --ingress-ifindex names another.
  Batch->setIngress(O.IngressIfindex ? *O.IngressIfindex : 1, 0);
  std::string ProgName, MapsText, EventsText;
  double KernelMs = -1;
  auto Start = std::chrono::steady_clock::now();
  if (O.Backend == "gpu") {
#ifdef EBPF_GPU_HAVE_CUDA
    if (!GpuObj) {
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
      GpuObj = tools::compileForGpu(O.Object, O.Section, readOptions(O));
      if (!GpuObj)
        fail(GpuObj.error().message());
#else
      fail(GpuObj.error().message() + " (this loader was built without the compiler: "
                                      "compile the program with ebpf-gpu-cc first)");
#endif
    }
    ProgName = GpuObj->Program;
    requireVerified(*GpuObj, O.Object, O.AllowUnverified);
    tools::GpuExecOptions GO;
    GO.LaunchSize = O.BatchSize;
    loader::parseGpuMode(O.GpuMode, GO.Mode);
    loader::parseGpuDataPath(O.GpuData, GO.Path);
    GO.Blocks = O.GpuBlocks;
    GO.WatchdogMs = O.WatchdogMs;
    auto Exec = tools::makeGpuExecutor(*GpuObj, GO);
    if (!Exec)
      fail(Exec.error().message());
    runExecutor(**Exec, O, *Batch, MapsText, EventsText);
    KernelMs = tools::gpuKernelMs(**Exec);
#else
    fail("this loader was built without CUDA support (no cuda.h at build time)");
#endif
  } else {
    if (GpuObj)
      fail(O.Object + ": a .gpu.o holds GPU code only; give the " + O.Backend +
           " back end the eBPF object");
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
    if (O.Backend == "host") {
      auto Exec = tools::makeHostExecutor(O.Object, O.Section, tools::HostReclaim::EachPacket,
                                          readOptions(O));
      if (!Exec)
        fail(Exec.error().message());
      ProgName = (*Exec)->programName();
      runExecutor(**Exec, O, *Batch, MapsText, EventsText);
    } else
      runKernel(O, *Batch, ProgName, MapsText, EventsText);
#else
    fail("the " + O.Backend + " back end needs a loader built with the compiler");
#endif
  }
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();

  runtime::ActionStats Stats;
  for (size_t I = 0; I < Batch->size(); ++I)
    Stats.count(Batch->verdict(I), Batch->length(I));
  if (!O.Out.empty()) {
    unsigned Keep = 1u << unsigned(runtime::XdpAction::Pass) |
                    1u << unsigned(runtime::XdpAction::Tx) |
                    1u << unsigned(runtime::XdpAction::Redirect);
    if (MaybeError E = runtime::writePcap(O.Out, *Batch, Keep))
      fail(E->message());
  }
  if (!O.EventsFile.empty()) {
    std::vector<uint8_t> Bytes(EventsText.begin(), EventsText.end());
    if (MaybeError E = loader::writeFileAtomically(O.EventsFile, Bytes))
      fail(E->message());
  }
  size_t EventCount = size_t(std::count(EventsText.begin(), EventsText.end(), '\n'));
  if (!O.MapsFile.empty()) {
    std::vector<uint8_t> Bytes(MapsText.begin(), MapsText.end());
    if (MaybeError E = loader::writeFileAtomically(O.MapsFile, Bytes))
      fail(E->message());
  }
  if (!O.Verdicts.empty()) {
    std::string Tmp = stagingPath(O.Verdicts, ".tmp");
    {
      std::ofstream V(Tmp);
      for (size_t I = 0; I < Batch->size(); ++I)
        V << I << " " << runtime::xdpActionName(Batch->verdict(I)) << " "
          << Batch->length(I) << "\n";
      if (!V)
        fail(O.Verdicts + ": cannot write");
    }
    if (Tmp != O.Verdicts && std::rename(Tmp.c_str(), O.Verdicts.c_str()) != 0)
      fail(O.Verdicts + ": cannot write");
  }

  if (O.Json) {
    std::printf("{\"program\": \"%s\", \"backend\": \"%s\", \"packets\": %zu, \"actions\": {",
                ProgName.c_str(), O.Backend.c_str(), Batch->size());
    for (unsigned A = 0; A < runtime::NumXdpActions; ++A)
      std::printf("%s\"%s\": {\"packets\": %llu, \"bytes\": %llu}", A ? ", " : "",
                  runtime::xdpActionName(A), (unsigned long long)Stats.Packets[A],
                  (unsigned long long)Stats.Bytes[A]);
    std::printf("}, \"invalid_verdicts\": %llu, \"events\": %zu, \"seconds\": %.6f",
                (unsigned long long)Stats.Invalid, EventCount, Secs);
    if (KernelMs >= 0)
      std::printf(", \"kernel_ms\": %.4f", KernelMs);
    std::printf("}\n");
    return 0;
  }
  std::printf("%s: %s (%s) on the %s back end, %zu packets from %s\n", Tool, ProgName.c_str(),
              O.Object.c_str(), O.Backend.c_str(), Batch->size(), O.Pcap.c_str());
  std::printf("  %-14s %10s %12s\n", "action", "packets", "bytes");
  for (unsigned A = 0; A < runtime::NumXdpActions; ++A)
    std::printf("  %-14s %10llu %12llu\n", runtime::xdpActionName(A),
                (unsigned long long)Stats.Packets[A], (unsigned long long)Stats.Bytes[A]);
  if (Stats.Invalid)
    std::printf("  (%llu verdicts outside 0..4 counted as XDP_ABORTED)\n",
                (unsigned long long)Stats.Invalid);
  if (EventCount)
    std::printf("  %zu event records%s\n", EventCount,
                O.EventsFile.empty() ? " (--events FILE writes them)" : "");
  std::printf("  %.3f ms for the run", Secs * 1e3);
  if (KernelMs >= 0)
    std::printf(" (GPU kernel %.3f ms)", KernelMs);
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
#ifdef EBPF_GPU_HAVE_DPDK
  if (Cmd == "forward")
    return tools::forwardCommand(argc, argv);
  if (Cmd == "daemon")
    return tools::daemonCommand(argc, argv);
#endif
  if (Cmd == "prog" || Cmd == "net" || Cmd == "map" || Cmd == "stats" || Cmd == "--socket" ||
      Cmd == "--json")
    return tools::clientCommand(argc, argv);
#ifdef EBPF_GPU_HAVE_CUDA
  if (Cmd == "test-run")
    return testRunCommand(argc, argv);
#endif
  return usage("unknown command '" + Cmd + "'");
}

// SPDX-License-Identifier: Apache-2.0
//
// `run` on the host and GPU back ends, written against libebpf-gpu's C API
// (<ebpf-gpu/ebpf-gpu.h>) as an application embedding it would be: what
// `run` does with a program is what the library offers, so the tool and the
// library cannot drift apart. (The kernel back end, an oracle the library
// does not offer, stays on exec::load in ebpf-gpu-loader.cpp.)

#include "Options.h"
#include "Run.h"

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Support/OutputPath.h"

#include <ebpf-gpu/ebpf-gpu.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

namespace {

/// Fails with the library's message for the last call, `Prefix` first.
[[noreturn]] void failApi(const std::string &Prefix = "") {
  fail(Prefix + ebpf_gpu_last_error());
}

/// The load options `O` asks for.
ebpf_gpu_load_opts loadOptions(const RunOptions &O) {
  ebpf_gpu_load_opts L = {};
  L.sz = sizeof(L);
  L.program = O.Section.empty() ? nullptr : O.Section.c_str();
  L.backend = !O.Backend                          ? EBPF_GPU_BACKEND_DEFAULT
              : *O.Backend == exec::Backend::Gpu ? EBPF_GPU_BACKEND_GPU
                                                  : EBPF_GPU_BACKEND_HOST;
  const exec::GpuExecOptions &G = O.Gpu;
  L.gpu_launch_size = uint32_t(O.BatchSize);
  L.gpu_mode = G.Mode == loader::GpuMode::Persistent ? EBPF_GPU_MODE_PERSISTENT
                                                     : EBPF_GPU_MODE_LAUNCH;
  L.gpu_data = G.Path == loader::GpuDataPath::Mapped ? EBPF_GPU_DATA_MAPPED : EBPF_GPU_DATA_COPY;
  L.gpu_stage = G.Stage == exec::GpuExecOptions::Staging::On    ? EBPF_GPU_STAGE_ON
                : G.Stage == exec::GpuExecOptions::Staging::Off ? EBPF_GPU_STAGE_OFF
                                                                 : EBPF_GPU_STAGE_AUTO;
  L.gpu_blocks = G.Blocks;
  L.gpu_watchdog_ms = G.WatchdogMs;
  L.allow_unverified = O.AllowUnverified;
  return L;
}

/// The opened program's map `Name`; fails with `Ctx` first when the
/// object has none.
ebpf_gpu_map *mapFor(ebpf_gpu_prog *P, const std::string &Name, const std::string &Ctx) {
  ebpf_gpu_map *M = ebpf_gpu_prog__find_map_by_name(P, Name.c_str());
  if (!M)
    fail(Ctx + "the object has no map named '" + Name + "'");
  return M;
}

/// The shapes the options give the opened program's maps, as an
/// application sets them between open and load.
void shapeMaps(ebpf_gpu_prog *P, const RunOptions &O) {
  for (const auto &[Outer, Inner] : O.InnerMaps) {
    std::string Ctx = "--inner-map " + Outer + "=" + Inner + ": ";
    if (ebpf_gpu_map__set_inner_map(mapFor(P, Outer, Ctx), mapFor(P, Inner, Ctx)))
      failApi(Ctx);
  }
  for (const auto &[Name, N] : O.MapSizes) {
    std::string Ctx = "--map-size " + Name + "=" + std::to_string(N) + ": ";
    if (ebpf_gpu_map__set_max_entries(mapFor(P, Name, Ctx), N))
      failApi(Ctx);
  }
  for (const auto &[Name, N] : O.KeySizes)
    if (ebpf_gpu_map__set_key_size(mapFor(P, Name, "key size of '" + Name + "': "), N))
      failApi("key size of '" + Name + "': ");
  for (const auto &[Name, N] : O.ValueSizes)
    if (ebpf_gpu_map__set_value_size(mapFor(P, Name, "value size of '" + Name + "': "), N))
      failApi("value size of '" + Name + "': ");
}

/// Why `E` does not fit map `M` as --map-set's syntax gives it (the same
/// words on every back end: the kernel's are in exec/), or "".
std::string entryMismatch(ebpf_gpu_map *M, const loader::MapEntry &E) {
  uint32_t Type = ebpf_gpu_map__type(M);
  bool Slots = ebpfgpu_map_is_outer(Type) || Type == EBPFGPU_MAP_PROG_ARRAY;
  if (!E.Inner.empty())
    return Slots ? "" : "map '" + E.Map + "' does not hold maps or programs (@" + E.Inner +
                            " given)";
  if (ebpfgpu_map_is_outer(Type))
    return "map '" + E.Map + "' holds maps: give the inner map's name (@NAME) as the value";
  if (!E.PatternFile.empty())
    return "";
  if (ebpfgpu_map_is_model(Type) || ebpfgpu_map_is_patterns(Type)) {
    std::string Kind = ebpfgpu_map_is_model(Type) ? "model" : "pattern";
    return "map '" + E.Map + "' is a " + Kind + " map: it takes a " + Kind + " file (" + E.Map +
           ":@FILE), not keys";
  }
  uint32_t KS = ebpf_gpu_map__key_size(M), VS = ebpf_gpu_map__value_size(M);
  if (E.Key.size() != KS || E.Value.size() != VS)
    return "map '" + E.Map + "': takes " + std::to_string(KS) + "-byte keys and " +
           std::to_string(VS) + "-byte values, not " + std::to_string(E.Key.size()) + " and " +
           std::to_string(E.Value.size());
  return "";
}

/// --map-set and --map-file's entries on the loaded program, in order: a
/// slot by name, a pattern or model file, or a value (every CPU's, for a
/// per-CPU map).
void setEntries(ebpf_gpu_prog *P, const RunOptions &O) {
  for (const loader::MapEntry &E : O.MapEntries) {
    ebpf_gpu_map *M = ebpf_gpu_prog__find_map_by_name(P, E.Map.c_str());
    if (!M)
      fail("--map-set: no map named '" + E.Map + "' in the program");
    if (std::string Why = entryMismatch(M, E); !Why.empty())
      fail("--map-set: " + Why);
    int Rc;
    if (!E.Inner.empty()) {
      Rc = ebpf_gpu_map__set_slot(M, E.Key.data(), E.Key.size(), E.Inner.c_str());
    } else if (!E.PatternFile.empty()) {
      Rc = ebpf_gpu_map__load_contents_file(M, E.PatternFile.c_str());
    } else {
      std::vector<uint8_t> Values;
      for (uint32_t C = 0; C < ebpf_gpu_map__cpus(M); ++C)
        Values.insert(Values.end(), E.Value.begin(), E.Value.end());
      Rc = ebpf_gpu_map__update_elem(M, E.Key.empty() ? nullptr : E.Key.data(), E.Key.size(),
                                     Values.data(), Values.size(), 0);
    }
    if (Rc)
      failApi("--map-set: ");
  }
}

/// The records or lines a consume call hands out, as text lines.
int addEvent(void *Ctx, const char *Map, const void *Data, size_t Size) {
  std::string &Out = *static_cast<std::string *>(Ctx);
  static const char Hex[] = "0123456789abcdef";
  Out += Map;
  Out += ' ';
  for (size_t I = 0; I < Size; ++I) {
    uint8_t B = static_cast<const uint8_t *>(Data)[I];
    Out += Hex[B >> 4];
    Out += Hex[B & 15];
  }
  Out += '\n';
  return 0;
}
int addLine(void *Ctx, const char *Line) {
  *static_cast<std::string *>(Ctx) += std::string(Line) + "\n";
  return 0;
}
int printWarning(void *, const char *Message) {
  std::fprintf(stderr, "%s: warning: %s\n", Tool, Message);
  return 0;
}

/// Runs `Batch` as one burst, each packet in its own buffer of the batch
/// with the batch's headroom and tailroom, and writes the outcome back.
void runBurst(ebpf_gpu_prog *P, const RunOptions &O, runtime::PacketBatch &Batch) {
  std::vector<ebpf_gpu_packet> Pkts(Batch.size());
  for (size_t I = 0; I < Batch.size(); ++I) {
    uint8_t *Buf = Batch.buffer(I);
    Pkts[I].data = Buf + Batch.offset(I);
    Pkts[I].len = Batch.length(I);
    Pkts[I].cap = Batch.bufferSize(I) - Batch.offset(I);
    Pkts[I].headroom = Batch.offset(I);
  }
  ebpf_gpu_run_opts R = {};
  R.sz = sizeof(R);
  R.ingress_ifindex = Batch.ingressIfindex();
  R.rx_queue_index = Batch.rxQueueIndex();
  if (ebpf_gpu_prog__run_burst_opts(P, Pkts.data(), uint32_t(Pkts.size()), &R) !=
      int(Pkts.size()))
    failApi();
  for (size_t I = 0; I < Batch.size(); ++I)
    if (!Batch.setOutcome(I, uint32_t(Pkts[I].data - Batch.buffer(I)), Pkts[I].len,
                          Pkts[I].verdict, Pkts[I].redirect))
      fail("packet " + std::to_string(I) + ": the burst left it outside its buffer");
}

} // namespace

RunResult runOnApi(const RunOptions &O, runtime::PacketBatch &Batch) {
  if (Batch.size() > UINT32_MAX / 2)
    fail(O.Pcap + ": more packets than one burst takes (" + std::to_string(Batch.size()) + ")");
  ebpf_gpu_load_opts L = loadOptions(O);
  ebpf_gpu_prog *P = ebpf_gpu_prog__open(O.Object.c_str(), &L);
  if (!P)
    failApi();
  shapeMaps(P, O);
  if (ebpf_gpu_prog__load_opened(P))
    failApi();
  setEntries(P, O);
  if (!O.FibFile.empty() && ebpf_gpu_prog__set_fib_file(P, O.FibFile.c_str()))
    failApi("--fib: ");
  runBurst(P, O, Batch);
  if (O.CheckMaps && ebpf_gpu_prog__check_maps(P))
    failApi();
  std::string Trace;
  if (ebpf_gpu_prog__consume_trace(P, addLine, &Trace) < 0)
    failApi();
  if (!O.TraceFile.empty()) {
    if (MaybeError E = abi::writeFileAtomically(O.TraceFile,
                                                std::vector<uint8_t>(Trace.begin(), Trace.end())))
      fail(E->message());
  } else {
    std::fputs(Trace.c_str(), stderr);
  }
  RunResult Out;
  if (ebpf_gpu_prog__consume_events(P, addEvent, &Out.EventsText) < 0 ||
      ebpf_gpu_prog__warnings(P, printWarning, nullptr) < 0)
    failApi();
  char *Maps = ebpf_gpu_prog__format_maps(P);
  if (!Maps)
    failApi();
  Out.MapsText = Maps;
  std::free(Maps);
  Out.ProgName = ebpf_gpu_prog__name(P);
  Out.Backend = ebpf_gpu_prog__backend(P);
  Out.KernelMs = ebpf_gpu_prog__gpu_kernel_ms(P);
  ebpf_gpu_prog__close(P);
  return Out;
}

} // namespace ebpfgpu::tools

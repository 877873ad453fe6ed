// SPDX-License-Identifier: Apache-2.0
//
// tools::ApiProgram (ebpf-gpu/Tools/ApiProgram.h): the loader's commands' programs on the
// C API.

#include "ebpf-gpu/Tools/ApiProgram.h"

#include "ebpf-gpu/Platform/MapAbi.h"

#include <ebpf-gpu/ebpf-gpu.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

namespace {

/// The library's message for the last call, `Prefix` first.
Error apiError(const std::string &Prefix = "") { return Error(Prefix + ebpf_gpu_last_error()); }

ebpf_gpu_load_opts loadOptions(const ApiLoad &L) {
  ebpf_gpu_load_opts O = {};
  O.sz = sizeof(O);
  O.program = L.Section.empty() ? nullptr : L.Section.c_str();
  O.backend = !L.Backend                          ? EBPF_GPU_BACKEND_DEFAULT
              : *L.Backend == exec::Backend::Gpu ? EBPF_GPU_BACKEND_GPU
                                                  : EBPF_GPU_BACKEND_HOST;
  const exec::GpuExecOptions &G = L.Gpu;
  O.gpu_launch_size = uint32_t(G.LaunchSize);
  O.gpu_mode = G.Mode == loader::GpuMode::Persistent ? EBPF_GPU_MODE_PERSISTENT
                                                     : EBPF_GPU_MODE_LAUNCH;
  O.gpu_data = G.Path == loader::GpuDataPath::Mapped ? EBPF_GPU_DATA_MAPPED : EBPF_GPU_DATA_COPY;
  O.gpu_stage = G.Stage == exec::GpuExecOptions::Staging::On    ? EBPF_GPU_STAGE_ON
                : G.Stage == exec::GpuExecOptions::Staging::Off ? EBPF_GPU_STAGE_OFF
                                                                 : EBPF_GPU_STAGE_AUTO;
  O.gpu_blocks = G.Blocks;
  O.gpu_watchdog_ms = G.WatchdogMs;
  O.allow_unverified = L.AllowUnverified;
  O.workers = L.Workers;
  return O;
}

/// The shapes `L` gives the opened program's maps, as an application sets
/// them between open and load; errors in the options' words.
MaybeError shapeMaps(ebpf_gpu_prog *P, const ApiLoad &L) {
  auto Find = [&](const std::string &Name, const std::string &Ctx) -> Expected<ebpf_gpu_map *> {
    if (ebpf_gpu_map *M = ebpf_gpu_prog__find_map_by_name(P, Name.c_str()))
      return M;
    return Error(Ctx + "the object has no map named '" + Name + "'");
  };
  for (const auto &[Outer, Inner] : L.Shapes.InnerMaps) {
    std::string Ctx = "--inner-map " + Outer + "=" + Inner + ": ";
    auto O = Find(Outer, Ctx);
    if (!O)
      return O.takeError();
    auto I = Find(Inner, Ctx);
    if (!I)
      return I.takeError();
    if (ebpf_gpu_map__set_inner_map(*O, *I))
      return apiError(Ctx);
  }
  using Setter = int (*)(ebpf_gpu_map *, uint32_t);
  const struct {
    const std::vector<std::pair<std::string, uint32_t>> &Sizes;
    Setter Set;
    const char *What;
  } Kinds[] = {{L.Shapes.MapSizes, ebpf_gpu_map__set_max_entries, "--map-size"},
               {L.Shapes.KeySizes, ebpf_gpu_map__set_key_size, "key size"},
               {L.Shapes.ValueSizes, ebpf_gpu_map__set_value_size, "value size"}};
  for (const auto &K : Kinds)
    for (const auto &[Name, N] : K.Sizes) {
      std::string Ctx = K.Set == ebpf_gpu_map__set_max_entries
                            ? std::string(K.What) + " " + Name + "=" + std::to_string(N) + ": "
                            : std::string(K.What) + " of '" + Name + "': ";
      auto M = Find(Name, Ctx);
      if (!M)
        return M.takeError();
      if (K.Set(*M, N))
        return apiError(Ctx);
    }
  return std::nullopt;
}

/// Why `E` does not fit map `M` as --map-set's syntax gives it (the same
/// words on every back end: the kernel's are exec/'s), or "".
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
int addWarning(void *Ctx, const char *Message) {
  static_cast<std::vector<std::string> *>(Ctx)->push_back(Message);
  return 0;
}

} // namespace

void ApiProgram::Close::operator()(ebpf_gpu_prog *P) const { ebpf_gpu_prog__close(P); }

Expected<ApiProgram> ApiProgram::load(const ApiLoad &L) {
  ebpf_gpu_load_opts O = loadOptions(L);
  ApiProgram A;
  A.Prog.reset(ebpf_gpu_prog__open(L.Object.c_str(), &O));
  if (!A.Prog)
    return apiError();
  if (MaybeError E = shapeMaps(A.Prog.get(), L))
    return std::move(*E);
  if (ebpf_gpu_prog__load_opened(A.Prog.get()))
    return apiError();
  return A;
}

MaybeError ApiProgram::setEntries(const std::vector<loader::MapEntry> &Entries,
                                  const std::string &From) {
  const std::string Ctx = From.empty() ? "" : From + ": ";
  for (const loader::MapEntry &E : Entries) {
    ebpf_gpu_map *M = ebpf_gpu_prog__find_map_by_name(Prog.get(), E.Map.c_str());
    if (!M)
      return Error(Ctx + "no map named '" + E.Map + "' in the program");
    if (std::string Why = entryMismatch(M, E); !Why.empty())
      return Error(Ctx + Why);
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
      return apiError(Ctx);
  }
  return std::nullopt;
}

MaybeError ApiProgram::setFibFile(const std::string &Path) {
  if (ebpf_gpu_prog__set_fib_file(Prog.get(), Path.c_str()))
    return apiError("--fib: ");
  return std::nullopt;
}

MaybeError ApiProgram::run(runtime::PacketBatch &Batch) {
  if (Batch.size() > UINT32_MAX / 2)
    return Error("more packets than one burst takes (" + std::to_string(Batch.size()) + ")");
  // Each packet in its own buffer of the batch, with the batch's headroom
  // and tailroom.
  std::vector<ebpf_gpu_packet> Pkts(Batch.size());
  for (size_t I = 0; I < Batch.size(); ++I) {
    Pkts[I].data = Batch.buffer(I) + Batch.offset(I);
    Pkts[I].len = Batch.length(I);
    Pkts[I].cap = Batch.bufferSize(I) - Batch.offset(I);
    Pkts[I].headroom = Batch.offset(I);
  }
  ebpf_gpu_run_opts R = {};
  R.sz = sizeof(R);
  R.ingress_ifindex = Batch.ingressIfindex();
  R.rx_queue_index = Batch.rxQueueIndex();
  if (ebpf_gpu_prog__run_burst_opts(Prog.get(), Pkts.data(), uint32_t(Pkts.size()), &R) !=
      int(Pkts.size()))
    return apiError();
  for (size_t I = 0; I < Batch.size(); ++I)
    if (!Batch.setOutcome(I, uint32_t(Pkts[I].data - Batch.buffer(I)), Pkts[I].len,
                          Pkts[I].verdict, Pkts[I].redirect))
      return Error("packet " + std::to_string(I) + ": the burst left it outside its buffer");
  return std::nullopt;
}

MaybeError ApiProgram::checkMaps() {
  if (ebpf_gpu_prog__check_maps(Prog.get()))
    return apiError();
  return std::nullopt;
}

Expected<ebpf_gpu_lane *> ApiProgram::lane(unsigned W) {
  if (ebpf_gpu_lane *L = ebpf_gpu_prog__lane(Prog.get(), W))
    return L;
  return apiError();
}

Expected<std::string> ApiProgram::takeTrace() {
  std::string Out;
  if (ebpf_gpu_prog__consume_trace(Prog.get(), addLine, &Out) < 0)
    return apiError();
  return Out;
}

Expected<std::string> ApiProgram::takeEvents() {
  std::string Out;
  if (ebpf_gpu_prog__consume_events(Prog.get(), addEvent, &Out) < 0)
    return apiError();
  return Out;
}

Expected<std::vector<std::string>> ApiProgram::warnings() {
  std::vector<std::string> Out;
  if (ebpf_gpu_prog__warnings(Prog.get(), addWarning, &Out) < 0)
    return apiError();
  return Out;
}

Expected<std::string> ApiProgram::formatMaps() {
  char *Text = ebpf_gpu_prog__format_maps(Prog.get());
  if (!Text)
    return apiError();
  std::string Out = Text;
  std::free(Text);
  return Out;
}

std::string ApiProgram::name() const { return ebpf_gpu_prog__name(Prog.get()); }
std::string ApiProgram::backend() const { return ebpf_gpu_prog__backend(Prog.get()); }
double ApiProgram::kernelMs() const { return ebpf_gpu_prog__gpu_kernel_ms(Prog.get()); }
uint64_t ApiProgram::packetsInPlace() const { return ebpf_gpu_prog__packets_in_place(Prog.get()); }

} // namespace ebpfgpu::tools

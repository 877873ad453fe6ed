// SPDX-License-Identifier: Apache-2.0
//
// What the loader's subcommands parse alike: their arguments one by one
// and whole numbers in a range (ArgCursor, parseNumber: ebpf-gpu/Tools,
// shared with bench/tools), and the GPU back end's flags
// (`run`, `forward`) into exec::GpuExecOptions, with one message each for a
// bad value. No CUDA: a loader built without
// it still reads the flags (and refuses the GPU back end where it is asked
// for).

#ifndef EBPF_GPU_TOOLS_LOADER_OPTIONS_H
#define EBPF_GPU_TOOLS_LOADER_OPTIONS_H

#include "ebpf-gpu/Exec/Executors.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Tools/ArgCursor.h"
#include "ebpf-gpu/Tools/MapShapes.h"

#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

namespace ebpfgpu::tools {

/// The tool's name, as its messages begin.
constexpr const char *Tool = "ebpf-gpu-loader";

/// Prints "ebpf-gpu-loader: error: MSG" and exits with `Code` (1: input
/// refused, 2: bad command line).
[[noreturn]] inline void fail(const std::string &Msg, int Code = 1) {
  std::fprintf(stderr, "%s: error: %s\n", Tool, Msg.c_str());
  std::exit(Code);
}

/// Sets one --map-set/--map-file entry on a loaded program: a value, or a
/// slot's map or program by name (MAP:KEY:@NAME).
inline MaybeError applyMapEntry(runtime::BatchExecutor &Exec, const loader::MapEntry &E) {
  return E.Inner.empty() ? Exec.updateMap(E.Map, E.Key, E.Value)
                         : Exec.setInnerMap(E.Map, E.Key, E.Inner);
}

/// What a tool says when map shapes are given for a .gpu.o.
constexpr const char *MapShapesOfGpuObject =
    "--inner-map, --map-size, --map-key-size and --map-value-size apply to eBPF objects; a "
    ".gpu.o has its maps from ebpf-gpu-cc (give them there)";

/// Takes `Flag` if it is one of MapShapeArgs' flags, its value from `Next`:
/// nullopt when it is none of them, "" when taken, else the message.
inline std::optional<std::string> parseMapShapeFlag(const std::string &Flag,
                                                    const std::function<std::string()> &Next,
                                                    MapShapeArgs &S) {
  if (Flag == "--inner-map") {
    auto T = object::parseInnerMapTemplate(Next());
    if (!T)
      return T.error().message();
    S.InnerMaps.push_back(std::move(*T));
    return "";
  }
  if (Flag != "--map-size" && Flag != "--map-key-size" && Flag != "--map-value-size")
    return std::nullopt;
  auto N = Flag == "--map-size" ? object::parseMapSize(Next())
                                : object::parseMapNumber(Next(), Flag, "BYTES");
  if (!N)
    return N.error().message();
  (Flag == "--map-size" ? S.MapSizes : Flag == "--map-key-size" ? S.KeySizes : S.ValueSizes)
      .push_back(std::move(*N));
  return "";
}

/// Takes `Flag` if it is one of the GPU flags (--gpu-mode, --gpu-data,
/// --gpu-stage, --gpu-blocks, --watchdog-ms, and with `Lanes` the async
/// lanes' --reclaim-period), its value from `Next`: returns nullopt when
/// `Flag` is none of them, "" when taken, else the message for a bad value.
inline std::optional<std::string> parseGpuFlag(const std::string &Flag,
                                               const std::function<std::string()> &Next,
                                               exec::GpuExecOptions &F, bool Lanes) {
  auto Number = [&](uint64_t Min, uint64_t Max, uint64_t &Out) -> std::string {
    if (!parseNumber(Next(), Min, Max, Out))
      return Flag + " needs a number from " + std::to_string(Min) + " to " + std::to_string(Max);
    return "";
  };
  uint64_t N = 0;
  if (Flag == "--gpu-mode")
    return loader::parseGpuMode(Next(), F.Mode) ? "" : "--gpu-mode must be launch or persistent";
  if (Flag == "--gpu-data")
    return loader::parseGpuDataPath(Next(), F.Path) ? "" : "--gpu-data must be copy or mapped";
  if (Flag == "--gpu-stage") {
    std::optional<exec::GpuExecOptions::Staging> S = exec::parseStaging(Next());
    if (!S)
      return "--gpu-stage must be auto, on or off";
    F.Stage = *S;
    return "";
  }
  if (Flag == "--gpu-blocks" || Flag == "--watchdog-ms") {
    std::string E = Number(1, 1000000, N);
    if (E.empty())
      (Flag == "--gpu-blocks" ? F.Blocks : F.WatchdogMs) = uint32_t(N);
    return E;
  }
  if (Lanes && Flag == "--reclaim-period") {
    std::string E = Number(1, uint64_t(1) << 40, N);
    if (E.empty())
      F.ReclaimPeriod = N;
    return E;
  }
  return std::nullopt;
}

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_LOADER_OPTIONS_H

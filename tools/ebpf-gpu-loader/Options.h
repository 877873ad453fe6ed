// SPDX-License-Identifier: Apache-2.0
//
// What the loader's subcommands parse alike: whole numbers in a range, and
// the GPU back end's flags (`run`, `forward`), with one message each for a
// bad value. No CUDA: a loader built without it still reads the flags (and
// refuses the GPU back end where it is asked for).

#ifndef EBPF_GPU_TOOLS_LOADER_OPTIONS_H
#define EBPF_GPU_TOOLS_LOADER_OPTIONS_H

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>

namespace ebpfgpu::tools {

/// `V` as a whole number in [Min, Max] (base `Base`); false for anything
/// else (empty, signed, trailing characters, out of range).
inline bool parseNumber(const std::string &V, uint64_t Min, uint64_t Max, uint64_t &Out,
                        int Base = 10) {
  char *End = nullptr;
  if (V.empty() || V[0] == '-')
    return false;
  errno = 0;
  unsigned long long N = std::strtoull(V.c_str(), &End, Base);
  if (errno || *End || N < Min || N > Max)
    return false;
  Out = N;
  return true;
}

/// The GPU back end's flags, as given (GpuExecOptions is made from them
/// where the back end is built).
struct GpuFlags {
  std::string Mode = "launch", Data = "copy", Stage = "auto";
  uint32_t Blocks = 0, WatchdogMs = 1000;
  uint64_t ReclaimPeriod = 0; ///< forward only (0: the default)
};

/// Takes `Flag` if it is one of the GPU flags (--gpu-mode, --gpu-data,
/// --gpu-stage, --gpu-blocks, --watchdog-ms, and with `Lanes` the async
/// lanes' --reclaim-period), its value from `Next`: returns nullopt when
/// `Flag` is none of them, "" when taken, else the message for a bad value.
inline std::optional<std::string> parseGpuFlag(const std::string &Flag,
                                               const std::function<std::string()> &Next,
                                               GpuFlags &F, bool Lanes) {
  auto Number = [&](uint64_t Min, uint64_t Max, uint64_t &Out) -> std::string {
    if (!parseNumber(Next(), Min, Max, Out))
      return Flag + " needs a number from " + std::to_string(Min) + " to " + std::to_string(Max);
    return "";
  };
  uint64_t N = 0;
  if (Flag == "--gpu-mode") {
    F.Mode = Next();
    return F.Mode == "launch" || F.Mode == "persistent" ? ""
                                                         : "--gpu-mode must be launch or persistent";
  }
  if (Flag == "--gpu-data") {
    F.Data = Next();
    return F.Data == "copy" || F.Data == "mapped" ? "" : "--gpu-data must be copy or mapped";
  }
  if (Flag == "--gpu-stage") {
    F.Stage = Next();
    return F.Stage == "auto" || F.Stage == "on" || F.Stage == "off"
               ? ""
               : "--gpu-stage must be auto, on or off";
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

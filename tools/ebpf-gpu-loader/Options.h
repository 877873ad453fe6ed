// SPDX-License-Identifier: Apache-2.0
//
// What the loader's subcommands parse alike: their arguments one by one
// (ArgCursor), whole numbers in a range, and the GPU back end's flags
// (`run`, `forward`) into exec::GpuExecOptions, with one message each for a
// bad value. No CUDA: a loader built without
// it still reads the flags (and refuses the GPU back end where it is asked
// for).

#ifndef EBPF_GPU_TOOLS_LOADER_OPTIONS_H
#define EBPF_GPU_TOOLS_LOADER_OPTIONS_H

#include "ebpf-gpu/Exec/Executors.h"

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

/// The tool's name, as its messages begin.
constexpr const char *Tool = "ebpf-gpu-loader";

/// Prints "ebpf-gpu-loader: error: MSG" and exits with `Code` (1: input
/// refused, 2: bad command line).
[[noreturn]] inline void fail(const std::string &Msg, int Code = 1) {
  std::fprintf(stderr, "%s: error: %s\n", Tool, Msg.c_str());
  std::exit(Code);
}

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

/// A subcommand's arguments from argv[2] on, one at a time: `while
/// (C.next())` gives each as `C.arg()`; `C.value()` takes the argument after
/// it (a flag's value) and `C.number()` the same as a whole number in a
/// range. A flag without its value, or a value out of range, is a usage
/// error: the subcommand's `Usage` prints it and the tool exits with its
/// status (tools only: STYLE.md 6).
class ArgCursor {
public:
  using UsageFn = int (*)(const std::string &);
  ArgCursor(int Argc, char **Argv, UsageFn Usage) : Argc(Argc), Argv(Argv), Usage(Usage) {}
  bool next() {
    if (I + 1 >= Argc)
      return false;
    Arg = Argv[++I];
    return true;
  }
  const std::string &arg() const { return Arg; }
  std::string value() {
    if (I + 1 >= Argc)
      std::exit(Usage(Arg + " needs a value"));
    return Argv[++I];
  }
  uint64_t number(uint64_t Min, uint64_t Max) {
    uint64_t N;
    if (!parseNumber(value(), Min, Max, N))
      std::exit(Usage(Arg + " needs a number from " + std::to_string(Min) + " to " +
                      std::to_string(Max)));
    return N;
  }
  /// The arguments after this one (after `--`: EAL's), which ends the walk.
  std::vector<std::string> rest() {
    std::vector<std::string> R(Argv + I + 1, Argv + Argc);
    I = Argc;
    return R;
  }

private:
  int Argc;
  char **Argv;
  UsageFn Usage;
  int I = 1; ///< argv[1] is the subcommand
  std::string Arg;
};

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

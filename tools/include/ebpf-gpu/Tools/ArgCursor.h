// SPDX-License-Identifier: Apache-2.0
//
// What the command-line tools parse alike, one argument at a time: the
// loader's subcommands and the benchmark harnesses (bench/tools) walk argv
// with ArgCursor and read whole numbers with parseNumber. Tools only (their
// mains exit: STYLE.md 6); no library includes it.

#ifndef EBPF_GPU_TOOLS_ARGCURSOR_H
#define EBPF_GPU_TOOLS_ARGCURSOR_H

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

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

/// A command's arguments after the first `Skip` of argv (1: the tool's
/// name; 2: the tool's and its subcommand's), one at a time: `while
/// (C.next())` gives each as `C.arg()`; `C.value()` takes the argument after
/// it (a flag's value) and `C.number()` the same as a whole number in a
/// range. A flag without its value, or a value out of range, is a usage
/// error: `Usage` prints it and the tool exits with the status it returns.
class ArgCursor {
public:
  using UsageFn = int (*)(const std::string &);
  ArgCursor(int Argc, char **Argv, UsageFn Usage, int Skip = 2)
      : Argc(Argc), Argv(Argv), Usage(Usage), I(Skip - 1) {}
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
  /// This argument as the command's one program (its object file) into
  /// `Object`: an option nothing matched, or a second program, is a usage
  /// error.
  void program(std::string &Object) {
    if (Arg.rfind("-", 0) == 0)
      std::exit(Usage("unknown option " + Arg));
    if (!Object.empty())
      std::exit(Usage("more than one program given ('" + Object + "', '" + Arg + "')"));
    Object = Arg;
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
  int I; ///< the argument last given
  std::string Arg;
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_ARGCURSOR_H

// SPDX-License-Identifier: Apache-2.0
//
// What the benchmark tools share: one error message and exit (each tool
// defines bench::fail with its own name), checks of results, comma lists,
// JSON strings, and the suite files two of them read (a program a line: its
// name, then KEY=VALUE words; '#' starts a comment).

#ifndef EBPF_GPU_BENCH_BENCHCOMMON_H
#define EBPF_GPU_BENCH_BENCHCOMMON_H

#include "ebpf-gpu/Support/Error.h"

#include <fstream>
#include <sstream>
#include <cstdlib>
#include <string>
#include <vector>

namespace ebpfgpu::bench {

/// "TOOL: error: MSG" on stderr, exit status `Code`; defined by each tool.
[[noreturn]] void fail(const std::string &Msg, int Code = 1);
/// A bad command line (tools::ArgCursor's usage error): the message, exit
/// status 2.
[[noreturn]] inline int usage(const std::string &Msg) { fail(Msg, 2); }

template <typename T> T check(Expected<T> V, const std::string &Context) {
  if (!V)
    fail(Context + ": " + V.error().message());
  return std::move(*V);
}

inline void check(MaybeError E, const std::string &Context) {
  if (E)
    fail(Context + ": " + E->message());
}

inline std::vector<std::string> split(const std::string &S, char Sep) {
  std::vector<std::string> Out;
  std::stringstream In(S);
  std::string Part;
  while (std::getline(In, Part, Sep))
    Out.push_back(Part);
  return Out;
}

inline std::string jsonString(const std::string &S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    if (static_cast<unsigned char>(C) >= 0x20)
      Out += C;
  }
  return Out + "\"";
}

/// The entries of the suite file at `Path`, each a T with a `Name`:
/// `Field(Entry, Key, Value, Word, Where)` takes each KEY=VALUE word and
/// `Done(Entry, Where)` checks the whole line; Where is "PATH:LINE: ".
/// Fails when the file cannot be read or holds no entry ("PATH: no WHAT").
template <typename T, typename FieldFn, typename DoneFn>
std::vector<T> readSuiteFile(const std::string &Path, const char *What, FieldFn Field,
                             DoneFn Done) {
  std::ifstream In(Path);
  if (!In)
    fail(Path + ": cannot read");
  std::vector<T> Out;
  std::string Line;
  for (unsigned N = 1; std::getline(In, Line); ++N) {
    Line = Line.substr(0, Line.find('#'));
    std::istringstream Words(Line);
    std::string W;
    if (!(Words >> W))
      continue;
    std::string Where = Path + ":" + std::to_string(N) + ": ";
    T E;
    E.Name = W;
    while (Words >> W) {
      size_t Eq = W.find('=');
      if (Eq == std::string::npos)
        fail(Where + "expected KEY=VALUE, not '" + W + "'");
      Field(E, W.substr(0, Eq), W.substr(Eq + 1), W, Where);
    }
    Done(E, Where);
    Out.push_back(std::move(E));
  }
  if (Out.empty())
    fail(Path + ": no " + What);
  return Out;
}

/// A suite's check=converge[:N]: 0 for another check, else the fewest
/// passes before two alike count as settled (2 by default; a rate limiter
/// with a burst of B tokens needs B + 1: a source seen once a pass passes
/// B passes in a row before it settles on drop). Fails on a malformed N.
inline unsigned convergePasses(const std::string &Check, const std::string &Where) {
  if (Check == "converge")
    return 2;
  if (Check.rfind("converge:", 0) != 0)
    return 0;
  char *End = nullptr;
  unsigned long N = std::strtoul(Check.c_str() + 9, &End, 10);
  if (Check.size() == 9 || *End || N < 2 || N > 32)
    fail(Where + "converge:N needs N from 2 to 32");
  return unsigned(N);
}

} // namespace ebpfgpu::bench

#endif // EBPF_GPU_BENCH_BENCHCOMMON_H

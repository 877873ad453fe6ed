// SPDX-License-Identifier: Apache-2.0
//
// What the benchmark tools share: one error message and exit (each tool
// defines bench::fail with its own name), checks of results, comma lists,
// JSON strings, and the suite files two of them read (a program a line: its
// name, then KEY=VALUE words; '#' starts a comment).

#ifndef EBPF_GPU_BENCH_BENCHCOMMON_H
#define EBPF_GPU_BENCH_BENCHCOMMON_H

#include "ebpf-gpu/Support/Error.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
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

/// The count-min check's bounds (samples/xdp_ddos_cms.c and its twin: 4
/// rows of 2048 counters, a packet dropped once its source's estimate is
/// past the threshold): which source each packet sketches, as the program
/// loads it, and one pass's additions to the sketch, which do not depend on
/// the order packets reach the counters.
class CmsBounds {
public:
  /// `Frame(I)`: packet I's bytes as sent, and `Length(I)` their number.
  template <typename FrameFn, typename LengthFn>
  CmsBounds(size_t N, FrameFn Frame, LengthFn Length) : Source(N, -1), Adds(Rows * Columns, 0) {
    for (size_t I = 0; I < N; ++I) {
      const uint8_t *D = Frame(I);
      if (Length(I) < 34 || D[12] != 0x08 || D[13] != 0x00)
        continue;
      uint32_t Src;
      std::memcpy(&Src, D + 26, 4);
      Source[I] = Src;
      for (uint32_t Row = 0; Row < Rows; ++Row)
        ++Adds[slot(Src, Row)];
    }
  }
  /// Whether packet I is counted (an IPv4 frame of 34 bytes or more); the
  /// others' verdicts do not depend on the sketch.
  bool sketched(size_t I) const { return Source[I] >= 0; }
  /// The action pass `Pass` (1 or 2, from a zero sketch) must give packet I
  /// with threshold `Threshold`: 1 (XDP_DROP) when its estimate before the
  /// pass is past it, 2 (XDP_PASS) when its estimate after the pass is not,
  /// 0 when the bounds leave either.
  unsigned want(size_t I, unsigned Pass, uint64_t Threshold) const {
    uint64_t Lo = UINT64_MAX, Hi = UINT64_MAX;
    for (uint32_t Row = 0; Row < Rows; ++Row) {
      uint64_t A = Adds[slot(uint32_t(Source[I]), Row)];
      Lo = std::min(Lo, A * (Pass - 1) + 1);
      Hi = std::min(Hi, A * Pass);
    }
    return Lo > Threshold ? 1 : Hi <= Threshold ? 2 : 0;
  }
  /// One pass's additions to each counter, row after row: what a sketch
  /// that lost no update holds after it.
  const std::vector<uint64_t> &adds() const { return Adds; }

private:
  static constexpr uint32_t Rows = 4, Columns = 2048;
  static uint32_t slot(uint32_t Src, uint32_t Row) {
    uint32_t H = Src * 0x9e3779b1u ^ Row * 0x5bd1e995u;
    H ^= H >> 16;
    H *= 0x85ebca6bu;
    H ^= H >> 13;
    return Row * Columns + H % Columns;
  }
  std::vector<int64_t> Source;
  std::vector<uint64_t> Adds;
};

} // namespace ebpfgpu::bench

#endif // EBPF_GPU_BENCH_BENCHCOMMON_H

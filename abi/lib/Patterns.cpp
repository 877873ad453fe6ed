// SPDX-License-Identifier: Apache-2.0
//
// Pattern files read and compiled into the automaton of a pattern map: an
// Aho-Corasick trie over byte classes (one class per byte value some
// pattern holds, one for all others), its failure links folded into a full
// DFA so that the scan makes one transition a byte, whatever the pattern
// set. The construction is the textbook one (Aho and Corasick, 1975): the
// trie, then states in breadth-first order, each missing transition taken
// from its failure state's, each state's matches joined with its failure
// state's (the lowest id kept), its output list with its failure state's.
// A file's regex rules go to PatternRegex.cpp's DFA instead; both write the
// same automaton layout, which the same scans run, and a file with both
// kinds of rule makes both automata, side by side in one map (MapAbi.h:
// struct ebpfgpu_patterns). One DFA of both kinds would multiply their
// states: the regexes' states run beside every literal state.

#include "PatternsImpl.h"

#include "ebpf-gpu/Abi/Patterns.h"
#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <utility>

namespace ebpfgpu::abi {

namespace {

int hexDigit(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  C = char(std::tolower(static_cast<unsigned char>(C)));
  return C >= 'a' && C <= 'f' ? C - 'a' + 10 : -1;
}

/// The bytes of one pattern's text; "" on success, else why not.
std::string patternBytes(const std::string &T, std::vector<uint8_t> &Out) {
  for (size_t I = 0; I < T.size(); ++I) {
    char C = T[I];
    if (C == '\\') {
      if (I + 1 >= T.size())
        return "a '\\' ends the pattern (write \\\\ for a backslash)";
      char E = T[++I];
      if (E == '\\' || E == '|') {
        Out.push_back(uint8_t(E));
      } else if (E == 'x') {
        int Hi = I + 1 < T.size() ? hexDigit(T[I + 1]) : -1;
        int Lo = I + 2 < T.size() ? hexDigit(T[I + 2]) : -1;
        if (Hi < 0 || Lo < 0)
          return "\\x takes two hex digits";
        Out.push_back(uint8_t(Hi * 16 + Lo));
        I += 2;
      } else {
        return std::string("unknown escape \\") + E + " (\\xHH, \\\\ and \\| are known)";
      }
    } else if (C == '|') {
      size_t End = T.find('|', I + 1);
      if (End == std::string::npos)
        return "a '|' hex run is not closed";
      std::string Digits;
      for (size_t J = I + 1; J < End; ++J) {
        if (std::isspace(static_cast<unsigned char>(T[J])))
          continue;
        if (hexDigit(T[J]) < 0) {
          std::string Why = "'";
          Why += T[J];
          return Why + "' in a |hex| run";
        }
        Digits += T[J];
      }
      if (Digits.empty() || Digits.size() % 2)
        return "a |hex| run needs whole bytes (pairs of hex digits)";
      for (size_t J = 0; J < Digits.size(); J += 2)
        Out.push_back(uint8_t(hexDigit(Digits[J]) * 16 + hexDigit(Digits[J + 1])));
      I = End;
    } else {
      Out.push_back(uint8_t(C));
    }
  }
  return Out.empty() ? "an empty pattern" : "";
}

} // namespace

Expected<std::vector<PatternRule>> parsePatternText(const std::string &Text,
                                                    const std::string &Name) {
  std::vector<PatternRule> Rules;
  size_t At = 0;
  for (uint64_t N = 1; At < Text.size(); ++N) {
    size_t End = Text.find('\n', At);
    std::string Line = Text.substr(At, End == std::string::npos ? std::string::npos : End - At);
    At = End == std::string::npos ? Text.size() : End + 1;
    auto Fail = [&](const std::string &Why) {
      return Error(Name + ":" + std::to_string(N) + ": " + Why);
    };
    // White space at either end is not part of a pattern (\x20 is).
    size_t B = Line.find_first_not_of(" \t\r");
    if (B == std::string::npos || Line[B] == '#')
      continue;
    Line = Line.substr(B, Line.find_last_not_of(" \t\r") - B + 1);
    PatternRule R;
    if (N > uint64_t(std::numeric_limits<int32_t>::max()))
      return Fail("more lines than rule ids (2^31 - 1)");
    R.Id = uint32_t(N);
    if (Line.rfind("id:", 0) == 0) {
      size_t Sp = Line.find_first_of(" \t");
      std::string Num = Line.substr(3, Sp == std::string::npos ? std::string::npos : Sp - 3);
      if (Num.empty() || Num.size() > 10 ||
          !std::all_of(Num.begin(), Num.end(), [](unsigned char C) { return std::isdigit(C); }) ||
          std::stoull(Num) > uint64_t(std::numeric_limits<int32_t>::max()))
        return Fail("'id:" + Num + "': a rule id is a number from 0 to 2147483647");
      if (Sp == std::string::npos)
        return Fail("id:" + Num + " has no pattern after it");
      R.Id = uint32_t(std::stoull(Num));
      Line = Line.substr(Line.find_first_not_of(" \t", Sp));
    }
    R.Line = uint32_t(N);
    if (Line.rfind("re:/", 0) == 0) {
      // re:/REGEX/FLAGS: the last '/' ends the regex (a '/' inside needs
      // no escape), flags after it.
      size_t Close = Line.rfind('/');
      if (Close < 4)
        return Fail("a regex rule is re:/REGEX/ (no closing '/')");
      for (char F : Line.substr(Close + 1)) {
        if (F != 'i')
          return Fail(std::string("unknown regex flag '") + F + "' (i: case-insensitive)");
        R.Nocase = true;
      }
      R.IsRegex = true;
      R.Regex = Line.substr(4, Close - 4);
      if (R.Regex.empty())
        return Fail("an empty regex");
      if (std::string Why = detail::checkRegex(R); !Why.empty())
        return Fail(Why);
    } else if (std::string Why = patternBytes(Line, R.Bytes); !Why.empty()) {
      return Fail(Why);
    }
    Rules.push_back(std::move(R));
  }
  if (Rules.empty())
    return Error(Name + ": no patterns");
  return Rules;
}

namespace {

/// One automaton's bytes: header, next (flags set here), match, outputs.
std::vector<uint8_t> layout(const std::vector<PatternRule> &Rules, const uint8_t *Classes,
                            uint32_t NClasses, std::vector<uint32_t> &Next,
                            const std::vector<std::vector<int32_t>> &Outputs) {
  const uint32_t NStates = uint32_t(Outputs.size());
  std::vector<int32_t> Match(NStates, -1);
  std::vector<uint32_t> OutStart(NStates + 1, 0);
  std::vector<int32_t> Flat;
  for (uint32_t S = 0; S < NStates; ++S) {
    if (!Outputs[S].empty())
      Match[S] = Outputs[S].front();
    Flat.insert(Flat.end(), Outputs[S].begin(), Outputs[S].end());
    OutStart[S + 1] = uint32_t(Flat.size());
  }
  for (uint32_t &T : Next)
    if (Match[T] >= 0)
      T |= EBPFGPU_PATTERNS_MATCH;
  ebpfgpu_automaton H{};
  H.nstates = NStates;
  H.nclasses = NClasses;
  H.nrules = uint32_t(Rules.size());
  H.noutputs = uint32_t(Flat.size());
  std::memcpy(H.classes, Classes, 256);
  H.bytes = sizeof(H) + Next.size() * 4 + Match.size() * 4 + OutStart.size() * 4 + Flat.size() * 4;
  std::vector<uint8_t> Out(H.bytes);
  uint8_t *At = Out.data();
  auto Put = [&](const void *P, size_t N) {
    if (N)
      std::memcpy(At, P, N);
    At += N;
  };
  Put(&H, sizeof(H));
  Put(Next.data(), Next.size() * 4);
  Put(Match.data(), Match.size() * 4);
  Put(OutStart.data(), OutStart.size() * 4);
  Put(Flat.data(), Flat.size() * 4);
  return Out;
}

/// The DFA of a file's regex rules; a set past the state cap names the
/// first rule whose addition crosses it (a bisection over the prefixes:
/// the DFA of a prefix is never larger than the whole's).
Expected<std::vector<uint8_t>> compileRegexSet(const std::vector<PatternRule> &Rules,
                                               const std::string &Name) {
  auto RuleError = [&](size_t I, const std::string &Why) {
    std::string Line = std::to_string(Rules[I].Line);
    return Error(Name.empty() ? "rule on line " + Line + ": " + Why : Name + ":" + Line + ": " + Why);
  };
  detail::DfaResult D = detail::compileDfa(Rules, Rules.size(), EBPFGPU_PATTERNS_MAX_DFA_STATES,
                                           EBPFGPU_PATTERNS_MAX_DFA_BUILD_STATES);
  if (D.Why.empty())
    return layout(Rules, D.Classes, D.NClasses, D.Next, D.Outputs);
  if (!D.TooManyStates)
    return RuleError(D.Rule, D.Why);
  size_t Lo = 1, Hi = Rules.size(); // the prefix of Hi rules is too large
  std::string Why = D.Why;          // and why: which cap it crosses
  while (Lo < Hi) {
    size_t Mid = Lo + (Hi - Lo) / 2;
    detail::DfaResult P = detail::compileDfa(Rules, Mid, EBPFGPU_PATTERNS_MAX_DFA_STATES,
                                             EBPFGPU_PATTERNS_MAX_DFA_BUILD_STATES);
    if (P.TooManyStates) {
      Hi = Mid;
      Why = P.Why;
    } else {
      Lo = Mid + 1;
    }
  }
  return RuleError(Hi - 1, Why + (Hi == 1   ? " for this rule alone"
                                     : Hi == 2 ? " with this rule (the regex rule before it fits)"
                                               : " with this rule (the " +
                                                     std::to_string(Hi - 1) +
                                                     " regex rules before it fit)"));
}

/// The Aho-Corasick automaton of a file's literal rules (at least one).
Expected<std::vector<uint8_t>> compileLiteralSet(const std::vector<PatternRule> &Rules,
                                                 const std::string &Name) {
  // Classes: 0 for the bytes no pattern holds, then one per byte value
  // used; where every value is used, the values themselves.
  bool Used[256] = {};
  for (const PatternRule &R : Rules)
    for (uint8_t B : R.Bytes)
      Used[B] = true;
  uint8_t Classes[256] = {};
  uint32_t NClasses = 1;
  if (std::all_of(Used, Used + 256, [](bool U) { return U; })) {
    for (unsigned B = 0; B < 256; ++B)
      Classes[B] = uint8_t(B);
    NClasses = 256;
  } else {
    for (unsigned B = 0; B < 256; ++B)
      if (Used[B])
        Classes[B] = uint8_t(NClasses++);
  }
  constexpr uint32_t None = UINT32_MAX;
  constexpr uint32_t MaxStates = EBPFGPU_PATTERNS_MATCH - 1;
  std::vector<uint32_t> Next(NClasses, None);
  std::vector<int32_t> Match(1, -1);
  std::vector<std::vector<int32_t>> Outputs(1);
  for (const PatternRule &R : Rules) {
    uint32_t S = 0;
    for (uint8_t B : R.Bytes) {
      uint32_t &T = Next[size_t(S) * NClasses + Classes[B]];
      if (T == None) {
        if (Match.size() >= MaxStates)
          return Error((Name.empty() ? "" : Name + ": ") +
                       "the patterns need more than 2^31 - 1 states");
        T = uint32_t(Match.size());
        Match.push_back(-1);
        Outputs.emplace_back();
        Next.resize(Next.size() + NClasses, None);
      }
      S = Next[size_t(S) * NClasses + Classes[B]];
    }
    Outputs[S].push_back(int32_t(R.Id));
  }
  uint32_t NStates = uint32_t(Match.size());
  // Breadth first: a state's failure state is shallower, so it is done.
  std::vector<uint32_t> Fail(NStates, 0), Queue;
  Queue.reserve(NStates);
  for (uint32_t C = 0; C < NClasses; ++C) {
    uint32_t &T = Next[C];
    if (T == None) {
      T = 0;
    } else {
      Fail[T] = 0;
      Queue.push_back(T);
    }
  }
  for (size_t Q = 0; Q < Queue.size(); ++Q) {
    uint32_t S = Queue[Q];
    // A state's outputs: its own rules' and its failure state's (done:
    // shallower), distinct and ascending; the first is its match.
    std::vector<int32_t> &O = Outputs[S];
    O.insert(O.end(), Outputs[Fail[S]].begin(), Outputs[Fail[S]].end());
    std::sort(O.begin(), O.end());
    O.erase(std::unique(O.begin(), O.end()), O.end());
    for (uint32_t C = 0; C < NClasses; ++C) {
      uint32_t &T = Next[size_t(S) * NClasses + C];
      uint32_t Via = Next[size_t(Fail[S]) * NClasses + C];
      if (T == None) {
        T = Via;
      } else {
        Fail[T] = Via;
        Queue.push_back(T);
      }
    }
  }
  return layout(Rules, Classes, NClasses, Next, Outputs);
}

} // namespace

Expected<std::vector<uint8_t>> compilePatterns(const std::vector<PatternRule> &Rules,
                                               const std::string &Name) {
  if (Rules.empty())
    return Error(Name.empty() ? "no patterns" : Name + ": no patterns");
  std::vector<PatternRule> Literals, Regexes;
  for (const PatternRule &R : Rules)
    (R.IsRegex ? Regexes : Literals).push_back(R);
  std::vector<uint8_t> Lit, Re;
  if (!Literals.empty()) {
    auto A = compileLiteralSet(Literals, Name);
    if (!A)
      return A.takeError();
    Lit = std::move(*A);
  }
  if (!Regexes.empty()) {
    auto A = compileRegexSet(Regexes, Name);
    if (!A)
      return A.takeError();
    Re = std::move(*A);
  }
  // The set's header, then each automaton at an 8-byte boundary (its
  // header's u64), the literal one first.
  auto Align = [](uint64_t N) { return (N + 7) & ~uint64_t(7); };
  ebpfgpu_patterns H{};
  H.magic = EBPFGPU_PATTERNS_MAGIC;
  H.version = EBPFGPU_PATTERNS_VERSION;
  H.nrules = uint32_t(Rules.size());
  uint64_t At = sizeof(H);
  if (!Lit.empty()) {
    H.literals = At;
    At = Align(At + Lit.size());
  }
  if (!Re.empty()) {
    H.regexes = At;
    At = Align(At + Re.size());
  }
  H.bytes = At;
  std::vector<uint8_t> Out(At, 0);
  std::memcpy(Out.data(), &H, sizeof(H));
  if (!Lit.empty())
    std::memcpy(Out.data() + H.literals, Lit.data(), Lit.size());
  if (!Re.empty())
    std::memcpy(Out.data() + H.regexes, Re.data(), Re.size());
  return Out;
}

Expected<std::vector<uint8_t>> compilePatternFile(const std::string &Path) {
  auto Bytes = readFileBytes(Path);
  if (!Bytes)
    return Bytes.takeError();
  auto Rules = parsePatternText(std::string(Bytes->begin(), Bytes->end()), Path);
  if (!Rules)
    return Rules.takeError();
  return compilePatterns(*Rules, Path);
}

namespace {

/// Why the automaton of `Size` bytes at `Bytes` is not one the scans may
/// run, or "": its sizes, classes, transitions and output lists.
std::string checkAutomaton(const uint8_t *Bytes, uint64_t Size) {
  ebpfgpu_automaton H;
  if (Size < sizeof(H))
    return "shorter than an automaton's header (" + std::to_string(sizeof(H)) + " bytes)";
  std::memcpy(&H, Bytes, sizeof(H));
  if (H.nstates == 0 || H.nstates >= EBPFGPU_PATTERNS_MATCH || H.nclasses == 0 ||
      H.nclasses > 256)
    return "bad state or class count";
  uint64_t Want = sizeof(H) + uint64_t(H.nstates) * H.nclasses * 4 + uint64_t(H.nstates) * 4 +
                  (uint64_t(H.nstates) + 1) * 4 + uint64_t(H.noutputs) * 4;
  if (H.bytes != Want || Size < Want)
    return "its sizes do not add up";
  for (unsigned B = 0; B < 256; ++B)
    if (H.classes[B] >= H.nclasses)
      return "byte " + std::to_string(B) + " has no class";
  const uint8_t *NextAt = Bytes + sizeof(H);
  const uint8_t *MatchAt = NextAt + uint64_t(H.nstates) * H.nclasses * 4;
  auto MatchOf = [&](uint32_t S) {
    int32_t M;
    std::memcpy(&M, MatchAt + uint64_t(S) * 4, 4);
    return M;
  };
  for (uint64_t I = 0; I < uint64_t(H.nstates) * H.nclasses; ++I) {
    uint32_t T;
    std::memcpy(&T, NextAt + I * 4, 4);
    uint32_t S = T & ~EBPFGPU_PATTERNS_MATCH;
    if (S >= H.nstates)
      return "a transition to state " + std::to_string(S) + " of " + std::to_string(H.nstates);
    if (bool(T & EBPFGPU_PATTERNS_MATCH) != (MatchOf(S) >= 0))
      return "a transition's match flag disagrees with state " + std::to_string(S);
  }
  // Each state's outputs: distinct ids, ascending, the first its match
  // (none where its match is -1); ebpf_gpu_match_all walks them.
  const uint8_t *StartAt = MatchAt + uint64_t(H.nstates) * 4;
  const uint8_t *OutAt = StartAt + (uint64_t(H.nstates) + 1) * 4;
  auto Word = [](const uint8_t *At, uint64_t I) {
    uint32_t W;
    std::memcpy(&W, At + I * 4, 4);
    return W;
  };
  if (Word(StartAt, 0) != 0 || Word(StartAt, H.nstates) != H.noutputs)
    return "its output lists do not cover the outputs";
  for (uint32_t S = 0; S < H.nstates; ++S) {
    uint32_t B = Word(StartAt, S), E = Word(StartAt, S + 1);
    if (E < B || E > H.noutputs)
      return "state " + std::to_string(S) + "'s output list is out of order";
    int32_t First = B == E ? -1 : int32_t(Word(OutAt, B));
    if (First != MatchOf(S))
      return "state " + std::to_string(S) + "'s outputs disagree with its match";
    for (uint32_t I = B; I < E; ++I)
      if (int32_t(Word(OutAt, I)) < 0 || (I > B && Word(OutAt, I) <= Word(OutAt, I - 1)))
        return "state " + std::to_string(S) + "'s outputs are not distinct ascending ids";
  }
  return "";
}

ebpfgpu_automaton automatonAt(const uint8_t *Set, uint64_t Off) {
  ebpfgpu_automaton A;
  std::memcpy(&A, Set + Off, sizeof(A));
  return A;
}

} // namespace

std::string checkPatterns(const uint8_t *Bytes, size_t Size) {
  ebpfgpu_patterns H;
  if (Size < sizeof(H))
    return "shorter than a pattern set's header (" + std::to_string(sizeof(H)) + " bytes)";
  std::memcpy(&H, Bytes, sizeof(H));
  if (H.magic != EBPFGPU_PATTERNS_MAGIC || H.version != EBPFGPU_PATTERNS_VERSION)
    return "not a pattern set of version " + std::to_string(EBPFGPU_PATTERNS_VERSION);
  if (H.bytes != Size)
    return "its sizes do not add up";
  if (!H.literals && !H.regexes)
    return "it holds no automaton";
  // Each automaton on an 8-byte boundary inside the set, after its
  // header, the two apart (the literal one first); its own bytes checked.
  uint64_t Used = sizeof(H), Rules = 0;
  for (auto [Off, Kind] : {std::pair{H.literals, "literal"}, std::pair{H.regexes, "regex"}}) {
    if (!Off)
      continue;
    if (Off % 8 || Off < Used || Off > Size)
      return std::string("its ") + Kind + " automaton's offset is out of place";
    if (std::string Why = checkAutomaton(Bytes + Off, Size - Off); !Why.empty())
      return std::string("its ") + Kind + " automaton: " + Why;
    ebpfgpu_automaton A = automatonAt(Bytes, Off);
    Used = Off + A.bytes;
    Rules += A.nrules;
  }
  if (Rules != H.nrules)
    return "its rule counts do not add up";
  return "";
}

std::string describePatterns(const uint8_t *Bytes) {
  ebpfgpu_patterns H;
  std::memcpy(&H, Bytes, sizeof(H));
  auto Describe = [&](uint64_t Off) {
    ebpfgpu_automaton A = automatonAt(Bytes, Off);
    return std::to_string(A.nstates) + " states, " + std::to_string(A.nclasses) + " byte classes";
  };
  std::string Total = std::to_string(H.bytes) + " bytes";
  if (!H.literals || !H.regexes)
    return std::to_string(H.nrules) + " rules, " + Describe(H.literals | H.regexes) + ", " +
           Total;
  // Both kinds: each automaton's own figures.
  return std::to_string(H.nrules) + " rules: " +
         std::to_string(automatonAt(Bytes, H.literals).nrules) + " literal (" +
         Describe(H.literals) + "), " + std::to_string(automatonAt(Bytes, H.regexes).nrules) +
         " regex (" + Describe(H.regexes) + "), " + Total;
}

} // namespace ebpfgpu::abi

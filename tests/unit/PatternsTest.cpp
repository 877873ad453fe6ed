// SPDX-License-Identifier: Apache-2.0
//
// Pattern sets (abi/lib/Patterns.cpp) and the scan that ebpf_gpu_match runs
// on host and GPU (Abi/MapPatterns.inc), through a host pattern map: the
// first-ending, lowest-id match against a naive search over random rule
// sets on a small alphabet (so that rules overlap, nest and repeat), the
// pattern file's syntax, and the checks an automaton passes before it is
// written into a map; every rule's bitmap (ebpf_gpu_match_all's scan)
// against the same naive search; the regex subset's syntax, meaning and
// limits (its agreement with Python's re over random rules is
// tests/lit/loader/match-regex.test's); the DFA's minimisation against the
// DFA as built, over random rule sets; files of literal and regex rules
// (two automata in one map) against a brute-force search (a matcher of
// the generator's regex syntax over sets of end positions) and against one
// DFA of all their rules.

#include "../../abi/lib/PatternsImpl.h"
#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Abi/Patterns.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <bitset>
#include <cctype>
#include <random>
#include <set>

using namespace ebpfgpu;
using namespace ebpfgpu::abi;

namespace {

/// The first-ending match's id, ties to the lowest; -ENOENT for none.
int64_t naive(const std::vector<PatternRule> &Rules, const std::vector<uint8_t> &Text) {
  int64_t BestEnd = -1, BestId = -2;
  for (const PatternRule &R : Rules) {
    auto It = std::search(Text.begin(), Text.end(), R.Bytes.begin(), R.Bytes.end());
    if (It == Text.end())
      continue;
    int64_t End = (It - Text.begin()) + int64_t(R.Bytes.size());
    if (BestEnd < 0 || End < BestEnd || (End == BestEnd && R.Id < BestId)) {
      BestEnd = End;
      BestId = R.Id;
    }
  }
  return BestId;
}

PatternRule literal(uint32_t Id, std::vector<uint8_t> Bytes) {
  PatternRule R;
  R.Id = Id;
  R.Bytes = std::move(Bytes);
  return R;
}

platform::MapShape patternShape(uint32_t Bytes) {
  platform::MapShape S;
  S.Type = EBPFGPU_MAP_PATTERNS;
  S.MaxEntries = Bytes;
  return S;
}

} // namespace

TEST(Patterns, ScanEqualsNaiveSearch) {
  std::mt19937 Rng(18);
  for (int Round = 0; Round < 200; ++Round) {
    // An alphabet of 2 to 5 bytes, some of them 0 and 255.
    std::vector<uint8_t> Alphabet = {'a', 0, 255, 'b', '|'};
    Alphabet.resize(2 + Rng() % 4);
    std::vector<PatternRule> Rules(1 + Rng() % 30);
    for (PatternRule &R : Rules) {
      R.Id = Rng() % 50;
      R.Bytes.resize(1 + Rng() % 6);
      for (uint8_t &B : R.Bytes)
        B = Alphabet[Rng() % Alphabet.size()];
    }
    auto Bytes = compilePatterns(Rules);
    ASSERT_TRUE(Bytes) << Bytes.error().message();
    ASSERT_EQ(checkPatterns(Bytes->data(), Bytes->size()), "");
    HostMap M("rules", patternShape(uint32_t(Bytes->size()) + 64));
    ASSERT_FALSE(setMapEntry("rules", *M.header(), {}, *Bytes));
    for (int T = 0; T < 50; ++T) {
      std::vector<uint8_t> Text(Rng() % 40);
      for (uint8_t &B : Text)
        B = Rng() % 4 == 0 ? uint8_t(Rng()) : Alphabet[Rng() % Alphabet.size()];
      ASSERT_EQ(hostPatternScan(M.info(), Text.data(), Text.size()), naive(Rules, Text))
          << "round " << Round << ", text " << T;
      // Every rule: the ids (below 50) of the rules the text holds.
      uint64_t Want[1] = {0}, Got[1] = {~0ull};
      int64_t Distinct = 0;
      for (const PatternRule &R : Rules)
        if (std::search(Text.begin(), Text.end(), R.Bytes.begin(), R.Bytes.end()) != Text.end() &&
            !(Want[0] >> R.Id & 1)) {
          Want[0] |= 1ull << R.Id;
          ++Distinct;
        }
      ASSERT_EQ(hostPatternScanAll(M.info(), Text.data(), Text.size(), Got, 1), Distinct)
          << "round " << Round << ", text " << T;
      ASSERT_EQ(Got[0], Want[0]) << "round " << Round << ", text " << T;
    }
  }
}

TEST(Patterns, FileSyntax) {
  auto Rules = parsePatternText("# comment\n\n  abc  \nid:7 a\\x00|42 43|\\\\\\|\n\\x20x\n", "f");
  ASSERT_TRUE(Rules) << Rules.error().message();
  ASSERT_EQ(Rules->size(), 3u);
  EXPECT_EQ((*Rules)[0].Id, 3u); // its line number
  EXPECT_EQ((*Rules)[0].Bytes, (std::vector<uint8_t>{'a', 'b', 'c'}));
  EXPECT_EQ((*Rules)[1].Id, 7u);
  EXPECT_EQ((*Rules)[1].Bytes, (std::vector<uint8_t>{'a', 0, 'B', 'C', '\\', '|'}));
  EXPECT_EQ((*Rules)[2].Bytes, (std::vector<uint8_t>{' ', 'x'}));
  for (const char *Bad : {"\\xg1", "|4|", "|41", "id:99999999999 a", "id:5", "a\\", "\\n"}) {
    auto R = parsePatternText(Bad, "bad.rules");
    ASSERT_FALSE(R) << Bad;
    EXPECT_EQ(R.error().message().rfind("bad.rules:1: ", 0), 0u) << R.error().message();
  }
  EXPECT_FALSE(parsePatternText("# only a comment\n", "f"));
}

TEST(Patterns, EveryByteValueUsed) {
  std::vector<PatternRule> Rules;
  for (unsigned B = 0; B < 256; ++B)
    Rules.push_back(literal(B, {uint8_t(B), uint8_t(255 - B)}));
  auto Bytes = compilePatterns(Rules);
  ASSERT_TRUE(Bytes);
  ASSERT_EQ(checkPatterns(Bytes->data(), Bytes->size()), "");
  HostMap M("rules", patternShape(uint32_t(Bytes->size())));
  ASSERT_FALSE(setMapEntry("rules", *M.header(), {}, *Bytes));
  std::vector<uint8_t> Text = {7, 9, 200, 55, 3};
  EXPECT_EQ(hostPatternScan(M.info(), Text.data(), Text.size()), 200); // {200, 55}
}

TEST(Patterns, ChecksRefuseDamage) {
  auto Bytes = compilePatterns({literal(1, {'a', 'b'}), literal(2, {'b'})});
  ASSERT_TRUE(Bytes);
  std::vector<uint8_t> Bad = *Bytes;
  // A transition past the states (the first of the literal automaton's).
  Bad[sizeof(ebpfgpu_patterns) + sizeof(ebpfgpu_automaton)] = 0xff;
  EXPECT_NE(checkPatterns(Bad.data(), Bad.size()), "");
  EXPECT_NE(checkPatterns(Bytes->data(), Bytes->size() - 4), "");
  Bad = *Bytes;
  Bad[0] ^= 1; // the magic
  EXPECT_NE(checkPatterns(Bad.data(), Bad.size()), "");
  HostMap M("rules", patternShape(4096));
  EXPECT_TRUE(setMapEntry("rules", *M.header(), {}, Bad));
  EXPECT_TRUE(setMapEntry("rules", *M.header(), {0, 0, 0, 0}, *Bytes));
  // Nothing loaded: -EINVAL.
  uint8_t Text[] = {'a', 'b'};
  EXPECT_EQ(hostPatternScan(M.info(), Text, 2), -22);
  HostMap Small("rules", patternShape(320));
  auto E = setMapEntry("rules", *Small.header(), {}, *Bytes);
  ASSERT_TRUE(E);
  EXPECT_NE(E->message().find("the pattern set needs"), std::string::npos);
}

namespace {

/// The map of `Text`'s rules, compiled and checked.
std::unique_ptr<HostMap> mapOf(const std::string &Text) {
  auto Rules = parsePatternText(Text, "t.rules");
  EXPECT_TRUE(Rules) << Rules.error().message();
  if (!Rules)
    return nullptr;
  auto Bytes = compilePatterns(*Rules, "t.rules");
  EXPECT_TRUE(Bytes) << Bytes.error().message();
  if (!Bytes)
    return nullptr;
  EXPECT_EQ(checkPatterns(Bytes->data(), Bytes->size()), "");
  auto M = std::make_unique<HostMap>("rules", patternShape(uint32_t(Bytes->size())));
  EXPECT_FALSE(setMapEntry("rules", *M->header(), {}, *Bytes));
  return M;
}

int64_t scan(const HostMap &M, const std::string &Text) {
  return hostPatternScan(M.info(), reinterpret_cast<const uint8_t *>(Text.data()), Text.size());
}

uint64_t scanAll(const HostMap &M, const std::string &Text, int64_t &Count) {
  uint64_t Bits[4];
  Count = hostPatternScanAll(M.info(), reinterpret_cast<const uint8_t *>(Text.data()), Text.size(),
                             Bits, 1);
  return Bits[0];
}

} // namespace

TEST(PatternsRegex, Meaning) {
  auto M = mapOf("id:1 re:/ab+c/\n"
                 "id:2 re:/x[0-3]{2,3}y/\n"
                 "id:3 re:/GET|POST/i\n"
                 "id:4 re:/\\d\\.\\d/\n"
                 "id:5 re:/[^a-z ]q/\n"
                 "id:6 re:/(ab|cd)*e/\n"
                 "id:7 lit\n");
  ASSERT_TRUE(M);
  EXPECT_EQ(scan(*M, "zzabbbbc"), 1);
  EXPECT_EQ(scan(*M, "zzac"), -2);
  EXPECT_EQ(scan(*M, "x01y"), 2);
  EXPECT_EQ(scan(*M, "x0123y"), -2); // four digits: past {2,3}
  EXPECT_EQ(scan(*M, "a gEt b"), 3);
  EXPECT_EQ(scan(*M, "v1.2"), 4);
  EXPECT_EQ(scan(*M, "v1x2"), -2);
  EXPECT_EQ(scan(*M, "aq"), -2);
  EXPECT_EQ(scan(*M, "Aq"), 5);
  EXPECT_EQ(scan(*M, "cdabe"), 6); // also "e" alone: (..)* takes none
  EXPECT_EQ(scan(*M, "lit"), 7);
  // The first to end wins, whatever the ids: "abc" ends before "lit".
  EXPECT_EQ(scan(*M, "abclit"), 1);
  EXPECT_EQ(scan(*M, "litabc"), 7);
  int64_t Count;
  EXPECT_EQ(scanAll(*M, "abc POST e lit 9.9", Count), (1u << 1) | (1u << 3) | (1u << 4) |
                                                          (1u << 6) | (1u << 7));
  EXPECT_EQ(Count, 5);
  // An id past the bitmap: -E2BIG, the others' bits set.
  auto Big = mapOf("id:70 re:/a/\nid:2 b\n");
  ASSERT_TRUE(Big);
  EXPECT_EQ(scanAll(*Big, "ab", Count), 1u << 2);
  EXPECT_EQ(Count, -7);
  EXPECT_EQ(scanAll(*Big, "b", Count), 1u << 2);
  EXPECT_EQ(Count, 1);
}

TEST(PatternsRegex, SyntaxErrors) {
  const std::pair<const char *, const char *> Bad[] = {
      {"re:/a(b/", "a '(' group is not closed"},
      {"re:/ab)/", "a ')' without its '('"},
      {"re:/[ab/", "a '[' class is not closed"},
      {"re:/*a/", "'*' with nothing to repeat"},
      {"re:/a**/", "a quantifier after a quantifier"},
      {"re:/a{3,1}/", "the upper count is below the lower"},
      {"re:/a{65}/", "repetition counts are at most 64"},
      {"re:/a{x}/", "a repetition is {m}, {m,} or {m,n}"},
      {"re:/a*/", "the pattern matches the empty string"},
      {"re:/(a|)/", "the pattern matches the empty string"},
      {"re:/^a/", "the anchor '^' is not in the subset"},
      {"re:/\\q/", "unknown escape \\q"},
      {"re:/[z-a]/", "a range's end is below its start"},
      {"re:/[]/", "an empty class"},
      {"re:/(?:a)/", "'(?' group forms are not in the subset"},
      {"re:/a/x", "unknown regex flag 'x'"},
      {"re:/abc", "no closing '/'"},
      {"re://", "an empty regex"},
  };
  for (auto [Text, Why] : Bad) {
    auto R = parsePatternText(std::string("abc\n") + Text + "\n", "bad.rules");
    ASSERT_FALSE(R) << Text;
    EXPECT_EQ(R.error().message().rfind("bad.rules:2: ", 0), 0u) << R.error().message();
    EXPECT_NE(R.error().message().find(Why), std::string::npos) << R.error().message();
  }
}

TEST(PatternsRegex, StateCap) {
  // x.{N}y searched anywhere needs a state for each set of the last N + 1
  // bytes that were x: 2^17 for N = 16 (all of them distinct, so
  // minimisation keeps them), past the cap alone; with the first two
  // rules (about 3^4 * 2^7 together), past the construction's cap too.
  std::string Text = "re:/a.{3}b/\nre:/c.{10}d/\nre:/x.{16}y/\nre:/z/\n";
  auto Rules = parsePatternText(Text, "cap.rules");
  ASSERT_TRUE(Rules);
  auto Bytes = compilePatterns(*Rules, "cap.rules");
  ASSERT_FALSE(Bytes);
  EXPECT_EQ(Bytes.error().message().rfind("cap.rules:3: the regex rules' DFA needs more than "
                                          "262144 states before minimisation with this rule "
                                          "(the 2 regex rules before it fit)",
                                          0),
            0u)
      << Bytes.error().message();
  auto Alone = parsePatternText("re:/x.{16}y/\n", "cap.rules");
  ASSERT_TRUE(Alone);
  Bytes = compilePatterns(*Alone, "cap.rules");
  ASSERT_FALSE(Bytes);
  EXPECT_EQ(Bytes.error().message(),
            "cap.rules:1: the regex rules' DFA needs more than 65536 states for this rule alone");
  Rules->erase(Rules->begin() + 2);
  EXPECT_TRUE(compilePatterns(*Rules, "cap.rules"));
  // Literal rules are not the DFA's: the bisection counts regex rules,
  // and names the regex's own line.
  auto Mixed = parsePatternText("lit\nre:/z/\nmore\nre:/x.{16}y/\n", "cap.rules");
  ASSERT_TRUE(Mixed);
  Bytes = compilePatterns(*Mixed, "cap.rules");
  ASSERT_FALSE(Bytes);
  EXPECT_EQ(Bytes.error().message(), "cap.rules:4: the regex rules' DFA needs more than 65536 "
                                     "states with this rule (the regex rule before it fits)");
}

TEST(PatternsRegex, OutputsChecked) {
  auto Rules = parsePatternText("id:3 re:/ab/\nid:1 b\n", "t");
  ASSERT_TRUE(Rules);
  auto Bytes = compilePatterns(*Rules);
  ASSERT_TRUE(Bytes);
  ASSERT_EQ(checkPatterns(Bytes->data(), Bytes->size()), "");
  // The regex DFA's last output id changed (the set's last bytes may be
  // padding): a state's outputs then disagree with its match or are out
  // of order.
  ebpfgpu_patterns H;
  std::memcpy(&H, Bytes->data(), sizeof(H));
  ebpfgpu_automaton A;
  std::memcpy(&A, Bytes->data() + H.regexes, sizeof(A));
  std::vector<uint8_t> Bad = *Bytes;
  Bad[H.regexes + A.bytes - 4] ^= 2;
  EXPECT_NE(checkPatterns(Bad.data(), Bad.size()), "");
}

namespace {

/// A random regex over the bytes a, b, c: literals, classes, '.',
/// groups, alternation and every quantifier, nested to `Depth`; never
/// nullable at the top (a trailing 'c' is appended by the caller).
std::string randomRegex(std::mt19937 &Rng, int Depth) {
  std::string Out;
  for (int N = 1 + int(Rng() % 3); N > 0; --N) {
    switch (Rng() % 8) {
    case 0:
      Out += "[ab]";
      break;
    case 1:
      Out += ".";
      break;
    case 2:
      if (Depth > 0) {
        Out += "(" + randomRegex(Rng, Depth - 1) + "|" + randomRegex(Rng, Depth - 1) + ")";
        break;
      }
      [[fallthrough]];
    default:
      Out += "abc"[Rng() % 3];
    }
    const char *Quant[] = {"", "", "", "*", "+", "?", "{1,3}", "{2}"};
    Out += Quant[Rng() % 8];
  }
  return Out;
}

/// The scan of a DFA as built or minimised: the first match's id (-2 for
/// none) and the set of every rule ending anywhere.
std::pair<int64_t, std::vector<int32_t>> runDfa(const detail::DfaResult &D,
                                                const std::string &Text) {
  uint32_t S = 0;
  int64_t First = -2;
  std::vector<int32_t> All;
  for (unsigned char B : Text) {
    S = D.Next[size_t(S) * D.NClasses + D.Classes[B]];
    const std::vector<int32_t> &O = D.Outputs[S];
    if (!O.empty() && First == -2)
      First = O.front();
    All.insert(All.end(), O.begin(), O.end());
  }
  std::sort(All.begin(), All.end());
  All.erase(std::unique(All.begin(), All.end()), All.end());
  return {First, All};
}

} // namespace

TEST(PatternsRegex, MinimisedDfaAnswersAsBuilt) {
  std::mt19937 Rng(1971);
  uint64_t Built = 0, Minimal = 0;
  for (int Round = 0; Round < 300; ++Round) {
    std::vector<PatternRule> Rules(1 + Rng() % 8);
    for (PatternRule &R : Rules) {
      R.Id = Rng() % 6; // shared ids: states that differ only in rules merge
      if (Rng() % 3 == 0) {
        R.Bytes.resize(1 + Rng() % 5);
        for (uint8_t &B : R.Bytes)
          B = uint8_t("abc"[Rng() % 3]);
      } else {
        R.IsRegex = true;
        R.Regex = randomRegex(Rng, 2) + "c";
      }
    }
    auto Full = detail::compileDfa(Rules, Rules.size(), 1u << 20, 1u << 20, false);
    auto Min = detail::compileDfa(Rules, Rules.size(), 1u << 20, 1u << 20, true);
    ASSERT_EQ(Full.Why, "") << "round " << Round;
    ASSERT_EQ(Min.Why, "");
    ASSERT_EQ(Min.BuiltStates, Full.Outputs.size());
    ASSERT_LE(Min.Outputs.size(), Full.Outputs.size());
    Built += Full.Outputs.size();
    Minimal += Min.Outputs.size();
    // Minimal already: minimising again merges nothing.
    detail::DfaResult Again = Min;
    detail::minimiseDfa(Again);
    ASSERT_EQ(Again.Outputs.size(), Min.Outputs.size()) << "round " << Round;
    for (int T = 0; T < 100; ++T) {
      std::string Text(Rng() % 30, 'a');
      for (char &C : Text)
        C = "abcd"[Rng() % 4];
      ASSERT_EQ(runDfa(Min, Text), runDfa(Full, Text))
          << "round " << Round << ", rule 1 " << Rules[0].Regex << ", text " << Text;
    }
    // The map's own scan of the compiled file agrees too.
    auto Bytes = compilePatterns(Rules);
    ASSERT_TRUE(Bytes) << Bytes.error().message();
    ASSERT_EQ(checkPatterns(Bytes->data(), Bytes->size()), "");
    HostMap M("rules", patternShape(uint32_t(Bytes->size())));
    ASSERT_FALSE(setMapEntry("rules", *M.header(), {}, *Bytes));
    EXPECT_EQ(scan(M, "abcabcaacbbc"), runDfa(Full, "abcabcaacbbc").first);
  }
  // Random sets shrink (the construction keeps states that differ only in
  // NFA states with the same future).
  EXPECT_LT(Minimal, Built);
}

TEST(PatternsRegex, MinimisationMergesLiteralTails) {
  // Two literals with one id and one tail: the DFA as built keeps "xab"
  // and "yab" apart, the minimal one merges them.
  auto Rules = parsePatternText("id:1 xab\nid:1 yab\nid:2 re:/z+q/\n", "t");
  ASSERT_TRUE(Rules);
  auto Full = detail::compileDfa(*Rules, Rules->size(), 1000, 1000, false);
  auto Min = detail::compileDfa(*Rules, Rules->size(), 1000, 1000, true);
  EXPECT_LT(Min.Outputs.size(), Full.Outputs.size());
  // A cap between the two: only the minimal DFA fits.
  auto Capped = detail::compileDfa(*Rules, Rules->size(), uint32_t(Min.Outputs.size()), 1000);
  EXPECT_EQ(Capped.Why, "");
  auto Over = detail::compileDfa(*Rules, Rules->size(), uint32_t(Min.Outputs.size()) - 1, 1000);
  EXPECT_TRUE(Over.TooManyStates);
  // The construction's own cap names itself.
  auto Early = detail::compileDfa(*Rules, Rules->size(), 1000, 3);
  EXPECT_TRUE(Early.TooManyStates);
  EXPECT_NE(Early.Why.find("more than 3 states before minimisation"), std::string::npos)
      << Early.Why;
}

namespace {

/// The set's header of compiled pattern-file bytes.
ebpfgpu_patterns headerOf(const std::vector<uint8_t> &Bytes) {
  ebpfgpu_patterns H;
  std::memcpy(&H, Bytes.data(), sizeof(H));
  return H;
}

/// A brute-force matcher for randomRegex's syntax (bytes, [ab], '.',
/// groups with '|', * + ? {m} {m,n}), sharing nothing with the compiler:
/// the set of positions where a match starting at a position can end,
/// computed over the parse tree (std::regex backtracks exponentially on
/// the nested quantifiers the generator writes).
struct Brute {
  enum Kind { Set, Cat, Alt, Rep } K = Set;
  std::bitset<256> Bytes;
  std::vector<Brute> Kids;
  unsigned Min = 0, Max = 0; // Max ~0u: unbounded

  using Ends = std::set<size_t>;
  Ends ends(const std::string &T, size_t I) const {
    Ends Out;
    switch (K) {
    case Set:
      if (I < T.size() && Bytes[uint8_t(T[I])])
        Out.insert(I + 1);
      return Out;
    case Alt:
      for (const Brute &B : Kids)
        for (size_t E : B.ends(T, I))
          Out.insert(E);
      return Out;
    case Cat: {
      Ends Cur = {I};
      for (const Brute &B : Kids) {
        Ends Next;
        for (size_t S : Cur)
          for (size_t E : B.ends(T, S))
            Next.insert(E);
        Cur = std::move(Next);
      }
      return Cur;
    }
    case Rep: {
      // Ends after k repetitions, k = 0, 1, ...: past Min every set is
      // kept; the walk stops at Max or when no new end appears.
      Ends Cur = {I}, Seen;
      for (unsigned N = 0;; ++N) {
        if (N >= Min)
          for (size_t E : Cur)
            if (Seen.insert(E).second || N == Min)
              Out.insert(E);
        if (N == Max || Cur.empty())
          return Out;
        Ends Next;
        for (size_t S : Cur)
          for (size_t E : Kids[0].ends(T, S))
            if (N + 1 <= Min || !Seen.count(E))
              Next.insert(E);
        Cur = std::move(Next);
      }
    }
    }
    return Out;
  }
};

/// randomRegex's text parsed into a Brute tree; Nocase folds letters.
struct BruteParser {
  const std::string &T;
  bool Nocase;
  size_t At = 0;

  Brute byte(uint8_t C) {
    Brute B;
    B.Bytes.set(C);
    if (Nocase && std::isalpha(C))
      B.Bytes.set(uint8_t(std::toupper(C))).set(uint8_t(std::tolower(C)));
    return B;
  }
  Brute alt() {
    Brute A;
    A.K = Brute::Alt;
    A.Kids.push_back(cat());
    while (At < T.size() && T[At] == '|') {
      ++At;
      A.Kids.push_back(cat());
    }
    return A;
  }
  Brute cat() {
    Brute C;
    C.K = Brute::Cat;
    while (At < T.size() && T[At] != '|' && T[At] != ')') {
      Brute A;
      if (T[At] == '(') {
        ++At;
        A = alt();
        ++At; // ')'
      } else if (T[At] == '[') {
        A = byte('a');
        A.Bytes |= byte('b').Bytes;
        At += 4; // "[ab]"
      } else if (T[At] == '.') {
        A.Bytes.set();
        ++At;
      } else {
        A = byte(uint8_t(T[At++]));
      }
      C.Kids.push_back(quantified(std::move(A)));
    }
    return C;
  }
  Brute quantified(Brute A) {
    if (At >= T.size() || !std::strchr("*+?{", T[At]))
      return A;
    Brute R;
    R.K = Brute::Rep;
    char Q = T[At++];
    if (Q == '*' || Q == '+' || Q == '?') {
      R.Min = Q == '+';
      R.Max = Q == '?' ? 1 : ~0u;
    } else {
      size_t Close = T.find('}', At);
      std::string Body = T.substr(At, Close - At);
      size_t Comma = Body.find(',');
      R.Min = unsigned(std::stoul(Body.substr(0, Comma)));
      R.Max = Comma == std::string::npos ? R.Min : unsigned(std::stoul(Body.substr(Comma + 1)));
      At = Close + 1;
    }
    R.Kids.push_back(std::move(A));
    return R;
  }
};

/// Where rule `R`'s earliest match in `Text` ends (one past its last
/// byte), or -1: a literal's first occurrence; a regex's smallest end of
/// a match from any start (Brute).
int64_t earliestEnd(const PatternRule &R, const std::string &Text) {
  if (!R.IsRegex) {
    size_t At = Text.find(std::string(R.Bytes.begin(), R.Bytes.end()));
    return At == std::string::npos ? -1 : int64_t(At + R.Bytes.size());
  }
  BruteParser P{R.Regex, R.Nocase};
  Brute Root = P.alt();
  int64_t Best = -1;
  for (size_t I = 0; I < Text.size(); ++I) {
    Brute::Ends E = Root.ends(Text, I);
    if (!E.empty() && (Best < 0 || int64_t(*E.begin()) < Best))
      Best = int64_t(*E.begin());
  }
  return Best;
}

} // namespace

TEST(PatternsMixed, TwoAutomataAnswerAsOne) {
  // Literal and regex rules in one file: two automata in the map, whose
  // combined answers are those of a brute-force search over all the rules
  // (first to end, then lowest id; every id's bit, -E2BIG past the
  // bitmap) and those of one DFA of all the rules (compileDfa, as built).
  std::mt19937 Rng(2018);
  unsigned Both = 0, FirstFromRegex = 0, FirstFromLiteral = 0, Past = 0;
  for (int Round = 0; Round < 150; ++Round) {
    std::vector<PatternRule> Rules(2 + Rng() % 9);
    for (size_t I = 0; I < Rules.size(); ++I) {
      PatternRule &R = Rules[I];
      R.Id = Rng() % 8 == 0 ? 128 + Rng() % 10 : Rng() % 40; // some past a 2-word bitmap
      R.Line = uint32_t(I + 1);
      // The first two of each kind, the others either.
      bool Regex = I < 2 ? I == 1 : Rng() % 2;
      if (!Regex) {
        R.Bytes.resize(1 + Rng() % 4);
        for (uint8_t &B : R.Bytes)
          B = uint8_t("abc"[Rng() % 3]);
      } else {
        R.IsRegex = true;
        R.Regex = randomRegex(Rng, 2) + "c";
        R.Nocase = Rng() % 4 == 0;
      }
    }
    auto Bytes = compilePatterns(Rules);
    ASSERT_TRUE(Bytes) << Bytes.error().message();
    ASSERT_EQ(checkPatterns(Bytes->data(), Bytes->size()), "");
    ebpfgpu_patterns H = headerOf(*Bytes);
    ASSERT_NE(H.literals, 0u);
    ASSERT_NE(H.regexes, 0u);
    ASSERT_EQ(H.nrules, Rules.size());
    HostMap M("rules", patternShape(uint32_t(Bytes->size())));
    ASSERT_FALSE(setMapEntry("rules", *M.header(), {}, *Bytes));
    auto One = detail::compileDfa(Rules, Rules.size(), 1u << 20, 1u << 20, false);
    ASSERT_EQ(One.Why, "");
    for (int T = 0; T < 40; ++T) {
      std::string Text(Rng() % 24, 'a');
      for (char &C : Text)
        C = "abcdAC"[Rng() % 6];
      int64_t BestEnd = -1, First = -2, Count = 0;
      bool FromRegex = false, PastBits = false;
      uint64_t Want[2] = {0, 0};
      for (const PatternRule &R : Rules) {
        int64_t E = earliestEnd(R, Text);
        if (E < 0)
          continue;
        if (BestEnd < 0 || E < BestEnd || (E == BestEnd && int64_t(R.Id) < First)) {
          BestEnd = E;
          First = R.Id;
          FromRegex = R.IsRegex;
        }
        if (R.Id >= 128) {
          PastBits = true;
        } else if (!(Want[R.Id / 64] >> (R.Id % 64) & 1)) {
          Want[R.Id / 64] |= 1ull << (R.Id % 64);
          ++Count;
        }
      }
      const auto *P = reinterpret_cast<const uint8_t *>(Text.data());
      ASSERT_EQ(hostPatternScan(M.info(), P, Text.size()), First)
          << "round " << Round << ", text " << Text;
      ASSERT_EQ(runDfa(One, Text).first, First) << "round " << Round << ", text " << Text;
      uint64_t Got[2] = {~0ull, ~0ull};
      ASSERT_EQ(hostPatternScanAll(M.info(), P, Text.size(), Got, 2), PastBits ? -7 : Count)
          << "round " << Round << ", text " << Text;
      ASSERT_EQ(Got[0], Want[0]) << "round " << Round << ", text " << Text;
      ASSERT_EQ(Got[1], Want[1]) << "round " << Round << ", text " << Text;
      if (First >= 0)
        ++(FromRegex ? FirstFromRegex : FirstFromLiteral);
      Past += PastBits;
    }
    ++Both;
  }
  // The sets exercised both sides of the combination.
  EXPECT_EQ(Both, 150u);
  EXPECT_GT(FirstFromRegex, 100u);
  EXPECT_GT(FirstFromLiteral, 100u);
  EXPECT_GT(Past, 10u);
}

TEST(PatternsMixed, OneKindOneAutomaton) {
  auto Lit = compilePatterns({literal(1, {'a', 'b'})});
  ASSERT_TRUE(Lit);
  ebpfgpu_patterns H = headerOf(*Lit);
  EXPECT_EQ(H.literals, sizeof(ebpfgpu_patterns));
  EXPECT_EQ(H.regexes, 0u);
  EXPECT_EQ(H.bytes, Lit->size());
  auto Rules = parsePatternText("re:/a+b/\n", "t");
  ASSERT_TRUE(Rules);
  auto Re = compilePatterns(*Rules);
  ASSERT_TRUE(Re);
  H = headerOf(*Re);
  EXPECT_EQ(H.literals, 0u);
  EXPECT_EQ(H.regexes, sizeof(ebpfgpu_patterns));
  EXPECT_EQ(describePatterns(Re->data()).rfind("1 rules, ", 0), 0u);
  // Both: the regex DFA after the literal automaton, 8-byte aligned, and
  // each automaton's figures described.
  Rules = parsePatternText("ab\nre:/a+b/\nid:9 xyz\n", "t");
  ASSERT_TRUE(Rules);
  auto Both = compilePatterns(*Rules);
  ASSERT_TRUE(Both);
  H = headerOf(*Both);
  EXPECT_EQ(H.regexes % 8, 0u);
  EXPECT_GT(H.regexes, H.literals);
  EXPECT_EQ(H.nrules, 3u);
  std::string D = describePatterns(Both->data());
  EXPECT_EQ(D.rfind("3 rules: 2 literal (", 0), 0u) << D;
  EXPECT_NE(D.find("), 1 regex ("), std::string::npos) << D;
}

TEST(PatternsMixed, ChecksRefuseBadOffsets) {
  auto Rules = parsePatternText("ab\nre:/a+b/\n", "t");
  ASSERT_TRUE(Rules);
  auto Bytes = compilePatterns(*Rules);
  ASSERT_TRUE(Bytes);
  ASSERT_EQ(checkPatterns(Bytes->data(), Bytes->size()), "");
  auto With = [&](auto Edit) {
    std::vector<uint8_t> Bad = *Bytes;
    ebpfgpu_patterns H = headerOf(Bad);
    Edit(H);
    std::memcpy(Bad.data(), &H, sizeof(H));
    return checkPatterns(Bad.data(), Bad.size());
  };
  // The DFA over the literal automaton, misaligned, past the end; the two
  // swapped; none at all; rule counts that do not add up; an old version.
  EXPECT_EQ(With([](ebpfgpu_patterns &H) { H.regexes = H.literals + 8; }),
            "its regex automaton's offset is out of place");
  EXPECT_EQ(With([](ebpfgpu_patterns &H) { H.regexes += 4; }),
            "its regex automaton's offset is out of place");
  EXPECT_EQ(With([](ebpfgpu_patterns &H) { H.regexes = H.bytes + 8; }),
            "its regex automaton's offset is out of place");
  EXPECT_EQ(With([](ebpfgpu_patterns &H) { std::swap(H.literals, H.regexes); }),
            "its regex automaton's offset is out of place");
  EXPECT_EQ(With([](ebpfgpu_patterns &H) { H.literals = H.regexes = 0; }),
            "it holds no automaton");
  EXPECT_EQ(With([](ebpfgpu_patterns &H) { H.nrules = 3; }), "its rule counts do not add up");
  EXPECT_EQ(With([](ebpfgpu_patterns &H) { H.version = 2; }), "not a pattern set of version 3");
  // Damage inside the second automaton is found and named.
  std::vector<uint8_t> Bad = *Bytes;
  Bad[headerOf(Bad).regexes + sizeof(ebpfgpu_automaton)] = 0xff;
  EXPECT_EQ(checkPatterns(Bad.data(), Bad.size()).rfind("its regex automaton: ", 0), 0u);
}

TEST(PatternsMixed, LargeLiteralSetBesideRegexes) {
  // More literal states than the regex DFA's cap, with regexes in the same
  // file: the literals' automaton is not the DFA's, so the file loads
  // (before two automata it was refused at the cap). 12,000 random rules
  // of 8 letters: about 90,000 states.
  std::mt19937 Rng(147394);
  std::vector<PatternRule> Rules;
  for (uint32_t I = 0; I < 12000; ++I) {
    PatternRule R = literal(1000 + I, std::vector<uint8_t>(8));
    for (uint8_t &B : R.Bytes)
      B = uint8_t('a' + Rng() % 26);
    Rules.push_back(R);
  }
  auto Re = parsePatternText("id:7 re:/x.{3}y/\nid:5 re:/[0-9]+q/i\n", "t");
  ASSERT_TRUE(Re);
  Rules.insert(Rules.end(), Re->begin(), Re->end());
  auto Bytes = compilePatterns(Rules);
  ASSERT_TRUE(Bytes) << Bytes.error().message();
  ASSERT_EQ(checkPatterns(Bytes->data(), Bytes->size()), "");
  ebpfgpu_automaton Lit;
  std::memcpy(&Lit, Bytes->data() + headerOf(*Bytes).literals, sizeof(Lit));
  EXPECT_GT(Lit.nstates, EBPFGPU_PATTERNS_MAX_DFA_STATES);
  HostMap M("rules", patternShape(uint32_t(Bytes->size())));
  ASSERT_FALSE(setMapEntry("rules", *M.header(), {}, *Bytes));
  std::string L(Rules[42].Bytes.begin(), Rules[42].Bytes.end());
  EXPECT_EQ(scan(M, "--" + L + "--"), 1042);
  EXPECT_EQ(scan(M, "x123y" + L), 7);      // the regex ends first
  EXPECT_EQ(scan(M, L + "x123y"), 1042);   // the literal does
  EXPECT_EQ(scan(M, L.substr(0, 7) + "12Q" + L.substr(7)), 5);
  int64_t Count;
  EXPECT_EQ(scanAll(M, "x123y 9q", Count), (1u << 7) | (1u << 5));
  EXPECT_EQ(Count, 2);
}

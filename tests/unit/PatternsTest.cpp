// SPDX-License-Identifier: Apache-2.0
//
// Pattern sets (abi/lib/Patterns.cpp) and the scan that ebpf_gpu_match runs
// on host and GPU (Abi/MapPatterns.inc), through a host pattern map: the
// first-ending, lowest-id match against a naive search over random rule
// sets on a small alphabet (so that rules overlap, nest and repeat), the
// pattern file's syntax, and the checks an automaton passes before it is
// written into a map.

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Abi/Patterns.h"
#include "ebpf-gpu/Platform/MapAbi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

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
    Rules.push_back({B, {uint8_t(B), uint8_t(255 - B)}});
  auto Bytes = compilePatterns(Rules);
  ASSERT_TRUE(Bytes);
  ASSERT_EQ(checkPatterns(Bytes->data(), Bytes->size()), "");
  HostMap M("rules", patternShape(uint32_t(Bytes->size())));
  ASSERT_FALSE(setMapEntry("rules", *M.header(), {}, *Bytes));
  std::vector<uint8_t> Text = {7, 9, 200, 55, 3};
  EXPECT_EQ(hostPatternScan(M.info(), Text.data(), Text.size()), 200); // {200, 55}
}

TEST(Patterns, ChecksRefuseDamage) {
  auto Bytes = compilePatterns({{1, {'a', 'b'}}, {2, {'b'}}});
  ASSERT_TRUE(Bytes);
  std::vector<uint8_t> Bad = *Bytes;
  Bad[sizeof(ebpfgpu_patterns)] = 0xff; // a transition past the states
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
  HostMap Small("rules", patternShape(300));
  auto E = setMapEntry("rules", *Small.header(), {}, *Bytes);
  ASSERT_TRUE(E);
  EXPECT_NE(E->message().find("the pattern set needs"), std::string::npos);
}

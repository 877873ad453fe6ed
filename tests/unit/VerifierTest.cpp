// SPDX-License-Identifier: Apache-2.0
//
// Verifier: accepted and refused programs built instruction by instruction,
// and its speed on a long program.

#include "TestUtil.h"

#include "ebpf-gpu/Compiler/Lifter.h"
#include "ebpf-gpu/ISA/Decoder.h"
#include "ebpf-gpu/Verifier/Verifier.h"

#include <gtest/gtest.h>

#include <chrono>

using namespace ebpfgpu;
using namespace ebpfgpu::test;

namespace {

verifier::Result verifyBytes(const std::vector<uint8_t> &B, uint64_t MemSize = 0,
                             const platform::Platform &P = platform::rawPlatform()) {
  auto Insns = isa::decodeProgram(B.data(), B.size());
  EXPECT_TRUE(Insns) << Insns.error().message();
  object::ProgramSpec Prog = compiler::programFromInsns(std::move(*Insns), "t");
  verifier::Options O;
  O.Platform = &P;
  O.RawMemSize = MemSize;
  return verifier::verify(Prog, {}, O);
}

TEST(Verifier, BoundsOfRawMemory) {
  // r0 = *(u32 *)(r1 + Off)
  auto Load = [](int16_t Off) {
    return encode({{0x61, 0, 1, Off, 0}, {Exit, 0, 0, 0, 0}});
  };
  EXPECT_TRUE(verifyBytes(Load(4), 8).ok());
  verifier::Result R = verifyBytes(Load(5), 8);
  ASSERT_FALSE(R.ok());
  EXPECT_EQ(R.Error->Reason, "memory read of 4 bytes at offset 5 is outside input memory");
}

TEST(Verifier, BoundedLoopIsFollowedToItsEnd) {
  // r0 = 0; r1 = 0; loop: r0 += r1; r1 += 1; if r1 < 100 goto loop; exit
  auto B = encode({{MovK64, 0, 0, 0, 0}, {MovK64, 1, 0, 0, 0}, {0x0f, 0, 1, 0, 0},
                   {AddK64, 1, 0, 0, 1}, {0xa5, 1, 0, -3, 100}, {Exit, 0, 0, 0, 0}});
  verifier::Result R = verifyBytes(B);
  EXPECT_TRUE(R.ok()) << R.Error->Reason;
  EXPECT_GE(R.InsnsProcessed, 300u);
}

TEST(Verifier, BudgetEndsTheAnalysis) {
  // r1 counts up with no bound: refused when the budget runs out.
  auto B = encode({{MovK64, 0, 0, 0, 0}, {MovK64, 1, 0, 0, 0}, {AddK64, 1, 0, 0, 1},
                   {0x55, 1, 0, -2, 0}, {Exit, 0, 0, 0, 0}});
  object::ProgramSpec P = compiler::programFromInsns(
      *isa::decodeProgram(B.data(), B.size()), "t");
  verifier::Options O;
  O.Platform = &platform::rawPlatform();
  O.MaxInsnsProcessed = 10000;
  verifier::Result R = verifier::verify(P, {}, O);
  ASSERT_FALSE(R.ok());
  EXPECT_EQ(R.Error->Obligation, "bounded_loop_count");
}

TEST(Verifier, LongProgramVerifiesQuickly) {
  // A 4,000-instruction parser in the shape real XDP programs have: 800
  // blocks of "r3 = data + K; if r3 > data_end goto out; r5 = data[K - 1];
  // r0 += r5", every bounds check forking to a common exit.
  std::vector<uint8_t> B = encode({{MovK64, 0, 0, 0, 0},
                                   {0x61, 2, 1, 0, 0},   // r2 = ctx->data
                                   {0x61, 4, 1, 4, 0}}); // r4 = ctx->data_end
  const int Blocks = 800;
  for (int I = 0; I < Blocks; ++I) {
    int K = I % 200 + 1;
    int16_t ToOut = int16_t((Blocks - 1 - I) * 5 + 3);
    auto Blk = encode({{MovX64, 3, 2, 0, 0}, {AddK64, 3, 0, 0, K}, {0x2d, 3, 4, ToOut, 0},
                       {0x71, 5, 2, int16_t(K - 1), 0}, {0x0f, 0, 5, 0, 0}});
    B.insert(B.end(), Blk.begin(), Blk.end());
  }
  auto Tail = encode({{Exit, 0, 0, 0, 0}, {MovK64, 0, 0, 0, 1}, {Exit, 0, 0, 0, 0}});
  B.insert(B.end(), Tail.begin(), Tail.end());
  auto Start = std::chrono::steady_clock::now();
  verifier::Result R = verifyBytes(B, 0, platform::xdpPlatform());
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  EXPECT_TRUE(R.ok()) << R.Error->Reason;
  // Not a timing test (measurements belong to bench/); a guard against
  // blow-ups in the exploration.
  EXPECT_LT(Secs, 30.0);
  std::printf("verified %zu instructions in %.3f s (%llu processed, %llu states)\n", B.size() / 8,
              Secs, static_cast<unsigned long long>(R.InsnsProcessed),
              static_cast<unsigned long long>(R.StatesStored));
}

} // namespace

// SPDX-License-Identifier: Apache-2.0
//
// Verifier: accepted and refused programs built instruction by instruction,
// its speed on a long program, and what it relies on in the helper table.

#include "TestUtil.h"

#include "ebpf-gpu/Compiler/Lifter.h"
#include "ebpf-gpu/ISA/Decoder.h"
#include "ebpf-gpu/Verifier/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
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

TEST(Verifier, TellsWhetherAProgramWritesThePacket) {
  // r2 = ctx->data; r3 = ctx->data_end; r4 = r2 + 1; if r4 > r3 goto out;
  // then the byte at r2 is read (r5 = *(u8 *)(r2 + 0)) or, with Store, also
  // written; out: r0 = XDP_PASS; exit.
  auto Prog = [](bool Store, bool OnlyOnOnePath) {
    std::vector<uint8_t> B =
        encode({{0x61, 2, 1, 0, 0},
                {0x61, 3, 1, 4, 0},
                {MovX64, 4, 2, 0, 0},
                {AddK64, 4, 0, 0, 1},
                {0x2d, 4, 3, int16_t(OnlyOnOnePath ? 3 : 2), 0},
                {0x71, 5, 2, 0, 0}});
    std::vector<uint8_t> Tail;
    if (OnlyOnOnePath) // only when the byte is 7
      Tail = encode({{0x55, 5, 0, 1, 7}});
    std::vector<uint8_t> W = encode({{0x72, 2, 0, 0, Store ? 1 : 0}});
    if (!Store)
      W = encode({{MovK64, 5, 0, 0, 1}}); // same length, no store
    std::vector<uint8_t> End =
        encode({{MovK64, 0, 0, 0, 2}, {Exit, 0, 0, 0, 0}});
    B.insert(B.end(), Tail.begin(), Tail.end());
    B.insert(B.end(), W.begin(), W.end());
    B.insert(B.end(), End.begin(), End.end());
    return B;
  };
  verifier::Result Read =
      verifyBytes(Prog(false, false), 0, platform::xdpPlatform());
  ASSERT_TRUE(Read.ok()) << Read.Error->Reason;
  EXPECT_FALSE(Read.WritesPacket);
  verifier::Result Write =
      verifyBytes(Prog(true, false), 0, platform::xdpPlatform());
  ASSERT_TRUE(Write.ok()) << Write.Error->Reason;
  EXPECT_TRUE(Write.WritesPacket);
  verifier::Result Sometimes =
      verifyBytes(Prog(true, true), 0, platform::xdpPlatform());
  ASSERT_TRUE(Sometimes.ok()) << Sometimes.Error->Reason;
  EXPECT_TRUE(Sometimes.WritesPacket);
  // bpf_xdp_adjust_head(ctx, 0) moves the packet's start: a change too.
  auto Adjust = encode({{MovK64, 2, 0, 0, 0},
                        {Call, 0, 0, 0, 44},
                        {MovK64, 0, 0, 0, 2},
                        {Exit, 0, 0, 0, 0}});
  verifier::Result Moved = verifyBytes(Adjust, 0, platform::xdpPlatform());
  ASSERT_TRUE(Moved.ok()) << Moved.Error->Reason;
  EXPECT_TRUE(Moved.WritesPacket);
  // bpf_xdp_store_bytes(ctx, 0, buf, 8) writes it and moves nothing
  // (HelperEffect::StoresPacket), as bpf_dynptr_write does.
  auto Store = encode({{StDW, 10, 0, -8, 0},
                       {MovK64, 2, 0, 0, 0},
                       {MovX64, 3, 10, 0, 0},
                       {AddK64, 3, 0, 0, -8},
                       {MovK64, 4, 0, 0, 8},
                       {Call, 0, 0, 0, 190},
                       {MovK64, 0, 0, 0, 2},
                       {Exit, 0, 0, 0, 0}});
  verifier::Result Stored = verifyBytes(Store, 0, platform::xdpPlatform());
  ASSERT_TRUE(Stored.ok()) << Stored.Error->Reason;
  EXPECT_TRUE(Stored.WritesPacket);
}

} // namespace

TEST(Verifier, HelperTableRowsAreWhatTheCheckerAssumes) {
  // The generic checker sizes keys and values by the map an earlier
  // argument named, and refuses every map to a helper whose row names no
  // family: a row that breaks either would refuse good programs, or fail
  // as the verifier's own bug.
  for (const platform::HelperProto &H : platform::xdpPlatform().helpers()) {
    bool TakesMap = false;
    for (platform::ArgCheck C : H.Checks) {
      if (C == platform::ArgCheck::MapKey || C == platform::ArgCheck::MapValue) {
        EXPECT_TRUE(TakesMap) << "bpf_" << H.Name << " sizes memory by no map";
      }
      TakesMap |= C == platform::ArgCheck::MapPtr;
    }
    EXPECT_EQ(TakesMap, !H.Maps.empty()) << "bpf_" << H.Name;
    if (platform::returnsMapValue(H.Result)) {
      EXPECT_TRUE(TakesMap) << "bpf_" << H.Name;
    }
    // A result whose nullness the key decides needs a key to look at.
    if (H.Result == platform::RetCheck::MapValueOrNullByKey) {
      EXPECT_NE(std::find(H.Checks.begin(), H.Checks.end(), platform::ArgCheck::MapKey),
                H.Checks.end())
          << "bpf_" << H.Name;
    }
    // A slice of a dynptr names the dynptr (its id goes into the slice)
    // and a constant length (its size).
    if (H.Result == platform::RetCheck::DynptrMemOrNull) {
      for (platform::ArgCheck C : {platform::ArgCheck::Dynptr, platform::ArgCheck::AllocSize})
        EXPECT_NE(std::find(H.Checks.begin(), H.Checks.end(), C), H.Checks.end())
            << "bpf_" << H.Name;
    }
  }
  // The families of the kernel's map types the helpers pair.
  using platform::MapFamily;
  EXPECT_EQ(platform::mapFamily(EBPFGPU_MAP_ARRAY), MapFamily::Data);
  EXPECT_EQ(platform::mapFamily(EBPFGPU_MAP_PROG_ARRAY), MapFamily::ProgArray);
  EXPECT_EQ(platform::mapFamily(EBPFGPU_MAP_HASH_OF_MAPS), MapFamily::MapOfMaps);
  EXPECT_EQ(platform::mapFamily(16), MapFamily::Redirect); // cpumap
  EXPECT_EQ(platform::mapFamily(27), MapFamily::Ringbuf);
  // bpf_map_lookup_elem reads a devmap, never a cpumap (as the kernel).
  EXPECT_TRUE(platform::mapInFamily(EBPFGPU_MAP_DEVMAP, MapFamily::LookupRedirect));
  EXPECT_TRUE(platform::mapInFamily(17, MapFamily::LookupRedirect)); // xskmap
  EXPECT_FALSE(platform::mapInFamily(EBPFGPU_MAP_CPUMAP, MapFamily::LookupRedirect));
  EXPECT_FALSE(platform::mapInFamily(EBPFGPU_MAP_ARRAY, MapFamily::LookupRedirect));
}

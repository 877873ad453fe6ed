// SPDX-License-Identifier: Apache-2.0
//
// The forwarding table of bpf_fib_lookup: FIB files read into the block the
// helper looks routes up in (its lookup order, printed back), and the host
// back end's table replaced between runs.

#include "TestUtil.h"

#include "ebpf-gpu/Compiler/HostJit.h"
#include "ebpf-gpu/ISA/Decoder.h"
#include "ebpf-gpu/Loader/Fib.h"

#include <gtest/gtest.h>

using namespace ebpfgpu;
using namespace ebpfgpu::test;

namespace {

std::vector<uint8_t> fib(const std::string &Text) {
  auto B = loader::parseFib(Text, "t.fib");
  EXPECT_TRUE(bool(B)) << (B ? "" : B.error().message());
  return B ? *B : std::vector<uint8_t>();
}

TEST(Fib, RoutesInLookupOrder) {
  // Longest prefix first, then the lowest metric, then file order; IPv6
  // after IPv4; unlocked route MTUs dropped (the kernel ignores them).
  auto B = fib("link 2 mac 02:00:00:00:00:02\n"
               "route 10.0.0.0/8 via 10.1.1.1 dev 2 metric 5 mtu 1400\n"
               "route -6 default via fe80::1 dev 2\n"
               "route 10.1.0.0/16 dev 2 metric 7 mtu lock 1300\n"
               "route 10.1.0.0/16 dev 2 metric 3 table 100\n"
               "route default via 10.1.1.1 dev 2\n"
               "route blackhole 10.66.0.0/16\n"
               "neigh 10.1.1.1 dev 2 lladdr 02:aa:00:00:00:01 REACHABLE\n"
               "neigh 10.1.1.2 dev 2 FAILED\n");
  EXPECT_EQ(loader::formatFib(B),
            "link 2 mac 02:00:00:00:00:02 mtu 1500 forwarding 1 forwarding6 1\n"
            "route blackhole 10.66.0.0/16 table main metric 0\n"
            "route unicast 10.1.0.0/16 dev 2 table 100 metric 3\n"
            "route unicast 10.1.0.0/16 dev 2 table main metric 7 mtu lock 1300\n"
            "route unicast 10.0.0.0/8 via 10.1.1.1 dev 2 table main metric 5\n"
            "route unicast 0.0.0.0/0 via 10.1.1.1 dev 2 table main metric 0\n"
            "route -6 unicast ::/0 via fe80::1 dev 2 table main metric 1024\n"
            "neigh 10.1.1.1 dev 2 lladdr 02:aa:00:00:00:01 PERMANENT\n"
            "neigh 10.1.1.2 dev 2 FAILED\n");
}

TEST(Fib, ErrorsNameTheLine) {
  auto B = loader::parseFib("link 2 mac 02:00:00:00:00:02\n\n# comment\nroute 10.0.0.0/8 dev 3\n",
                            "t.fib");
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(B.error().message(), "t.fib:4: no link 3 (declare it with a 'link' line)");
  B = loader::parseFib("neigh 10.1.1.1 dev 2\n", "t.fib");
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(B.error().message(), "t.fib:1: neigh: no 'lladdr MAC'");
  B = loader::parseFib("route -6 10.0.0.0/8 dev 2\n", "t.fib");
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(B.error().message(), "t.fib:1: route -6: '10.0.0.0/8' is not an IPv6 destination");
}

TEST(Fib, HostTableIsReplacedBetweenRuns) {
  // struct bpf_fib_lookup on the stack: family AF_INET, ifindex 2,
  // ipv4_dst 10.8.5.5; r0 = bpf_fib_lookup(ctx, &p, 64, 0).
  std::vector<Slot> Code;
  for (int16_t Off = -64; Off < 0; Off += 8)
    Code.push_back({StDW, 10, 0, Off, 0});
  Code.push_back({0x72, 10, 0, -64, 2});          // *(u8 *)(r10 - 64) = AF_INET
  Code.push_back({0x62, 10, 0, -56, 2});          // *(u32 *)(r10 - 56) = ifindex 2
  Code.push_back({0x62, 10, 0, -32, 0x0505080a}); // *(u32 *)(r10 - 32) = 10.8.5.5
  Code.push_back({MovX64, 2, 10, 0, 0});
  Code.push_back({AddK64, 2, 0, 0, -64});
  Code.push_back({MovK64, 3, 0, 0, 64});
  Code.push_back({MovK64, 4, 0, 0, 0});
  Code.push_back({Call, 0, 0, 0, 69});
  Code.push_back({Exit, 0, 0, 0, 0});
  std::vector<uint8_t> Bytes;
  for (const Slot &S : Code) {
    auto One = encode({S});
    Bytes.insert(Bytes.end(), One.begin(), One.end());
  }
  auto Insns = isa::decodeProgram(Bytes.data(), Bytes.size());
  ASSERT_TRUE(bool(Insns)) << Insns.error().message();
  auto P = compiler::HostProgram::compile(compiler::programFromInsns(std::move(*Insns), "t"), {},
                                          compiler::LiftOptions());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  uint8_t Packet[64] = {};
  auto Run = [&] {
    platform::XdpRuntimeContext C{};
    C.data = C.data_meta = C.buffer_start = reinterpret_cast<uint64_t>(Packet);
    C.data_end = C.buffer_end = C.data + sizeof(Packet);
    return int64_t((*P)->runXdp(C));
  };
  EXPECT_EQ(Run(), -19); // no table: no link 2 (-ENODEV)
  (*P)->setFib(fib("link 2 mac 02:00:00:00:00:02\nroute 10.8.0.0/16 via 10.2.0.254 dev 2\n"
                   "neigh 10.2.0.254 dev 2 lladdr 02:aa:00:00:00:01 PERMANENT\n"));
  EXPECT_EQ(Run(), 0);
  (*P)->setFib(fib("link 2 mac 02:00:00:00:00:02\nroute 10.8.0.0/16 via 10.2.0.99 dev 2\n"));
  EXPECT_EQ(Run(), 7); // BPF_FIB_LKUP_RET_NO_NEIGH
  (*P)->setFib(fib("link 2 mac 02:00:00:00:00:02 forwarding 0\n"));
  EXPECT_EQ(Run(), 5); // BPF_FIB_LKUP_RET_FWD_DISABLED
  (*P)->setFib({});
  EXPECT_EQ(Run(), -19);
}

} // namespace

// SPDX-License-Identifier: Apache-2.0
//
// Packet batches, verdict counters and pcap round trips.

#include "ebpf-gpu/Runtime/Packets.h"

#include <vector>

#include <gtest/gtest.h>

#include <cstdio>
#include <unistd.h>

using namespace ebpfgpu;
using runtime::PacketBatch;

namespace {

TEST(Packets, ContextHasHeadroomAndTailroom) {
  PacketBatch B(100);
  uint8_t P[60] = {1, 2, 3};
  ASSERT_TRUE(B.add(P, 60));
  EXPECT_FALSE(B.add(P, 101 > 60 ? 60 : 0) == false);
  platform::XdpRuntimeContext C;
  B.prepareContext(0, C);
  EXPECT_EQ(C.data - C.buffer_start, runtime::XdpHeadroom);
  EXPECT_EQ(C.data_end - C.data, 60u);
  EXPECT_GE(C.buffer_end - C.data_end, runtime::XdpTailroom);
  EXPECT_EQ(C.data_meta, C.data);
  // The program moved the head by 14 bytes and said XDP_TX.
  C.data += 14;
  B.finish(0, C, 3);
  EXPECT_EQ(B.length(0), 46u);
  EXPECT_EQ(B.verdict(0), 3u);
}

TEST(Packets, ClearedBatchIsReusedWithItsIngress) {
  PacketBatch B(64);
  B.reserve(4);
  B.setIngress(3, 1);
  uint8_t P[60] = {7};
  ASSERT_TRUE(B.add(P, 60));
  const uint8_t *Frames = B.frames();
  platform::XdpRuntimeContext C;
  B.prepareContext(0, C);
  EXPECT_EQ(C.ingress_ifindex, 3u);
  EXPECT_EQ(C.rx_queue_index, 1u);
  // The program pulled the head: the next batch starts from scratch in the
  // same memory.
  C.data += 14;
  B.finish(0, C, 3);
  B.clear();
  EXPECT_EQ(B.size(), 0u);
  ASSERT_TRUE(B.add(P, 42));
  EXPECT_EQ(B.frames(), Frames);
  EXPECT_EQ(B.offset(0), runtime::XdpHeadroom);
  EXPECT_EQ(B.length(0), 42u);
  EXPECT_EQ(B.data(0)[0], 7);
  EXPECT_EQ(B.ingressIfindex(), 3u);
}

TEST(Packets, CopiesKeepTheirOwnHeadroom) {
  // A packet's own headroom, at most XDP's, at least the xdp_frame's.
  EXPECT_EQ(runtime::dataOffsetFor(0), uint32_t(EBPFGPU_XDP_FRAME_SIZE));
  EXPECT_EQ(runtime::dataOffsetFor(39), uint32_t(EBPFGPU_XDP_FRAME_SIZE));
  EXPECT_EQ(runtime::dataOffsetFor(128), 128u);
  EXPECT_EQ(runtime::dataOffsetFor(256), runtime::XdpHeadroom);
  EXPECT_EQ(runtime::dataOffsetFor(4096), runtime::XdpHeadroom);
  PacketBatch B(64);
  uint8_t Frame[60] = {5};
  ASSERT_TRUE(B.addAt(Frame, 60, 128));
  ASSERT_FALSE(B.addAt(Frame, 60, runtime::XdpHeadroom + 1));
  ASSERT_EQ(B.size(), 1u);
  EXPECT_EQ(B.offset(0), 128u);
  EXPECT_EQ(B.data(0)[0], 5);
  // The context starts at the buffer: 128 bytes of headroom, the rest of
  // the stride tailroom.
  platform::XdpRuntimeContext C;
  B.prepareContext(0, C);
  EXPECT_EQ(C.data - C.buffer_start, 128u);
  EXPECT_EQ(C.buffer_end - C.buffer_start, B.stride());
  // A cap short of the stride ends the buffer there: the packet's own
  // tailroom; one under the packet is refused.
  ASSERT_TRUE(B.addAt(Frame, 60, 64, 100));
  EXPECT_EQ(B.bufferSize(1), 164u);
  B.prepareContext(1, C);
  EXPECT_EQ(C.buffer_end - C.data, 100u);
  EXPECT_FALSE(B.addAt(Frame, 60, 64, 59));
}

TEST(Packets, ExternalPacketsStayInPlaceBesideCopiedOnes) {
  PacketBatch B(64);
  B.reserve(2);
  uint8_t Copied[60] = {1};
  std::vector<uint8_t> Mbuf(512, 0xee);
  Mbuf[128] = 9;
  ASSERT_TRUE(B.add(Copied, 60));
  B.addExternal(Mbuf.data(), uint32_t(Mbuf.size()), 128, 100);
  ASSERT_EQ(B.size(), 2u);
  EXPECT_FALSE(B.isExternal(0));
  EXPECT_TRUE(B.isExternal(1));
  EXPECT_EQ(B.data(1), Mbuf.data() + 128);
  EXPECT_EQ(B.bufferSize(1), 512u);
  // The program's context spans the caller's buffer: 128 bytes of
  // headroom, the rest tailroom.
  platform::XdpRuntimeContext C;
  B.prepareContext(1, C);
  EXPECT_EQ(C.buffer_start, reinterpret_cast<uint64_t>(Mbuf.data()));
  EXPECT_EQ(C.buffer_end, reinterpret_cast<uint64_t>(Mbuf.data() + 512));
  EXPECT_EQ(C.data_end - C.data, 100u);
  C.data -= 4; // adjust_head(-4): in place
  B.finish(1, C, 3);
  EXPECT_EQ(B.offset(1), 124u);
  EXPECT_EQ(B.length(1), 104u);
  // Outcomes past the caller's buffer are refused.
  EXPECT_FALSE(B.setOutcome(1, 500, 100, 2, 0));
  EXPECT_TRUE(B.setOutcome(1, 0, 512, 2, 0));
  EXPECT_EQ(B.data(0)[0], 1);
}

TEST(Packets, BurstOfExternalPacketsAndResetReuseOneBatch) {
  // A batch reused for bursts of different sizes (the C API's): reset
  // takes the new stride, a burst added in place has each packet's bounds
  // and a zero outcome, and a later copy still gets a whole stride.
  PacketBatch B(1500);
  std::vector<uint8_t> Mem(4 * 1024, 0);
  B.reset(64);
  EXPECT_EQ(B.maxLen(), 64u);
  EXPECT_EQ(B.stride(), (runtime::XdpHeadroom + 64 + runtime::XdpTailroom + 63) & ~size_t(63));
  const uint32_t Stride = uint32_t(B.stride());
  B.reserve(3, /*Copies=*/false);
  for (size_t I = 0; I < 3; ++I)
    B.addExternal(Mem.data() + I * Stride, Stride, runtime::XdpHeadroom, uint32_t(40 + I));
  ASSERT_EQ(B.size(), 3u);
  for (size_t I = 0; I < 3; ++I) {
    EXPECT_TRUE(B.isExternal(I));
    EXPECT_EQ(B.data(I), Mem.data() + I * Stride + runtime::XdpHeadroom);
    EXPECT_EQ(B.bufferSize(I), Stride);
    EXPECT_EQ(B.length(I), 40 + I);
    EXPECT_EQ(B.verdict(I), 0u);
    EXPECT_EQ(B.redirectTarget(I), 0u);
  }
  platform::XdpRuntimeContext C;
  B.prepareContext(2, C);
  EXPECT_EQ(C.buffer_start, reinterpret_cast<uint64_t>(Mem.data() + 2 * Stride));
  EXPECT_EQ(C.data_end - C.data, 42u);
  // The next burst: larger packets, copied, after an in-place one.
  B.reset(1000);
  EXPECT_EQ(B.size(), 0u);
  uint8_t Frame[1000] = {7};
  ASSERT_TRUE(B.add(Frame, 1000));
  EXPECT_FALSE(B.isExternal(0));
  EXPECT_EQ(B.bufferSize(0), B.stride());
  EXPECT_EQ(B.data(0)[0], 7);
  EXPECT_FALSE(B.add(Frame, 1001)); // past the new MaxLen: refused before reading
}

TEST(Packets, CountsActions) {
  runtime::ActionStats S;
  S.count(1, 64);
  S.count(2, 100);
  S.count(2, 100);
  S.count(9, 64);
  EXPECT_EQ(S.Packets[2], 2u);
  EXPECT_EQ(S.Bytes[2], 200u);
  EXPECT_EQ(S.Packets[0], 1u); // the invalid verdict counts as ABORTED
  EXPECT_EQ(S.Invalid, 1u);
  EXPECT_EQ(S.total(), 4u);
  EXPECT_STREQ(runtime::xdpActionName(4), "XDP_REDIRECT");
  EXPECT_STREQ(runtime::xdpActionName(7), "XDP_UNKNOWN");
}

TEST(Packets, PcapRoundTripKeepsChosenActions) {
  PacketBatch B(64);
  uint8_t A[60], Z[60];
  for (int I = 0; I < 60; ++I)
    A[I] = uint8_t(I), Z[I] = uint8_t(255 - I);
  B.add(A, 60, 1000);
  B.add(Z, 60, 2000);
  platform::XdpRuntimeContext C;
  B.prepareContext(0, C);
  B.finish(0, C, 2);
  B.prepareContext(1, C);
  B.finish(1, C, 1);
  std::string Path = ::testing::TempDir() + "/rt-" + std::to_string(getpid()) + ".pcap";
  ASSERT_FALSE(runtime::writePcap(Path, B, 1u << 2));
  auto R = runtime::readPcap(Path);
  std::remove(Path.c_str());
  ASSERT_TRUE(R) << R.error().message();
  ASSERT_EQ(R->size(), 1u);
  EXPECT_EQ(R->length(0), 60u);
  EXPECT_EQ(R->data(0)[5], 5);
  EXPECT_EQ(R->timestampNs(0), 1000u);
}

TEST(Packets, ReadErrorsNameTheFile) {
  auto R = runtime::readPcap("/nonexistent/in.pcap");
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error().message().rfind("/nonexistent/in.pcap: ", 0), 0u);
}

// A file that ends inside a record is refused, naming the packet, whether
// it ends in the packet's bytes or in its 16-byte record header (nothing
// dropped silently); a pcapng file is named as such.
TEST(Packets, CutOffFilesAndPcapngAreRefused) {
  std::string Path = ::testing::TempDir() + "/cut-" + std::to_string(getpid()) + ".pcap";
  auto Write = [&](const std::vector<uint8_t> &Bytes) {
    std::FILE *F = std::fopen(Path.c_str(), "wb");
    ASSERT_NE(F, nullptr);
    ASSERT_EQ(std::fwrite(Bytes.data(), 1, Bytes.size(), F), Bytes.size());
    std::fclose(F);
  };
  auto Le = [](std::vector<uint8_t> &B, uint32_t V) {
    for (int I = 0; I < 4; ++I)
      B.push_back(uint8_t(V >> (8 * I)));
  };
  std::vector<uint8_t> File;
  for (uint32_t V : {0xa1b2c3d4u, 0x00040002u, 0u, 0u, 65535u, 1u})
    Le(File, V);
  for (uint32_t V : {1u, 0u, 60u, 60u})
    Le(File, V);
  File.resize(File.size() + 60, 0xab);
  Write(File);
  auto R = runtime::readPcap(Path);
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_EQ(R->size(), 1u);

  std::vector<uint8_t> Header = File;
  Header.resize(File.size() + 7, 0); // 7 bytes of the second record's header
  Write(Header);
  R = runtime::readPcap(Path);
  ASSERT_FALSE(R);
  EXPECT_NE(R.error().message().find("the record of packet 2 is cut off by the end of the file "
                                     "(7 of 16 header bytes)"),
            std::string::npos)
      << R.error().message();

  std::vector<uint8_t> Bytes(File.begin(), File.end() - 10);
  Write(Bytes);
  R = runtime::readPcap(Path);
  ASSERT_FALSE(R);
  EXPECT_NE(R.error().message().find("packet 1 is cut off by the end of the file"),
            std::string::npos);

  std::vector<uint8_t> Ng;
  for (uint32_t V : {0x0a0d0d0au, 28u, 0x1a2b3c4du, 0x00000001u, 0xffffffffu, 0xffffffffu, 28u})
    Le(Ng, V);
  Write(Ng);
  R = runtime::readPcap(Path);
  std::remove(Path.c_str());
  ASSERT_FALSE(R);
  EXPECT_NE(R.error().message().find("a pcapng capture: only pcap is read"), std::string::npos);
}

} // namespace

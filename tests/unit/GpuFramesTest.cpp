// SPDX-License-Identifier: Apache-2.0
//
// The GPU back end's copy path without a GPU: how a batch's packets are laid
// out in the frames the GPU gets (GpuExecutor::copyIntoFrames) and how its
// verdicts come back (takeOutcomes). Each packet keeps its own room: its
// headroom (the offset the batch has it at, at most XDP's) and, where its
// buffer ends before a frame's, that end (PacketBatch::addAt's cap).

#include "../../exec/lib/GpuExecutor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

using namespace ebpfgpu;
using runtime::PacketBatch;

TEST(GpuFrames, CopiesKeepEachPacketsOwnRoom) {
  PacketBatch B(100);
  uint8_t A[60], C[100];
  std::memset(A, 0xaa, sizeof(A));
  std::memset(C, 0xcc, sizeof(C));
  ASSERT_TRUE(B.add(A, 60));                // XDP's room
  ASSERT_TRUE(B.addAt(C, 100, 128, 120));   // 128 of headroom, 20 of tailroom
  std::vector<ebpfgpu_packet_desc> D(2);
  std::vector<uint8_t> Frames(exec::gpu::GpuExecutor::frameBytes(B), 0);
  size_t Used = exec::gpu::GpuExecutor::copyIntoFrames(B, D.data(), Frames.data(), nullptr, 0);
  EXPECT_EQ(Used, Frames.size());
  EXPECT_EQ(D[0].buffer, 0u);
  EXPECT_EQ(D[0].data_offset, runtime::XdpHeadroom);
  EXPECT_EQ(D[0].length, 60u);
  EXPECT_EQ(D[0].buffer_size, 576u); // 256 + 60 + 256, rounded up to 64
  EXPECT_EQ(D[1].buffer, 576u);      // frames stay a whole frame apart
  EXPECT_EQ(D[1].data_offset, 128u);
  EXPECT_EQ(D[1].buffer_size, 128u + 120u);
  EXPECT_EQ(Frames[D[1].buffer + D[1].data_offset], 0xcc);
  EXPECT_EQ(Frames[D[1].buffer + D[1].data_offset + 99], 0xcc);
  EXPECT_EQ(Frames[D[0].buffer + D[0].data_offset + 59], 0xaa);

  // The GPU's outcome: packet 1 pushed 4 bytes in front and wrote them.
  std::vector<ebpfgpu_verdict> V(2);
  V[0] = ebpfgpu_verdict{2, runtime::XdpHeadroom, 60, 0};
  V[1] = ebpfgpu_verdict{3, 124, 104, 0};
  std::memset(&Frames[D[1].buffer + 124], 0x81, 4);
  ASSERT_FALSE(exec::gpu::GpuExecutor::takeOutcomes(B, V.data(), Frames.data(), false));
  EXPECT_EQ(B.verdict(1), 3u);
  EXPECT_EQ(B.offset(1), 124u);
  EXPECT_EQ(B.length(1), 104u);
  EXPECT_EQ(B.data(1)[0], 0x81);
  EXPECT_EQ(B.data(1)[4], 0xcc);
  EXPECT_EQ(B.length(0), 60u);

  // An outcome past the packet's own buffer is an error, not a write.
  V[1] = ebpfgpu_verdict{2, 128, 121, 0};
  EXPECT_TRUE(exec::gpu::GpuExecutor::takeOutcomes(B, V.data(), Frames.data(), false));
}

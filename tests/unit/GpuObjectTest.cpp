// SPDX-License-Identifier: Apache-2.0
//
// The .gpu.o container: what is written is read back; damaged or foreign
// files are refused with a reason.

#include "ebpf-gpu/Loader/GpuObject.h"

#include <gtest/gtest.h>

using namespace ebpfgpu;

namespace {

loader::GpuObjectSpec sampleSpec() {
  loader::GpuObjectSpec S;
  S.Program = "xdp_fw";
  S.Section = "xdp";
  S.Platform = "xdp";
  S.Kernel = "ebpfgpu_xdp_batch";
  S.Target = "sm_70";
  S.StackBytes = 40;
  S.Helpers = {"ktime_get_ns", "redirect"};
  loader::GpuMapSpec M;
  M.Name = ".rodata";
  M.Type = 2;
  M.KeySize = 4;
  M.ValueSize = 6;
  M.MaxEntries = 1;
  M.Flags = 128;
  M.Origin = "data";
  M.DataGlobal = "ebpfgpu_data__rodata";
  S.Maps.push_back(M);
  S.Ptx = ".version 6.0\n.target sm_70\n";
  S.Btf = {0x9f, 0xeb, 1, 0};
  return S;
}

TEST(GpuObject, RoundTrips) {
  std::vector<uint8_t> Bytes = loader::writeGpuObject(sampleSpec());
  auto R = loader::readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_EQ(R->Program, "xdp_fw");
  EXPECT_EQ(R->Kernel, "ebpfgpu_xdp_batch");
  EXPECT_EQ(R->StackBytes, 40u);
  EXPECT_EQ(R->Helpers, (std::vector<std::string>{"ktime_get_ns", "redirect"}));
  ASSERT_EQ(R->Maps.size(), 1u);
  EXPECT_EQ(R->Maps[0].Name, ".rodata");
  EXPECT_EQ(R->Maps[0].Flags, 128u);
  EXPECT_EQ(R->Maps[0].DataGlobal, "ebpfgpu_data__rodata");
  EXPECT_EQ(R->Maps[0].ObjectGlobal, "");
  EXPECT_EQ(R->Ptx, sampleSpec().Ptx);
  EXPECT_EQ(R->Btf, sampleSpec().Btf);
}

TEST(GpuObject, RefusesDamagedFiles) {
  std::vector<uint8_t> Bytes = loader::writeGpuObject(sampleSpec());
  for (size_t Len = 0; Len < Bytes.size(); Len += 7) {
    auto R = loader::readGpuObjectMemory(Bytes.data(), Len, "t.gpu.o");
    EXPECT_FALSE(R) << "accepted a file cut to " << Len << " bytes";
  }
  std::vector<uint8_t> Text = {'h', 'i'};
  auto R = loader::readGpuObjectMemory(Text.data(), Text.size(), "t.gpu.o");
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error().message(), "t.gpu.o: not an ELF file");
}

} // namespace

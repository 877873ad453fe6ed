// SPDX-License-Identifier: Apache-2.0
//
// The .gpu.o container: what is written is read back; damaged or foreign
// files are refused with a reason.

#include "ebpf-gpu/Abi/GpuObject.h"

#include <gtest/gtest.h>

using namespace ebpfgpu;
// Not `abi::`: <cxxabi.h> (gtest) makes a global `abi` too.
using namespace ebpfgpu::abi;

namespace {

GpuObjectSpec sampleSpec() {
  GpuObjectSpec S;
  S.Program = "xdp_fw";
  S.Section = "xdp";
  S.Platform = platform::PlatformKind::Xdp;
  S.Kernel = "ebpfgpu_xdp_batch";
  S.Target = "sm_70";
  S.StackBytes = 40;
  S.Helpers = {"ktime_get_ns", "redirect"};
  platform::MapSpec M;
  M.Name = ".rodata";
  M.Type = 2;
  M.KeySize = 4;
  M.ValueSize = 6;
  M.MaxEntries = 1;
  M.Flags = 128;
  M.Origin = platform::MapOrigin::GlobalData;
  M.DataGlobal = "ebpfgpu_data__rodata";
  S.Maps.push_back(M);
  S.Ptx = ".version 6.0\n.target sm_70\n";
  S.Btf = {0x9f, 0xeb, 1, 0};
  return S;
}

TEST(GpuObject, RoundTrips) {
  std::vector<uint8_t> Bytes = writeGpuObject(sampleSpec());
  auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_EQ(R->Program, "xdp_fw");
  EXPECT_EQ(R->Kernel, "ebpfgpu_xdp_batch");
  EXPECT_EQ(R->StackBytes, 40u);
  EXPECT_EQ(R->Helpers, (std::vector<std::string>{"ktime_get_ns", "redirect"}));
  ASSERT_EQ(R->Maps.size(), 1u);
  EXPECT_EQ(R->Maps[0].Name, ".rodata");
  EXPECT_EQ(R->Maps[0].Flags, 128u);
  EXPECT_EQ(R->Maps[0].Origin, platform::MapOrigin::GlobalData);
  EXPECT_EQ(R->Maps[0].DataGlobal, "ebpfgpu_data__rodata");
  EXPECT_EQ(R->Maps[0].ObjectGlobal, "");
  EXPECT_EQ(R->Ptx, sampleSpec().Ptx);
  EXPECT_EQ(R->Btf, sampleSpec().Btf);
  EXPECT_FALSE(R->PacketsReadOnly);
}

TEST(GpuObject, RoundTripsReadOnlyPackets) {
  GpuObjectSpec S = sampleSpec();
  S.PacketsReadOnly = true;
  std::vector<uint8_t> Bytes = writeGpuObject(S);
  auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_TRUE(R->PacketsReadOnly);
}

TEST(GpuObject, RoundTripsInnerMapTables) {
  GpuObjectSpec S = sampleSpec();
  platform::MapSpec M;
  M.Name = "tenants";
  M.Type = EBPFGPU_MAP_ARRAY_OF_MAPS;
  M.KeySize = M.ValueSize = 4;
  M.MaxEntries = 4;
  M.Origin = platform::MapOrigin::BtfDefined;
  M.ObjectGlobal = "ebpfgpu_map_tenants";
  M.InnerMaps = {"gold", "silver"};
  M.ProgramSlots = {{0, 1}, {1, 2}};
  S.Maps.push_back(M);
  std::vector<uint8_t> Bytes = writeGpuObject(S);
  auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  ASSERT_EQ(R->Maps.size(), 2u);
  EXPECT_EQ(R->Maps[1].InnerMaps, (std::vector<std::string>{"gold", "silver"}));
  EXPECT_EQ(R->Maps[1].ProgramSlots, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 1}, {1, 2}}));
  EXPECT_TRUE(R->Maps[0].InnerMaps.empty());
  EXPECT_EQ(R->Maps[1].Origin, platform::MapOrigin::BtfDefined);
}

// map_extra (a bloom filter's hash functions) is carried where it is not
// 0, and absent otherwise, so that other maps' lines stay as they were.
TEST(GpuObject, RoundTripsMapExtra) {
  GpuObjectSpec S = sampleSpec();
  platform::MapSpec M;
  M.Name = "seen";
  M.Type = EBPFGPU_MAP_BLOOM_FILTER;
  M.ValueSize = 8;
  M.MaxEntries = 100;
  M.Extra = 3;
  M.Origin = platform::MapOrigin::BtfDefined;
  M.ObjectGlobal = "ebpfgpu_map_seen";
  S.Maps.push_back(M);
  std::vector<uint8_t> Bytes = writeGpuObject(S);
  std::string Text(Bytes.begin(), Bytes.end());
  EXPECT_NE(Text.find("data= extra=3\n"), std::string::npos);
  EXPECT_EQ(Text.find("extra=", Text.find("extra=") + 1), std::string::npos);
  auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  ASSERT_EQ(R->Maps.size(), 2u);
  EXPECT_EQ(R->Maps[0].Extra, 0u);
  EXPECT_EQ(R->Maps[1].Extra, 3u);
  EXPECT_EQ(R->Maps[1].KeySize, 0u);
}

TEST(GpuObject, RefusesDamagedFiles) {
  std::vector<uint8_t> Bytes = writeGpuObject(sampleSpec());
  for (size_t Len = 0; Len < Bytes.size(); Len += 7) {
    auto R = readGpuObjectMemory(Bytes.data(), Len, "t.gpu.o");
    EXPECT_FALSE(R) << "accepted a file cut to " << Len << " bytes";
  }
  std::vector<uint8_t> Text = {'h', 'i'};
  auto R = readGpuObjectMemory(Text.data(), Text.size(), "t.gpu.o");
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error().message(), "t.gpu.o: not an ELF file");
}

std::vector<uint8_t> replaceText(std::vector<uint8_t> Bytes, const std::string &From,
                                 const std::string &To) {
  std::string S(Bytes.begin(), Bytes.end());
  size_t At = S.find(From);
  EXPECT_NE(At, std::string::npos) << From;
  if (At != std::string::npos)
    S.replace(At, From.size(), To);
  return std::vector<uint8_t>(S.begin(), S.end());
}

TEST(GpuObject, SealDetectsChanges) {
  GpuObjectSpec Spec = sampleSpec();
  Spec.Verified = false;
  std::vector<uint8_t> Bytes = writeGpuObject(Spec);
  ASSERT_TRUE(readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o"));
  // Claiming verification that did not happen, or changing the code, is seen.
  for (auto [From, To] : {std::pair<std::string, std::string>{"verified no", "verified ye"},
                          {".target sm_70", ".target sm_75"}}) {
    std::vector<uint8_t> Bad = replaceText(Bytes, From, To);
    auto R = readGpuObjectMemory(Bad.data(), Bad.size(), "x.gpu.o");
    ASSERT_FALSE(R) << "accepted a change of '" << From << "'";
    EXPECT_EQ(R.error().message(), "x.gpu.o: the seal does not match the contents: the object "
                                   "was changed after compilation");
  }
  std::vector<uint8_t> NoSeal = replaceText(Bytes, "seal ", "ssal ");
  auto R = readGpuObjectMemory(NoSeal.data(), NoSeal.size(), "x.gpu.o");
  ASSERT_FALSE(R);
}

TEST(GpuObject, WritesOriginsAsWordsAndRefusesOthers) {
  GpuObjectSpec S = sampleSpec();
  S.Maps[0].Origin = platform::MapOrigin::Legacy;
  std::vector<uint8_t> Bytes = writeGpuObject(S);
  std::string Text(Bytes.begin(), Bytes.end());
  EXPECT_NE(Text.find(" origin=legacy "), std::string::npos);
  auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_EQ(R->Maps[0].Origin, platform::MapOrigin::Legacy);
  std::vector<uint8_t> Bad = replaceText(Bytes, " origin=legacy ", " origin=legaci ");
  R = readGpuObjectMemory(Bad.data(), Bad.size(), "x.gpu.o");
  ASSERT_FALSE(R);
  EXPECT_NE(R.error().message().find("bad value for map attribute 'origin'"), std::string::npos)
      << R.error().message();
}

TEST(GpuObject, WritesThePlatformAsAWordAndRefusesOthers) {
  GpuObjectSpec S = sampleSpec();
  S.Platform = platform::PlatformKind::Raw;
  std::vector<uint8_t> Bytes = writeGpuObject(S);
  auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_EQ(R->Platform, platform::PlatformKind::Raw);
  std::vector<uint8_t> Bad = replaceText(Bytes, "\nplatform raw\n", "\nplatform tc_\n");
  R = readGpuObjectMemory(Bad.data(), Bad.size(), "x.gpu.o");
  ASSERT_FALSE(R);
  EXPECT_NE(R.error().message().find("unknown platform 'tc_'"), std::string::npos)
      << R.error().message();
}

} // namespace

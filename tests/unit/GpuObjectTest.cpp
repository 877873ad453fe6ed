// SPDX-License-Identifier: Apache-2.0
//
// The .gpu.o container: what is written is read back; damaged or foreign
// files are refused with a reason.

#include "../../abi/lib/GpuObjectMeta.h"

#include "ebpf-gpu/Abi/GpuObject.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

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
  EXPECT_NE(Text.find("data= extra=3 program_writes=keys,values\n"), std::string::npos);
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

// The metadata's schema: every row is written from a spec that sets every
// field, and every field reads back as written.
TEST(GpuObjectSchema, RoundTripsEveryField) {
  GpuObjectSpec S = sampleSpec(); // its text fields set, and:
  S.Platform = platform::PlatformKind::Raw;
  S.Verified = true;
  S.PacketsReadOnly = true;
  S.SystemScopeAtomics = true;
  platform::MapSpec M;
  static_cast<platform::MapShape &>(M) = {EBPFGPU_MAP_HASH_OF_MAPS, 8, 4, 1000, 1, 7};
  M.Name = "outer";
  M.Origin = platform::MapOrigin::Legacy;
  M.ObjectGlobal = "ebpfgpu_map_outer";
  M.DataGlobal = "ebpfgpu_data_outer";
  M.ProgramSlots = {{3, 1}, {9, 2}};
  M.InnerMaps = {"a", "b"};
  M.BtfKeyTypeId = 11;
  M.BtfValueTypeId = 12;
  M.ProgramChangesKeys = false;
  M.SpinLockOff = 20;
  S.Maps = {M};
  std::string Meta = metaText(S);
  for (const MetaField &F : metaSchema()) {
    std::string Written = F.Line.empty() ? "\n" + F.Key + " " : " " + F.Key + "=";
    EXPECT_NE(Meta.find(Written), std::string::npos) << "'" << F.Key << "' not written:\n" << Meta;
  }
  std::vector<uint8_t> Bytes = writeGpuObject(S);
  auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_EQ(R->Program, S.Program);
  EXPECT_EQ(R->Section, S.Section);
  EXPECT_EQ(R->Platform, S.Platform);
  EXPECT_EQ(R->Kernel, S.Kernel);
  EXPECT_EQ(R->Target, S.Target);
  EXPECT_EQ(R->StackBytes, S.StackBytes);
  EXPECT_EQ(R->Verified, S.Verified);
  EXPECT_EQ(R->PacketsReadOnly, S.PacketsReadOnly);
  EXPECT_EQ(R->SystemScopeAtomics, S.SystemScopeAtomics);
  EXPECT_EQ(R->RuntimeAbi, uint32_t(EBPFGPU_RUNTIME_ABI));
  EXPECT_EQ(R->Helpers, S.Helpers);
  ASSERT_EQ(R->Maps.size(), 1u);
  const platform::MapSpec &G = R->Maps[0];
  auto Shape = [](const platform::MapShape &X) {
    return std::make_tuple(X.Type, X.KeySize, X.ValueSize, X.MaxEntries, X.Flags, X.Extra,
                           X.SpinLockOff);
  };
  EXPECT_EQ(Shape(G), Shape(M));
  EXPECT_EQ(G.Name, M.Name);
  EXPECT_EQ(G.Origin, M.Origin);
  EXPECT_EQ(G.ObjectGlobal, M.ObjectGlobal);
  EXPECT_EQ(G.DataGlobal, M.DataGlobal);
  EXPECT_EQ(G.ProgramSlots, M.ProgramSlots);
  EXPECT_EQ(G.InnerMaps, M.InnerMaps);
  EXPECT_EQ(G.BtfKeyTypeId, M.BtfKeyTypeId);
  EXPECT_EQ(G.BtfValueTypeId, M.BtfValueTypeId);
  EXPECT_EQ(G.ProgramChangesKeys, M.ProgramChangesKeys);
  EXPECT_EQ(G.ProgramWritesValues, M.ProgramWritesValues);
  EXPECT_EQ(writeGpuObject(*R), Bytes);
}

TEST(GpuObjectSchema, RowsAreUniqueAndOfKnownFormats) {
  std::set<std::pair<std::string, std::string>> Seen;
  for (const MetaField &F : metaSchema()) {
    EXPECT_TRUE(Seen.insert({F.Line, F.Key}).second) << F.Key;
    EXPECT_GE(F.Since, 1u) << F.Key;
    EXPECT_LE(F.Since, GpuObjectFormat) << F.Key;
    EXPECT_FALSE(F.Type.empty()) << F.Key;
  }
}

// Format 3: a map's BTF type ids, written where not 0, read back; a file
// of format 2 may not carry them.
TEST(GpuObjectSchema, CarriesBtfIdsFromFormat3) {
  GpuObjectSpec S = sampleSpec();
  S.Maps[0].BtfKeyTypeId = 5;
  S.Maps[0].BtfValueTypeId = 9;
  std::string Text = metaText(S);
  EXPECT_NE(Text.find(" btf_key=5 btf_value=9"), std::string::npos) << Text;
  std::vector<uint8_t> Bytes = writeGpuObject(S);
  auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_EQ(R->Maps[0].BtfKeyTypeId, 5u);
  EXPECT_EQ(R->Maps[0].BtfValueTypeId, 9u);
  S.Maps[0].BtfKeyTypeId = S.Maps[0].BtfValueTypeId = 0;
  EXPECT_EQ(metaText(S).find("btf_"), std::string::npos);
  std::vector<uint8_t> Old = gpuObjectImage(
      "ebpf-gpu object 1\nformat 2\nprogram p\nplatform xdp\nkernel k\nruntime_abi " +
          std::to_string(EBPFGPU_RUNTIME_ABI) +
          "\nmap name=m type=2 key=4 value=8 max_entries=1 flags=0 origin=btf btf_key=5\n",
      ".version 6.0\n", {});
  R = readGpuObjectMemory(Old.data(), Old.size(), "old.gpu.o");
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error().message(),
            "old.gpu.o: map attribute 'btf_key' is of format 3, the object says format 2");
}

// Format 4: what the programs may change of each map (what decides whether
// it can be copied to several GPUs), every combination read back; a file
// of format 3 knows nothing of it, and its maps count as changed.
TEST(GpuObjectSchema, CarriesProgramWritesFromFormat4) {
  GpuObjectSpec S = sampleSpec();
  for (int Keys = 0; Keys < 2; ++Keys)
    for (int Values = 0; Values < 2; ++Values) {
      S.Maps[0].ProgramChangesKeys = Keys;
      S.Maps[0].ProgramWritesValues = Values;
      std::vector<uint8_t> Bytes = writeGpuObject(S);
      auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
      ASSERT_TRUE(R) << R.error().message();
      EXPECT_EQ(R->Maps[0].ProgramChangesKeys, bool(Keys));
      EXPECT_EQ(R->Maps[0].ProgramWritesValues, bool(Values));
    }
  S.Maps[0].ProgramChangesKeys = S.Maps[0].ProgramWritesValues = false;
  EXPECT_NE(metaText(S).find(" program_writes=none"), std::string::npos) << metaText(S);
  std::vector<uint8_t> Old = gpuObjectImage(
      "ebpf-gpu object 1\nformat 3\nprogram p\nplatform xdp\nkernel k\nruntime_abi " +
          std::to_string(EBPFGPU_RUNTIME_ABI) +
          "\nmap name=m type=2 key=4 value=8 max_entries=1 flags=0 origin=btf\n",
      ".version 6.0\n", {});
  auto R = readGpuObjectMemory(Old.data(), Old.size(), "old.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_TRUE(R->Maps[0].ProgramChangesKeys);
  EXPECT_TRUE(R->Maps[0].ProgramWritesValues);
}

// Format 5: a .gpu.o compiled with system-scope atomics says so (what lets
// its written maps live once for several GPUs); the default says nothing,
// and a file of format 4 may not say it.
TEST(GpuObjectSchema, CarriesSystemScopeAtomicsFromFormat5) {
  GpuObjectSpec S = sampleSpec();
  for (bool System : {false, true}) {
    S.SystemScopeAtomics = System;
    EXPECT_EQ(metaText(S).find("\natomics system\n") != std::string::npos, System);
    std::vector<uint8_t> Bytes = writeGpuObject(S);
    auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "x.gpu.o");
    ASSERT_TRUE(R) << R.error().message();
    EXPECT_EQ(R->SystemScopeAtomics, System);
  }
  std::vector<uint8_t> Old = gpuObjectImage(
      "ebpf-gpu object 1\nformat 4\nprogram p\nplatform xdp\nkernel k\nruntime_abi " +
          std::to_string(EBPFGPU_RUNTIME_ABI) + "\natomics system\n",
      ".version 6.0\n", {});
  auto R = readGpuObjectMemory(Old.data(), Old.size(), "old.gpu.o");
  ASSERT_FALSE(R);
  EXPECT_NE(R.error().message().find("'atomics' is of format 5"), std::string::npos)
      << R.error().message();
}

// Format 1: the metadata as ebpf-gpu-cc wrote it before the format line
// (the port filter's and a bloom filter's maps), still read.
TEST(GpuObjectSchema, ReadsFormat1) {
  std::string Meta = "ebpf-gpu object 1\nprogram xdp_fw\nsection xdp\nplatform xdp\n"
                     "kernel ebpfgpu_xdp_batch\ntarget sm_70\nstack 40\nverified yes\n"
                     "runtime_abi " +
                     std::to_string(EBPFGPU_RUNTIME_ABI) +
                     "\npackets read-only\nhelper ktime_get_ns\n"
                     "map name=.rodata type=2 key=4 value=6 max_entries=1 flags=128 origin=data "
                     "object= data=ebpfgpu_data__rodata\n"
                     "map name=seen type=30 key=0 value=8 max_entries=100 flags=0 origin=btf "
                     "object=ebpfgpu_map_seen data= extra=3\n";
  std::vector<uint8_t> Bytes = gpuObjectImage(Meta, ".version 6.0\n", {});
  auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "old.gpu.o");
  ASSERT_TRUE(R) << R.error().message();
  EXPECT_EQ(R->Program, "xdp_fw");
  EXPECT_EQ(R->StackBytes, 40u);
  EXPECT_TRUE(R->Verified);
  EXPECT_TRUE(R->PacketsReadOnly);
  EXPECT_EQ(R->Helpers, std::vector<std::string>{"ktime_get_ns"});
  ASSERT_EQ(R->Maps.size(), 2u);
  EXPECT_EQ(R->Maps[0].Origin, platform::MapOrigin::GlobalData);
  EXPECT_EQ(R->Maps[0].DataGlobal, "ebpfgpu_data__rodata");
  EXPECT_EQ(R->Maps[0].Flags, 128u);
  EXPECT_EQ(R->Maps[1].Extra, 3u);
  EXPECT_EQ(R->Maps[1].ObjectGlobal, "ebpfgpu_map_seen");
  // Written again, it is the current format with the same lines; each map
  // says what a file of format 3 or older could not: changed, as unknown.
  std::string Want = Meta.substr(Meta.find('\n') + 1);
  for (size_t At = Want.find("\nmap "); At != std::string::npos; At = Want.find("\nmap ", At + 1))
    Want.insert(Want.find('\n', At + 1), " program_writes=keys,values");
  std::string Again = metaText(*R);
  EXPECT_EQ(Again, "ebpf-gpu object 1\nformat " + std::to_string(GpuObjectFormat) + "\n" + Want);
}

TEST(GpuObjectSchema, RefusesFormatsItDoesNotRead) {
  std::string Rest = "\nprogram p\nplatform xdp\nkernel k\nruntime_abi " +
                     std::to_string(EBPFGPU_RUNTIME_ABI) + "\n";
  std::string Next = std::to_string(GpuObjectFormat + 1);
  for (auto [Format, Why] : {std::pair<std::string, std::string>{
                                 Next, "metadata of format " + Next + "; this loader reads formats 1 to " +
                                           std::to_string(GpuObjectFormat) +
                                           ": load it with a newer ebpf-gpu"},
                             {"0", "bad format '0'"},
                             {"two", "bad format 'two'"}}) {
    std::vector<uint8_t> Bytes =
        gpuObjectImage("ebpf-gpu object 1\nformat " + Format + Rest, ".version 6.0\n", {});
    auto R = readGpuObjectMemory(Bytes.data(), Bytes.size(), "f.gpu.o");
    ASSERT_FALSE(R) << Format;
    EXPECT_EQ(R.error().message(), "f.gpu.o: " + Why);
  }
  // The format line is the second line or none.
  std::vector<uint8_t> Late = gpuObjectImage(
      "ebpf-gpu object 1" + Rest + "format " + std::to_string(GpuObjectFormat) + "\n", ".v\n", {});
  auto R = readGpuObjectMemory(Late.data(), Late.size(), "f.gpu.o");
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error().message(), "f.gpu.o: unknown metadata 'format'");
}

} // namespace

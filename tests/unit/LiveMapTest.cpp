// SPDX-License-Identifier: Apache-2.0
//
// runtime::liveMap(): each rule by which a map's spec becomes the map the
// back ends, the daemon and the C API describe (global data, read-only,
// BTF ids), and on a real object the BTF ids the daemon once looked up by
// name in the object's BTF.

#include "ebpf-gpu/Loader/BtfFormat.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Runtime/BatchExecutor.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ebpfgpu;

namespace {

platform::MapSpec spec(const std::string &Name, platform::MapOrigin Origin, platform::MapShape S) {
  platform::MapSpec M;
  static_cast<platform::MapShape &>(M) = S;
  M.Name = Name;
  M.Origin = Origin;
  return M;
}

TEST(LiveMap, AMapKeepsItsShapeAndBtfIds) {
  platform::MapSpec M =
      spec("seen", platform::MapOrigin::BtfDefined, {EBPFGPU_MAP_BLOOM_FILTER, 0, 8, 100, 0, 3});
  M.BtfValueTypeId = 7;
  runtime::MapInfo I = runtime::liveMap(M);
  EXPECT_EQ(I.Name, "seen");
  EXPECT_EQ(I.Type, uint32_t(EBPFGPU_MAP_BLOOM_FILTER));
  EXPECT_EQ(I.KeySize, 0u);
  EXPECT_EQ(I.ValueSize, 8u);
  EXPECT_EQ(I.MaxEntries, 100u);
  EXPECT_EQ(I.Extra, 3u);
  EXPECT_FALSE(I.GlobalData);
  EXPECT_FALSE(I.ReadOnly);
  EXPECT_EQ(I.BtfKeyTypeId, 0u);
  EXPECT_EQ(I.BtfValueTypeId, 7u);
}

TEST(LiveMap, AMapTheProgramMayNotWriteIsStillTheOperators) {
  runtime::MapInfo I = runtime::liveMap(spec("cfg", platform::MapOrigin::Legacy,
                                             {EBPFGPU_MAP_ARRAY, 4, 4, 8,
                                              platform::MapFlagReadOnlyProg, 0}));
  EXPECT_EQ(I.Flags, platform::MapFlagReadOnlyProg);
  EXPECT_FALSE(I.ReadOnly);
}

TEST(LiveMap, GlobalDataIsAnArrayOfOneEntry) {
  // A format-1 .gpu.o's data section: the section's own numbers.
  platform::MapSpec D = spec(".data.ctl", platform::MapOrigin::GlobalData, {0, 0, 12, 0, 0, 5});
  D.BtfValueTypeId = 42;
  runtime::MapInfo I = runtime::liveMap(D);
  EXPECT_TRUE(I.GlobalData);
  EXPECT_EQ(I.Type, uint32_t(EBPFGPU_MAP_ARRAY));
  EXPECT_EQ(I.KeySize, 4u);
  EXPECT_EQ(I.ValueSize, 12u);
  EXPECT_EQ(I.MaxEntries, 1u);
  EXPECT_EQ(I.Extra, 0u);
  EXPECT_FALSE(I.ReadOnly); // .data: the operator may write it
  EXPECT_EQ(I.BtfValueTypeId, 42u);
}

TEST(LiveMap, RodataIsReadOnly) {
  runtime::MapInfo I = runtime::liveMap(spec(".rodata", platform::MapOrigin::GlobalData,
                                             {EBPFGPU_MAP_ARRAY, 4, 6, 1,
                                              platform::MapFlagReadOnlyProg, 0}));
  EXPECT_TRUE(I.GlobalData);
  EXPECT_TRUE(I.ReadOnly);
  EXPECT_EQ(I.Flags, platform::MapFlagReadOnlyProg);
}

// The object reader's ids are those the daemon found by name before: the
// `.maps` variable's key and value, a data section's DATASEC.
TEST(LiveMap, BtfIdsOfARealObject) {
  auto Obj = object::readObjectFile(std::string(EBPF_GPU_SAMPLES_DIR) + "/xdp_config_count.o");
  ASSERT_TRUE(Obj) << Obj.error().message();
  auto Btf = loader::BtfTypes::read(Obj->Btf);
  ASSERT_TRUE(Btf) << Btf.error().message();
  unsigned Data = 0, Maps = 0;
  for (const object::MapSpec &M : Obj->Maps) {
    runtime::MapInfo I = runtime::liveMap(M);
    if (I.GlobalData) {
      ++Data;
      EXPECT_EQ(I.BtfKeyTypeId, 0u) << M.Name;
      EXPECT_NE(I.BtfValueTypeId, 0u) << M.Name;
      EXPECT_EQ(I.BtfValueTypeId, Btf->dataSection(M.Name)) << M.Name;
      EXPECT_EQ(I.ReadOnly, M.Name == ".rodata") << M.Name;
    } else {
      ++Maps;
      auto [K, V] = Btf->mapTypes(M.Name);
      EXPECT_NE(K, 0u) << M.Name;
      EXPECT_EQ(I.BtfKeyTypeId, K) << M.Name;
      EXPECT_EQ(I.BtfValueTypeId, V) << M.Name;
      EXPECT_EQ(Btf->sizeOf(K), I.KeySize) << M.Name;
      EXPECT_EQ(Btf->sizeOf(V), I.ValueSize) << M.Name;
    }
  }
  EXPECT_EQ(Data, 3u); // .rodata, .bss, .data.ctl
  EXPECT_EQ(Maps, 1u);
}

// A size set before load (libbpf's bpf_map__set_value_size) is not the
// type's: the map prints in hex, as libbpf creates it without BTF.
TEST(LiveMap, ASizeSetBeforeLoadDropsTheBtfIds) {
  object::ReadOptions Read;
  Read.ValueSizes = {{"proto_count", 16}};
  auto Obj = object::readObjectFile(std::string(EBPF_GPU_SAMPLES_DIR) + "/xdp_config_count.o",
                                    Read);
  ASSERT_TRUE(Obj) << Obj.error().message();
  auto M = std::find_if(Obj->Maps.begin(), Obj->Maps.end(),
                        [](const object::MapSpec &S) { return S.Name == "proto_count"; });
  ASSERT_NE(M, Obj->Maps.end());
  runtime::MapInfo I = runtime::liveMap(*M);
  EXPECT_EQ(I.ValueSize, 16u);
  EXPECT_EQ(I.BtfKeyTypeId, 0u);
  EXPECT_EQ(I.BtfValueTypeId, 0u);
}

// Flags set before load (libbpf's bpf_map__set_map_flags) replace the
// object's and keep the BTF ids (the sizes are the type's); global data
// has its section's flags, and a name that is no map is refused.
TEST(LiveMap, FlagsSetBeforeLoadReplaceTheObjects) {
  const std::string Path = std::string(EBPF_GPU_SAMPLES_DIR) + "/xdp_config_count.o";
  object::ReadOptions Read;
  Read.MapFlags = {{"proto_count", 1}}; // BPF_F_NO_PREALLOC
  auto Obj = object::readObjectFile(Path, Read);
  ASSERT_TRUE(Obj) << Obj.error().message();
  auto M = std::find_if(Obj->Maps.begin(), Obj->Maps.end(),
                        [](const object::MapSpec &S) { return S.Name == "proto_count"; });
  ASSERT_NE(M, Obj->Maps.end());
  runtime::MapInfo I = runtime::liveMap(*M);
  EXPECT_EQ(I.Flags, 1u);
  EXPECT_NE(I.BtfValueTypeId, 0u);
  for (const char *Name : {".rodata", "no_such_map"}) {
    Read.MapFlags = {{Name, 0}};
    auto Bad = object::readObjectFile(Path, Read);
    ASSERT_FALSE(Bad) << Name;
    EXPECT_NE(Bad.error().message().find(std::string("map flags of '") + Name +
                                         "': the object has no map named"),
              std::string::npos)
        << Bad.error().message();
  }
}

} // namespace

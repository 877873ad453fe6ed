// SPDX-License-Identifier: Apache-2.0
//
// Object reader on the sample objects and on bad input.

#include "ebpf-gpu/Loader/BtfFormat.h"
#include "ebpf-gpu/Object/Object.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace ebpfgpu;

namespace {

std::string sample(const char *Name) { return std::string(EBPF_GPU_SAMPLES_DIR) + "/" + Name; }

std::vector<uint8_t> bytesOf(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(In), {});
}

TEST(Object, ReadsSeveralProgramsFromOneSection) {
  auto Obj = object::readObjectFile(sample("xdp_pass_drop.o"));
  ASSERT_TRUE(Obj) << Obj.error().message();
  ASSERT_EQ(Obj->Programs.size(), 2u);
  EXPECT_EQ(Obj->Programs[0].Name, "xdp_pass_all");
  EXPECT_EQ(Obj->Programs[1].Name, "xdp_drop_ipv6");
  EXPECT_EQ(Obj->Programs[1].Section, "xdp");
  EXPECT_EQ(Obj->License, "GPL");
  EXPECT_EQ(Obj->findProgram("xdp_drop_ipv6"), &Obj->Programs[1]);
  EXPECT_EQ(Obj->findProgram("xdp"), &Obj->Programs[0]);
  EXPECT_EQ(Obj->findProgram("nope"), nullptr);
}

TEST(Object, LinksSubprogramsAndGlobalData) {
  auto Obj = object::readObjectFile(sample("xdp_port_filter.o"));
  ASSERT_TRUE(Obj) << Obj.error().message();
  const object::ProgramSpec &P = Obj->Programs.at(0);
  ASSERT_EQ(P.Functions.size(), 2u);
  EXPECT_EQ(P.Functions[1].Name, "parse_flow");
  ASSERT_EQ(Obj->Maps.size(), 1u);
  EXPECT_EQ(Obj->Maps[0].Name, ".rodata");
  EXPECT_EQ(Obj->Maps[0].Origin, platform::MapOrigin::GlobalData);
  EXPECT_EQ(Obj->Maps[0].Flags, platform::MapFlagReadOnlyProg);
  EXPECT_EQ(Obj->Maps[0].InitialValue, (std::vector<uint8_t>{80, 0, 0xbb, 1, 53, 0}));
  // Line info names the C source.
  ASSERT_FALSE(P.Lines.empty());
  EXPECT_NE(P.Lines[0].File.find("xdp_port_filter.c"), std::string::npos);
  // Every local call now points inside the linked program.
  for (uint32_t Pc = 0; Pc < P.Insns.size(); ++Pc) {
    if (P.Insns[Pc].isLocalCall()) {
      EXPECT_LT(uint64_t(int64_t(Pc) + 1 + P.Insns[Pc].Imm), P.Insns.size());
    }
  }
}

TEST(Object, GlobalDataSetBeforeLoadAndItsVariables) {
  // xdp_port_filter's .rodata: three __u16 ports.
  object::ReadOptions Opts;
  Opts.InitialValues.push_back({".rodata", {0x16, 0, 0xbb, 1, 53, 0}});
  auto Obj = object::readObjectFile(sample("xdp_port_filter.o"), Opts);
  ASSERT_TRUE(Obj) << Obj.error().message();
  EXPECT_EQ(Obj->Maps[0].InitialValue, (std::vector<uint8_t>{0x16, 0, 0xbb, 1, 53, 0}));
  EXPECT_EQ(Obj->Maps[0].Variables, (std::vector<std::pair<std::string, uint64_t>>{
                                        {"blocked_tcp", 0}, {"blocked_udp", 4}}));

  Opts.InitialValues = {{".rodata", {1, 2}}};
  auto Short = object::readObjectFile(sample("xdp_port_filter.o"), Opts);
  ASSERT_FALSE(Short);
  EXPECT_NE(Short.error().message().find("initial value of '.rodata': 2 bytes for a section of 6"),
            std::string::npos)
      << Short.error().message();
  Opts.InitialValues = {{"ports", {1}}};
  auto NoSection = object::readObjectFile(sample("xdp_port_filter.o"), Opts);
  ASSERT_FALSE(NoSection);
  EXPECT_NE(NoSection.error().message().find("no global data section of that name"),
            std::string::npos);

  // Each variable at its symbol's offset (the BTF's are 0 in an object).
  auto Counts = object::readObjectFile(sample("xdp_config_count.o"));
  ASSERT_TRUE(Counts) << Counts.error().message();
  auto Bss = std::find_if(Counts->Maps.begin(), Counts->Maps.end(),
                          [](const object::MapSpec &M) { return M.Name == ".bss"; });
  ASSERT_NE(Bss, Counts->Maps.end());
  EXPECT_EQ(Bss->Variables, (std::vector<std::pair<std::string, uint64_t>>{
                                {"packets", 0}, {"dropped", 8}, {"traffic", 16}}));
}

const object::MapSpec *mapNamed(const object::ObjectSpec &Obj, const std::string &Name) {
  for (const object::MapSpec &M : Obj.Maps)
    if (M.Name == Name)
      return &M;
  return nullptr;
}

/// `M`'s initial bytes as the object's BTF prints them ("" without).
std::string dumpOf(const object::ObjectSpec &Obj, const object::MapSpec &M) {
  auto Btf = loader::BtfTypes::read(Obj.Btf);
  if (!Btf || !M.BtfValueTypeId)
    return "";
  return Btf->format(M.BtfValueTypeId, M.InitialValue.data(), M.InitialValue.size())
      .value_or("(unprintable)");
}

TEST(Object, GlobalDataBtfPlacedAsLibbpfDoes) {
  // The object's DATASECs have size 0 and every variable at 0; the
  // reader fills them in from the section and the symbols.
  auto Obj = object::readObjectFile(std::string(EBPF_GPU_UNIT_INPUTS_DIR) + "/global_resize.o");
  ASSERT_TRUE(Obj) << Obj.error().message();
  const object::MapSpec *Data = mapNamed(*Obj, ".data");
  ASSERT_TRUE(Data);
  EXPECT_EQ(dumpOf(*Obj, *Data), R"({"gen":7,"marks":[1,2,3]})");
  const object::MapSpec *NotArr = mapNamed(*Obj, ".data.notarr");
  ASSERT_TRUE(NotArr);
  EXPECT_EQ(dumpOf(*Obj, *NotArr), R"({"first":5,"last":6})");
}

TEST(Object, GlobalDataResizedAsLibbpfDoes) {
  object::ReadOptions Opts;
  Opts.ValueSizes = {{".data", 16}, {".bss", 72}, {".data.notarr", 20}};
  auto Obj = object::readObjectFile(std::string(EBPF_GPU_UNIT_INPUTS_DIR) + "/global_resize.o",
                                    Opts);
  ASSERT_TRUE(Obj) << Obj.error().message();
  // The last variable's array fills the section; the bytes are kept.
  const object::MapSpec *Data = mapNamed(*Obj, ".data");
  ASSERT_TRUE(Data);
  EXPECT_EQ(Data->ValueSize, 16u);
  EXPECT_EQ(Data->InitialValue, (std::vector<uint8_t>{7, 0, 0, 0, 1, 0, 2, 0, 3, 0, 0, 0, 0, 0,
                                                      0, 0}));
  EXPECT_EQ(dumpOf(*Obj, *Data), R"({"gen":7,"marks":[1,2,3,0,0,0]})");
  const object::MapSpec *Bss = mapNamed(*Obj, ".bss");
  ASSERT_TRUE(Bss);
  EXPECT_EQ(dumpOf(*Obj, *Bss), R"({"hits":0,"slots":[0,0,0,0,0,0,0,0]})");
  // The last variable is no array: the section is resized, its BTF type
  // dropped (libbpf: "failed to adjust resized BTF, clearing BTF
  // key/value info").
  const object::MapSpec *NotArr = mapNamed(*Obj, ".data.notarr");
  ASSERT_TRUE(NotArr);
  EXPECT_EQ(NotArr->ValueSize, 20u);
  EXPECT_EQ(NotArr->BtfValueTypeId, 0u);
  // Bytes that are no whole number of elements: the same.
  Opts.ValueSizes = {{".data", 15}};
  auto Odd = object::readObjectFile(std::string(EBPF_GPU_UNIT_INPUTS_DIR) + "/global_resize.o",
                                    Opts);
  ASSERT_TRUE(Odd) << Odd.error().message();
  EXPECT_EQ(mapNamed(*Odd, ".data")->ValueSize, 15u);
  EXPECT_EQ(mapNamed(*Odd, ".data")->BtfValueTypeId, 0u);
  EXPECT_EQ(mapNamed(*Odd, ".bss")->BtfValueTypeId, Bss->BtfValueTypeId);
  // Past ebpf-gpu's limit on a section.
  Opts.ValueSizes = {{".bss", 128u << 20}};
  auto Big = object::readObjectFile(std::string(EBPF_GPU_UNIT_INPUTS_DIR) + "/global_resize.o",
                                    Opts);
  ASSERT_FALSE(Big);
  EXPECT_NE(Big.error().message().find("value size of '.bss': 134217728 bytes of global data"),
            std::string::npos)
      << Big.error().message();
}

TEST(Object, RefusesBadInput) {
  std::vector<uint8_t> Garbage(200, 0x41);
  auto R = object::readObjectMemory(Garbage.data(), Garbage.size(), "g.o");
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error().message(), "g.o: not an ELF file");

  std::vector<uint8_t> Good = bytesOf(sample("xdp_port_filter.o"));
  ASSERT_GT(Good.size(), 200u);
  // Every truncation is refused cleanly.
  for (size_t Len : {size_t(4), size_t(63), size_t(64), Good.size() / 2, Good.size() - 1}) {
    auto T = object::readObjectMemory(Good.data(), Len, "t.o");
    EXPECT_FALSE(T) << "accepted a file truncated to " << Len << " bytes";
  }
  auto Missing = object::readObjectFile("/nonexistent/x.o");
  ASSERT_FALSE(Missing);
  EXPECT_EQ(Missing.error().message(), "/nonexistent/x.o: cannot open: No such file or directory");
}

} // namespace

// SPDX-License-Identifier: Apache-2.0
//
// Disassembler: the kernel-log / llvm-objdump syntax.

#include "TestUtil.h"

#include "ebpf-gpu/ISA/Decoder.h"
#include "ebpf-gpu/ISA/Disassembler.h"

#include <gtest/gtest.h>

using namespace ebpfgpu;
using namespace ebpfgpu::test;

namespace {

std::string text(Slot S, size_t Pc = 0) {
  auto B = encode({S});
  return isa::disassemble(isa::readSlot(B.data()), Pc);
}

TEST(Disassembler, PrintsKernelSyntax) {
  EXPECT_EQ(text({0x61, 2, 1, 4, 0}), "r2 = *(u32 *)(r1 + 4)");
  EXPECT_EQ(text({StxDW, 10, 1, -8, 0}), "*(u64 *)(r10 - 8) = r1");
  EXPECT_EQ(text({0x04, 3, 0, 0, -1}), "w3 += -1");
  EXPECT_EQ(text({0x3f, 1, 2, 1, 0}), "r1 s/= r2");
  EXPECT_EQ(text({0x2d, 1, 2, 3, 0}, 10), "if r1 > r2 goto +3 <14>");
  EXPECT_EQ(text({0x16, 1, 0, -2, 7}, 10), "if w1 == 7 goto -2 <9>");
  EXPECT_EQ(text({0xdc, 1, 0, 0, 16}), "r1 = be16 r1");
  EXPECT_EQ(text({0xdb, 1, 2, 0, 0x01}), "r2 = atomic_fetch_add((u64 *)(r1 + 0), r2)");
  EXPECT_EQ(text({Call, 0, 1, 0, 4}, 2), "call pc+4 <7>");
  EXPECT_EQ(text({Exit, 0, 0, 0, 0}), "exit");
}

TEST(Disassembler, NamesHelpersAndMaps) {
  isa::DisasmNames Names;
  Names.Helper = [](int32_t Id) { return Id == 1 ? std::string("bpf_map_lookup_elem") : ""; };
  Names.Map = [](int32_t Idx) { return Idx == 0 ? std::string("counters") : ""; };
  auto B = encode({{Call, 0, 0, 0, 1}});
  EXPECT_EQ(isa::disassemble(isa::readSlot(B.data()), 0, &Names), "call bpf_map_lookup_elem#1");
  isa::Insn L = isa::readSlot(encode({{Lddw, 1, 5, 0, 0}}).data());
  EXPECT_EQ(isa::disassemble(L, 0, &Names), "r1 = map[counters]");
}

} // namespace

// SPDX-License-Identifier: Apache-2.0
//
// Decoder: field extraction, and refusal of every malformed encoding with a
// message that names the pc.

#include "TestUtil.h"

#include "ebpf-gpu/ISA/Decoder.h"

#include <gtest/gtest.h>

using namespace ebpfgpu;
using namespace ebpfgpu::test;

namespace {

std::string decodeError(const std::vector<uint8_t> &Bytes) {
  auto R = isa::decodeProgram(Bytes.data(), Bytes.size());
  return R ? std::string() : R.error().message();
}

TEST(Decoder, ReadsFields) {
  auto B = encode({{0x61, 3, 7, -4, 0x12345678}});
  isa::Insn I = isa::readSlot(B.data());
  EXPECT_EQ(I.Opcode, 0x61);
  EXPECT_EQ(I.Dst, 3);
  EXPECT_EQ(I.Src, 7);
  EXPECT_EQ(I.Off, -4);
  EXPECT_EQ(I.Imm, 0x12345678);
}

TEST(Decoder, JoinsLddwHalves) {
  auto B = encode({{Lddw, 0, 0, 0, int32_t(0x89abcdef)}, {0, 0, 0, 0, 0x01234567}, {Exit, 0, 0, 0, 0}});
  auto R = isa::decodeProgram(B.data(), B.size());
  ASSERT_TRUE(R) << R.error().message();
  ASSERT_EQ(R->size(), 3u);
  EXPECT_TRUE((*R)[0].isLddw());
  EXPECT_EQ((*R)[0].imm64(), 0x0123456789abcdefull);
  EXPECT_TRUE((*R)[1].LddwHigh);
}

TEST(Decoder, RefusesMalformedPrograms) {
  EXPECT_EQ(decodeError({}), "program has no instructions");
  EXPECT_EQ(decodeError({1, 2, 3}), "program size 3 is not a multiple of 8 bytes");
  EXPECT_EQ(decodeError(encode({{0xff, 0, 0, 0, 0}})), "pc 0: unknown ALU operation (opcode 0xff)");
  EXPECT_EQ(decodeError(encode({{Lddw, 0, 0, 0, 1}})), "pc 0: lddw is missing its second half");
  EXPECT_EQ(decodeError(encode({{Lddw, 0, 0, 0, 1}, {0x07, 0, 0, 0, 0}})),
            "pc 1: second half of lddw must have only an imm");
  EXPECT_EQ(decodeError(encode({{Ja, 0, 0, 5, 0}, {Exit, 0, 0, 0, 0}})),
            "pc 0: jump target 6 is outside the program (0..1)");
  EXPECT_EQ(decodeError(encode({{Ja, 0, 0, 1, 0}, {Lddw, 0, 0, 0, 0}, {0, 0, 0, 0, 0}, {Exit, 0, 0, 0, 0}})),
            "pc 0: jump target 2 is the second half of an lddw");
  EXPECT_EQ(decodeError(encode({{MovK64, 11, 0, 0, 0}})), "pc 0: invalid destination register r11");
  EXPECT_EQ(decodeError(encode({{MovK64, 10, 0, 0, 0}})), "pc 0: r10 is read-only");
  EXPECT_EQ(decodeError(encode({{Exit, 1, 0, 0, 0}})), "pc 0: reserved fields of exit must be zero");
  EXPECT_EQ(decodeError(encode({{0xdc, 0, 0, 0, 24}})),
            "pc 0: byte swap width must be 16, 32 or 64 (is 24)");
  EXPECT_EQ(decodeError(encode({{0xdb, 1, 2, 0, 0x10}})), "pc 0: unknown atomic operation 0x10");
  EXPECT_EQ(decodeError(encode({{0x3f, 1, 2, 2, 0}})), "pc 0: invalid offset 2 for ALU operation");
}

TEST(Decoder, AcceptsV4Encodings) {
  // sdiv, movsx, bswap, gotol, sign-extending load, then exit.
  auto B = encode({{0x3f, 1, 2, 1, 0},
                   {MovX64, 1, 2, 32, 0},
                   {0xd7, 1, 0, 0, 64},
                   {0x06, 0, 0, 0, 1},
                   {0x91, 1, 10, -8, 0},
                   {Exit, 0, 0, 0, 0}});
  auto R = isa::decodeProgram(B.data(), B.size());
  EXPECT_TRUE(R) << R.error().message();
}

} // namespace

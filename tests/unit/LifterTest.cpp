// SPDX-License-Identifier: Apache-2.0
//
// Lifter and host back end: programs JIT-compiled and run, and the errors
// the lifter gives for programs it cannot lower safely.

#include "TestUtil.h"

#include "ebpf-gpu/Compiler/HostJit.h"
#include "ebpf-gpu/ISA/Decoder.h"

#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

using namespace ebpfgpu;
using namespace ebpfgpu::test;

namespace {

object::ProgramSpec program(const std::vector<uint8_t> &Bytes) {
  auto Insns = isa::decodeProgram(Bytes.data(), Bytes.size());
  EXPECT_TRUE(Insns) << Insns.error().message();
  return compiler::programFromInsns(std::move(*Insns), "t");
}

compiler::LiftOptions rawOptions() {
  compiler::LiftOptions O;
  O.Platform = &platform::rawPlatform();
  return O;
}

std::string liftError(const std::vector<uint8_t> &Bytes,
                      const platform::Platform &P = platform::rawPlatform()) {
  llvm::LLVMContext Ctx;
  compiler::LiftOptions O;
  O.Platform = &P;
  auto L = compiler::liftProgram(program(Bytes), {}, O, Ctx);
  return L ? std::string() : llvm::toString(L.takeError());
}

uint64_t runRaw(const std::vector<uint8_t> &Bytes, uint64_t R1 = 0, unsigned Opt = 2) {
  auto P = compiler::HostProgram::compile(program(Bytes), {}, rawOptions(), Opt);
  EXPECT_TRUE(bool(P)) << (P ? "" : llvm::toString(P.takeError()));
  return P ? (*P)->runRaw(reinterpret_cast<void *>(R1), 0) : ~0ull;
}

TEST(HostJit, DivisionByZeroFollowsRfc) {
  // r0 = 7 / r2 (r2 = r1 at run time) ; the JIT must not trap.
  auto Div = encode({{MovK64, 0, 0, 0, 7}, {MovX64, 2, 1, 0, 0}, {DivX64, 0, 2, 0, 0}, {Exit, 0, 0, 0, 0}});
  auto Mod = encode({{MovK64, 0, 0, 0, 7}, {MovX64, 2, 1, 0, 0}, {ModX64, 0, 2, 0, 0}, {Exit, 0, 0, 0, 0}});
  for (unsigned Opt : {0u, 2u}) {
    EXPECT_EQ(runRaw(Div, 0, Opt), 0u);
    EXPECT_EQ(runRaw(Div, 2, Opt), 3u);
    EXPECT_EQ(runRaw(Mod, 0, Opt), 7u);
    EXPECT_EQ(runRaw(Mod, 4, Opt), 3u);
  }
}

TEST(HostJit, StackRoundTrip) {
  auto B = encode({{StDW, 10, 0, -8, 1234}, {LdxDW, 0, 10, -8, 0}, {Exit, 0, 0, 0, 0}});
  EXPECT_EQ(runRaw(B), 1234u);
}

TEST(Lifter, SizesTheFrameFromTheProgram) {
  llvm::LLVMContext Ctx;
  auto B = encode({{StDW, 10, 0, -24, 1}, {MovK64, 0, 0, 0, 0}, {Exit, 0, 0, 0, 0}});
  auto L = compiler::liftProgram(program(B), {}, rawOptions(), Ctx);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  ASSERT_EQ(L->FrameBytes.size(), 1u);
  EXPECT_EQ(L->FrameBytes[0], 24u);
}

TEST(Lifter, RefusesWhatItCannotLowerSafely) {
  EXPECT_EQ(liftError(encode({{StDW, 10, 0, -520, 1}, {Exit, 0, 0, 0, 0}})),
            "pc 0: stack access of 8 bytes at r10-520 is outside the frame (512 bytes below r10)");
  EXPECT_EQ(liftError(encode({{MovK64, 0, 0, 0, 0}})),
            "pc 0: execution falls off the end of function t");
  EXPECT_EQ(liftError(encode({{Call, 0, 1, 0, -1}, {Exit, 0, 0, 0, 0}})),
            "pc 0: function t calls t recursively (recursion is not allowed)");
  EXPECT_EQ(liftError(encode({{Call, 0, 0, 0, 1}, {Exit, 0, 0, 0, 0}})),
            "pc 0: bpf_map_lookup_elem (helper 1) is not supported for raw programs");
  EXPECT_EQ(liftError(encode({{Call, 0, 0, 0, 9999}, {Exit, 0, 0, 0, 0}}), platform::xdpPlatform()),
            "pc 0: helper function 9999 is not supported for xdp programs");
  // XDP: ctx->data is 4 bytes at 0; an 8-byte read there is not a field.
  EXPECT_EQ(liftError(encode({{LdxDW, 0, 1, 0, 0}, {Exit, 0, 0, 0, 0}}), platform::xdpPlatform()),
            "pc 0: invalid read of 8 bytes at context offset 0");
  EXPECT_EQ(liftError(encode({{0x63, 1, 2, 0, 0}, {Exit, 0, 0, 0, 0}}), platform::xdpPlatform()),
            "pc 0: context field data is read-only");
}

TEST(HostJit, XdpContextIsRewritten) {
  // r0 = ctx->data_end - ctx->data, through the xdp_md offsets 4 and 0.
  auto B = encode({{0x61, 2, 1, 4, 0}, {0x61, 3, 1, 0, 0}, {MovX64, 0, 2, 0, 0},
                   {0x1f, 0, 3, 0, 0}, {Exit, 0, 0, 0, 0}});
  auto P = compiler::HostProgram::compile(program(B), {}, compiler::LiftOptions());
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  uint8_t Packet[100] = {};
  platform::XdpRuntimeContext C;
  C.data = reinterpret_cast<uint64_t>(Packet);
  C.data_end = C.data + 60;
  EXPECT_EQ((*P)->runXdp(C), 60u);
}

TEST(HostJit, FailsCleanlyAfterTheJitExists) {
  // A helper call (its name interned in the JIT) and a program array whose
  // slot names a program the set lacks: the error comes after the JIT is
  // built. fuzz_compile found the helper names freed after their pool
  // (AddressSanitizer: heap-use-after-free) on such returns.
  object::MapSpec Jumps;
  Jumps.Name = "jumps";
  Jumps.Type = EBPFGPU_MAP_PROG_ARRAY;
  Jumps.KeySize = 4;
  Jumps.ValueSize = 4;
  Jumps.MaxEntries = 2;
  Jumps.InitialPrograms = {{0, "absent"}};
  auto B = encode({{Call, 0, 0, 0, 5}, {Exit, 0, 0, 0, 0}}); // bpf_ktime_get_ns
  auto P = compiler::HostProgram::compile(program(B), {Jumps}, compiler::LiftOptions());
  ASSERT_FALSE(bool(P));
  EXPECT_EQ(llvm::toString(P.takeError()),
            "program array 'jumps' slot 0 holds 'absent', which is not a program of the object");
}

} // namespace

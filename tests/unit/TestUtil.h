// SPDX-License-Identifier: Apache-2.0
//
// Small helpers shared by the unit tests: building instruction bytes.

#ifndef EBPF_GPU_TESTS_TESTUTIL_H
#define EBPF_GPU_TESTS_TESTUTIL_H

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace ebpfgpu::test {

/// One encoded instruction slot.
struct Slot {
  uint8_t Opcode;
  uint8_t Dst, Src;
  int16_t Off;
  int32_t Imm;
};

inline std::vector<uint8_t> encode(std::initializer_list<Slot> Slots) {
  std::vector<uint8_t> Bytes;
  for (const Slot &S : Slots) {
    Bytes.push_back(S.Opcode);
    Bytes.push_back(uint8_t(S.Src << 4 | S.Dst));
    Bytes.push_back(uint8_t(uint16_t(S.Off)));
    Bytes.push_back(uint8_t(uint16_t(S.Off) >> 8));
    for (int I = 0; I < 4; ++I)
      Bytes.push_back(uint8_t(uint32_t(S.Imm) >> (8 * I)));
  }
  return Bytes;
}

// Opcodes used by the tests.
constexpr uint8_t MovK64 = 0xb7, MovX64 = 0xbf, AddK64 = 0x07, DivX64 = 0x3f,
                  ModX64 = 0x9f, Exit = 0x95, Ja = 0x05, JeqK = 0x15, Lddw = 0x18,
                  Call = 0x85, StxDW = 0x7b, LdxDW = 0x79, StDW = 0x7a;

} // namespace ebpfgpu::test

#endif // EBPF_GPU_TESTS_TESTUTIL_H

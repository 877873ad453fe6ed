// SPDX-License-Identifier: Apache-2.0
//
// BTF's type kinds (the kernel's BTF_KIND_*, Documentation/bpf/btf.rst),
// its magic number and the depth past which the readers stop following
// types, shared by the value formatter and the C declaration writer.

#ifndef EBPF_GPU_LOADER_LIB_BTFKINDS_H
#define EBPF_GPU_LOADER_LIB_BTFKINDS_H

#include <cstdint>

namespace ebpfgpu::loader {

enum BtfKind : uint32_t {
  KindInt = 1,
  KindPtr = 2,
  KindArray = 3,
  KindStruct = 4,
  KindUnion = 5,
  KindEnum = 6,
  KindFwd = 7,
  KindTypedef = 8,
  KindVolatile = 9,
  KindConst = 10,
  KindRestrict = 11,
  KindFunc = 12,
  KindFuncProto = 13,
  KindVar = 14,
  KindDatasec = 15,
  KindFloat = 16,
  KindDeclTag = 17,
  KindTypeTag = 18,
  KindEnum64 = 19,
};
constexpr uint16_t Magic = 0xeB9F;
constexpr unsigned MaxDepth = 32;

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_LIB_BTFKINDS_H

// SPDX-License-Identifier: Apache-2.0
//
// Private to abi/lib: SHA-256 (FIPS 180-4), for the verification seal of
// `.gpu.o` files. Small and dependency-free so the loader stays
// self-contained on GPU machines.

#ifndef EBPF_GPU_ABI_LIB_SHA256_H
#define EBPF_GPU_ABI_LIB_SHA256_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace ebpfgpu::abi {

/// Lower-case hex SHA-256 of `Size` bytes.
std::string sha256Hex(const uint8_t *Data, size_t Size);

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_LIB_SHA256_H

// SPDX-License-Identifier: Apache-2.0
//
// The `.gpu.o`'s metadata, private to abi/: its text written from and read
// into a GpuObjectSpec by one schema (GpuObjectMeta.cpp), the schema's rows
// for tests, and the container that seals a metadata text with its PTX and
// BTF (GpuObject.cpp), which tests use to write objects of older formats.

#ifndef EBPF_GPU_ABI_LIB_GPUOBJECTMETA_H
#define EBPF_GPU_ABI_LIB_GPUOBJECTMETA_H

#include "ebpf-gpu/Abi/GpuObject.h"

#include <string>
#include <vector>

namespace ebpfgpu::abi {

/// A row of the metadata's schema: a line (`Line` empty: `KEY VALUE`) or
/// an attribute of a `map` line (`Line` "map": `KEY=VALUE`), its type as
/// docs/GPU.md writes it, and the format that added it.
struct MetaField {
  std::string Line, Key, Type;
  unsigned Since = 1;
};
std::vector<MetaField> metaSchema();

/// The metadata of `S` in the current format, without its seal.
std::string metaText(const GpuObjectSpec &S);
/// Reads metadata of any format up to GpuObjectFormat into `S`; the seal
/// line is the container's, skipped here. Errors say what is wrong.
MaybeError parseMeta(const std::string &Text, GpuObjectSpec &S);

/// The `.gpu.o` image of metadata `Meta` (sealed here), `Ptx` and `Btf`.
std::vector<uint8_t> gpuObjectImage(const std::string &Meta, const std::string &Ptx,
                                    const std::vector<uint8_t> &Btf);

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_LIB_GPUOBJECTMETA_H

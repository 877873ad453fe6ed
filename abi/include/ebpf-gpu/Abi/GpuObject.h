// SPDX-License-Identifier: Apache-2.0
//
// The `.gpu.o` artifact: one ELF file holding a compiled program's PTX, its
// metadata (name, section, platform, kernel, stack use, helpers, whether it
// may write packets) and its map specs, plus the object's BTF for
// pretty-printing. Written by ebpf-gpu-cc,
// read by the loader without LLVM. Sections: `.ebpfgpu.meta` (text, one
// `key value` per line, `map key=value ...` per map, as one versioned schema
// (abi/lib/GpuObjectMeta.cpp) lays them out, and last a `seal`: the SHA-256
// of the metadata before it, the PTX and the BTF, checked on every read so
// no byte can change after compilation unnoticed), `.ebpfgpu.ptx`, `.BTF`.
// The seal detects modification; it is not a signature.

#ifndef EBPF_GPU_ABI_GPUOBJECT_H
#define EBPF_GPU_ABI_GPUOBJECT_H

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Platform/MapSpec.h"
#include "ebpf-gpu/Platform/PlatformKind.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::abi {

/// The metadata's format that this ebpf-gpu writes (its `format` line);
/// the reader reads every format from 1 to this one.
constexpr unsigned GpuObjectFormat = 6;

struct GpuObjectSpec {
  std::string Program, Section;
  /// The program type (the metadata's `platform` line, "xdp" or "raw").
  platform::PlatformKind Platform = platform::PlatformKind::Xdp;
  std::string Kernel;
  std::string Target;
  unsigned StackBytes = 0;
  /// False when compiled with --no-verify: the loader refuses to run it
  /// unless told to (tests of the back ends only).
  bool Verified = false;
  /// The runtime ABI it was compiled for (MapAbi.h): the reader refuses
  /// any but its own.
  uint32_t RuntimeAbi = EBPFGPU_RUNTIME_ABI;
  /// True when the verifier proved that no program of the set changes a
  /// packet (verifier::Result::WritesPacket false for each): a data path
  /// may then keep frames as they are. False when unknown.
  bool PacketsReadOnly = false;
  /// True when its atomics are at system scope (compiled with
  /// GpuOptions::SystemScopeAtomics, format 5): its maps may live once for
  /// several GPUs. False for the default, .gpu scope.
  bool SystemScopeAtomics = false;
  std::vector<std::string> Helpers;
  /// The maps, as the object defined them with what the compiler added
  /// (the globals the loader binds, the slots it fills).
  std::vector<platform::MapSpec> Maps;
  std::string Ptx;
  std::vector<uint8_t> Btf;
};

/// True when the file is a `.gpu.o` (an ELF file with `.ebpfgpu.meta`),
/// damaged or not; false for anything else (a plain eBPF object, say).
bool isGpuObjectFile(const std::string &Path);
bool isGpuObjectMemory(const uint8_t *Data, size_t Size);

/// Reads a `.gpu.o`; errors name the file and what is wrong with it.
Expected<GpuObjectSpec> readGpuObjectFile(const std::string &Path);
Expected<GpuObjectSpec> readGpuObjectMemory(const uint8_t *Data, size_t Size,
                                            const std::string &Name);

/// Serialises `Spec` as a `.gpu.o` image.
std::vector<uint8_t> writeGpuObject(const GpuObjectSpec &Spec);

/// Writes bytes to `Path` through a temporary file and a rename, so that a
/// failure leaves no partial file.
MaybeError writeFileAtomically(const std::string &Path, const std::vector<uint8_t> &Bytes);

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_GPUOBJECT_H

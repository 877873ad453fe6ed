// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu's own maps whose contents are one compiled blob (a pattern map's
// automaton, a model map's model), written whole from a file the tools
// compiled (MAP:@FILE): checked first, since the device code trusts it.

#ifndef EBPF_GPU_ABI_LIB_MAPBLOBS_H
#define EBPF_GPU_ABI_LIB_MAPBLOBS_H

#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::abi {

/// Writes `Value` (a compiled pattern set or model) into the pattern or
/// model map `M` (named `Name` in messages), the rest of its bytes zeroed;
/// a key, a blob of the other kind, a damaged one or one past max_entries
/// is refused.
MaybeError writeBlobMap(const std::string &Name, ebpfgpu_map &M, const std::vector<uint8_t> &Key,
                        const std::vector<uint8_t> &Value);

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_LIB_MAPBLOBS_H

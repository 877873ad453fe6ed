// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-cc --emit=skeleton: a C header, as `bpftool gen skeleton`'s,
// that embeds an eBPF object and opens, loads and destroys it through
// libebpf-gpu, with its maps, its program and its global data as typed
// members (docs/API.md, "Skeletons").

#ifndef EBPF_GPU_TOOLS_CC_SKELETON_H
#define EBPF_GPU_TOOLS_CC_SKELETON_H

#include "ebpf-gpu/Object/Object.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

/// The skeleton's name from the object's file name, as bpftool's: the
/// base name up to its first dot, each character outside [A-Za-z0-9_] an
/// underscore ("xdp_count.bpf.o" -> "xdp_count").
std::string skeletonName(const std::string &Path);

/// The header for program `Prog` of `Obj`, whose file's bytes are `Image`,
/// named `Name` (a C identifier: `struct Name_gpu`, `Name_gpu__open()`).
/// A global data section without a BTF description that C can write (an
/// object built without -g; .rodata.str1.1's literals) is an array of its
/// bytes instead, and `Notes` says so. Errors: a name that is no C
/// identifier, two maps whose C names are the same.
Expected<std::string> writeSkeleton(const object::ObjectSpec &Obj, const object::ProgramSpec &Prog,
                                    const std::vector<uint8_t> &Image, const std::string &Name,
                                    std::vector<std::string> &Notes);

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_CC_SKELETON_H

// SPDX-License-Identifier: Apache-2.0
//
// The GPU back end's system-scope atomics (GpuOptions::SystemScopeAtomics):
// a module whose maps live once for several GPUs gets its atomics as PTX
// `atom.sys`, coherent across GPUs, instead of NVPTX's `atom` (.gpu scope).

#ifndef EBPF_GPU_COMPILER_GPU_SYSTEMSCOPE_H
#define EBPF_GPU_COMPILER_GPU_SYSTEMSCOPE_H

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace ebpfgpu::compiler {

/// Rewrites every atomicrmw and cmpxchg of `M` on global or generic memory
/// (the program's BPF atomics and the map library's) as inline PTX of
/// system scope; those on shared memory (one block's) stay as they are.
/// Errors name an atomic that has no such form (a width other than 32 or
/// 64 bits, a floating-point operation).
llvm::Error useSystemScopeAtomics(llvm::Module &M);

} // namespace ebpfgpu::compiler

#endif // EBPF_GPU_COMPILER_GPU_SYSTEMSCOPE_H

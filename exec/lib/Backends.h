// SPDX-License-Identifier: Apache-2.0
//
// The back ends' own factories, private to exec/: load() (Load.cpp) is the
// one entry that reaches them, after choosing the program and seeing that
// it was verified.

#ifndef EBPF_GPU_EXEC_LIB_BACKENDS_H
#define EBPF_GPU_EXEC_LIB_BACKENDS_H

#include "ebpf-gpu/Exec/Executors.h"

#include "ebpf-gpu/Abi/GpuObject.h"
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include "ebpf-gpu/Object/Object.h"
#endif

#include <memory>
#include <string>

namespace ebpfgpu::exec {

#ifdef EBPF_GPU_LOADER_WITH_COMPILER
/// An object read from a file and its program chosen and verified (with
/// every program a tail call may reach). Shared, immutable: the host back
/// end's fault recovery compiles it again.
struct VerifiedObject {
  object::ObjectSpec Obj;
  const object::ProgramSpec *Prog = nullptr; ///< in Obj
  /// The verifier proved that no program it may reach changes a packet.
  bool ReadOnlyPackets = false;
  /// Some program it may reach calls an XDP RX metadata kfunc.
  bool RxMetadata = false;
};

/// Reads `Path` (or `Image`, the object in memory, when not null; `Path`
/// then names it) with `Read`, chooses `Section` (or its only program) and
/// verifies it; an error with the path in front says why not.
Expected<std::shared_ptr<const VerifiedObject>>
readVerified(const std::string &Path, const std::vector<uint8_t> *Image,
             const std::string &Section, const object::ReadOptions &Read);

/// JIT-compiles the verified program of `V` (read from `Path`).
Expected<std::unique_ptr<runtime::BatchExecutor>>
makeHostExecutor(const VerifiedObject &V, const std::string &Path, const HostOptions &Opts);

/// Compiles the verified program of `V` for the GPU in process.
Expected<abi::GpuObjectSpec> compileForGpu(const VerifiedObject &V, const std::string &Path,
                                           bool SystemAtomics = false);

/// Loads program `R.Section` of `R.Path` into the kernel (its verifier
/// decides; a refusal is an error with the kernel's reasons) and runs it
/// through BPF_PROG_TEST_RUN as R.Kernel says.
Expected<std::unique_ptr<runtime::BatchExecutor>> makeKernelExecutor(const LoadRequest &R);
#endif

/// A back end without a program: every packet's verdict is XDP_DROP and
/// nothing runs. `forward --backend null` measures the ports and the data
/// plane alone with it (their ceiling beside a real back end's figures).
std::unique_ptr<runtime::BatchExecutor> makeNullExecutor();

#ifdef EBPF_GPU_HAVE_CUDA
/// An entry after the first of several GPUs whose maps live once: the
/// first entry's back end, whose device memory this one reaches over peer
/// access, and the maps of its program this one uses (`Names`).
struct GpuPeerMaps {
  runtime::BatchExecutor *Owner = nullptr; ///< made by makeGpuExecutor
  std::vector<std::string> Names;
};

/// Opens GPU Opts.Device and loads `Spec` (an XDP program), which must have
/// been verified when it was compiled (unless `AllowUnverified`). In
/// persistent mode the kernel starts here. Each run() reclaims hash-map
/// deletions between launches. Launches from several threads are
/// serialised. With `Peer`, the maps it names are Peer->Owner's.
Expected<std::unique_ptr<runtime::BatchExecutor>>
makeGpuExecutor(const abi::GpuObjectSpec &Spec, const GpuExecOptions &Opts, bool AllowUnverified,
                const GpuPeerMaps *Peer = nullptr);
#endif

} // namespace ebpfgpu::exec

#endif // EBPF_GPU_EXEC_LIB_BACKENDS_H

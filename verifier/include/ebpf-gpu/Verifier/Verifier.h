// SPDX-License-Identifier: Apache-2.0
//
// The safety verifier. Nothing runs on the GPU (or the host back end) unless
// this proves it cannot read or write outside its packet, stack, context or
// map values, and that it ends. It explores every path of the program as the
// kernel's verifier does (abstract values per register and stack slot,
// pruned where a new state is covered by one already proven safe), so it
// accepts what the kernel accepts; loops are followed until they end, and a
// loop that does not end within the analysis budget is refused. Depends on
// the decoder and platform facts only (no LLVM).

#ifndef EBPF_GPU_VERIFIER_VERIFIER_H
#define EBPF_GPU_VERIFIER_VERIFIER_H

#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Platform/Platform.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ebpfgpu::verifier {

struct Options {
  const platform::Platform *Platform = &platform::xdpPlatform();
  /// Raw platform only: the bytes r1 points to (r2 holds the same number).
  uint64_t RawMemSize = 0;
  /// Ceiling on instructions processed over all paths, as the kernel's 1M:
  /// the verifier always ends quickly, and loops must end within it.
  uint64_t MaxInsnsProcessed = 1000000;
  /// Record the abstract state before every processed instruction.
  bool Log = false;
  /// The object's license: GPL-only helpers need a GPL-compatible one, as
  /// in the kernel. Not checked when unset (raw programs have none).
  std::optional<std::string> License;
};

/// Whether `License` lets a program call GPL-only helpers (the kernel's
/// list of GPL-compatible license strings).
bool isGplCompatible(const std::string &License);

/// Why a program was refused: where, what was wrong, and the property
/// (obligation) that could not be proven. Its wording is a tested interface.
struct Diagnostic {
  uint32_t Pc = 0;
  std::string Reason;
  std::string Obligation;
};

struct Result {
  std::optional<Diagnostic> Error;
  uint64_t InsnsProcessed = 0;
  uint64_t StatesStored = 0;
  uint64_t PathsPruned = 0;
  /// Whether some path may change the packet: a write through a packet or
  /// metadata pointer (a store, an atomic, a helper filling a buffer that
  /// is the packet), or a helper that moves its bounds or stores bytes
  /// (xdp_adjust_head/tail/meta, xdp_store_bytes). False proves the
  /// program leaves every packet as it came.
  bool WritesPacket = false;
  /// Whether the program calls an XDP RX metadata kfunc
  /// (bpf_xdp_metadata_rx_*): a data plane then gives it its packets'
  /// metadata (XdpContext.h's struct ebpfgpu_rx_meta).
  bool ReadsRxMetadata = false;
  /// The instructions (pcs, ascending) that may read stack bytes never
  /// written: a load, or a helper reading a buffer (a key's padding). The
  /// kernel lets a privileged loader do it (allow_uninit_stack) and so
  /// does this verifier; such bytes are zero on every ebpf-gpu back end
  /// (each frame starts zeroed) and whatever the kernel's stack held there,
  /// so output that depends on them differs from the kernel's.
  std::vector<uint32_t> UninitStackReads;
  /// With Options::Log: one line per processed instruction.
  std::string Log;
  bool ok() const { return !Error; }
};

/// Verifies `Prog` (its maps are `Maps`). Thread-safe: no shared state.
Result verify(const object::ProgramSpec &Prog, const std::vector<object::MapSpec> &Maps,
              const Options &Opts);

/// "prog.c:42: pc 17: <reason> (<obligation>)"; the file and line come from
/// the program's BTF line info when it has some.
std::string formatDiagnostic(const Diagnostic &D, const object::ProgramSpec &Prog);

} // namespace ebpfgpu::verifier

#endif // EBPF_GPU_VERIFIER_VERIFIER_H

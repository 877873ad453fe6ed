// SPDX-License-Identifier: Apache-2.0
//
// `ebpf-gpu-loader run`'s options and what a back end made of the packets,
// shared by the command (ebpf-gpu-loader.cpp) and its host and GPU back
// ends, which run the program as an application does, through libebpf-gpu's
// C API (RunApi.cpp, ApiProgram.h).

#ifndef EBPF_GPU_TOOLS_LOADER_RUN_H
#define EBPF_GPU_TOOLS_LOADER_RUN_H

#include "Options.h"

#include "ebpf-gpu/Exec/Executors.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Runtime/Packets.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ebpfgpu::tools {

struct RunOptions {
  std::string Object, Pcap, Section, Out, Verdicts, MapsFile;
  std::optional<exec::Backend> Backend; ///< none: gpu for a .gpu.o, else host
  size_t BatchSize = 0; ///< gpu: packets per batch (0: all in one)
  /// gpu: --gpu-mode, --gpu-data, --gpu-stage, --gpu-blocks, --watchdog-ms
  exec::GpuExecOptions Gpu;
  bool Json = false;
  bool AllowUnverified = false;
  bool CheckMaps = false;
  std::string TraceFile; ///< --trace: where bpf_trace_printk lines go (default stderr)
  std::string EventsFile; ///< --events: where ringbuf/perf event records go
  std::vector<loader::MapEntry> MapEntries; ///< --map-set, in order
  MapShapeArgs Shapes; ///< --inner-map, --map-size, --map-key-size, --map-value-size
  std::string FibFile;                    ///< --fib: bpf_fib_lookup's table
  std::optional<uint32_t> IngressIfindex; ///< --ingress-ifindex
};

/// What one back end made of a batch: besides the verdicts in the batch.
struct RunResult {
  std::string ProgName, Backend, MapsText, EventsText;
  double KernelMs = -1; ///< the GPU kernels' share, or -1
};

/// The host or GPU back end (`O.Backend`, none: the GPU for a .gpu.o, else
/// the host) over `Batch` through the C API: the program opened, its maps
/// shaped, loaded (verified first), its entries and table set, the packets
/// run as one burst, and what it left taken (the trace to --trace or
/// standard error, warnings to standard error). Verdicts, bytes and
/// redirect targets are written back into `Batch`. Fails (exit 1) with the
/// library's message on any error.
RunResult runOnApi(const RunOptions &O, runtime::PacketBatch &Batch);

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_LOADER_RUN_H

// SPDX-License-Identifier: Apache-2.0
//
// A program on libebpf-gpu's C API (<ebpf-gpu/ebpf-gpu.h>) as the tools
// use it: `run`'s host and GPU back ends, `compare`'s host side and the host
// benchmark (bench/tools/ebpf-gpu-host-bench.cpp, its threads each on a
// lane) are programs of the library as an application's would be, so the
// tools and the library cannot drift apart. Each step returns the library's
// message on failure; the commands decide what a failure means (`run`
// exits, `compare` records it). The kernel oracle, which the library does
// not offer, stays on exec/.

#ifndef EBPF_GPU_TOOLS_APIPROGRAM_H
#define EBPF_GPU_TOOLS_APIPROGRAM_H

#include "ebpf-gpu/Tools/MapShapes.h"

#include "ebpf-gpu/Exec/Executors.h"
#include "ebpf-gpu/Loader/MapEntries.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct ebpf_gpu_prog;
struct ebpf_gpu_lane;

namespace ebpfgpu::tools {

/// What the program is loaded with: the object, its program, the back end
/// (none: the GPU for a .gpu.o, else the host), the maps' shapes before
/// load (eBPF objects), the GPU back end's options.
struct ApiLoad {
  std::string Object, Section;
  std::optional<exec::Backend> Backend;
  MapShapeArgs Shapes;
  exec::GpuExecOptions Gpu; ///< LaunchSize: --batch
  bool AllowUnverified = false;
  /// Threads that run bursts at once, each on its lane (0: 1).
  unsigned Workers = 0;
};

class ApiProgram {
public:
  /// Opens the object, shapes its maps, loads it (verified first).
  static Expected<ApiProgram> load(const ApiLoad &L);

  /// --map-set/--map-file entries, in order: a slot by name, a pattern or
  /// model file, or a value (every CPU's, for a per-CPU map). A refusal's
  /// message starts with `From` (where the entries came from; "": nothing).
  MaybeError setEntries(const std::vector<loader::MapEntry> &Entries,
                        const std::string &From = "--map-set");
  /// bpf_fib_lookup's table from the file at `Path`.
  MaybeError setFibFile(const std::string &Path);
  /// `Batch` as one burst; verdicts, bytes and redirect targets written
  /// back into it.
  MaybeError run(runtime::PacketBatch &Batch);
  MaybeError checkMaps();
  /// Worker `W`'s lane (W below ApiLoad::Workers), living as long as the
  /// program: its bursts go through ebpf_gpu_lane__run_burst.
  Expected<ebpf_gpu_lane *> lane(unsigned W);
  /// The trace lines since the last call, each ending in a newline.
  Expected<std::string> takeTrace();
  /// The event records since the last call, one line "MAP HEX" each.
  Expected<std::string> takeEvents();
  Expected<std::vector<std::string>> warnings();
  /// The maps and global data as `run --dump-maps` writes them.
  Expected<std::string> formatMaps();

  std::string name() const;
  std::string backend() const;
  /// The GPU kernels' milliseconds, -1 on the host.
  double kernelMs() const;
  /// Packets run in the caller's buffers since load (nothing copied).
  uint64_t packetsInPlace() const;

private:
  struct Close {
    void operator()(ebpf_gpu_prog *P) const;
  };
  std::unique_ptr<ebpf_gpu_prog, Close> Prog;
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_APIPROGRAM_H

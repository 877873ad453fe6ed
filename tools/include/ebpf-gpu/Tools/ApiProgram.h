// SPDX-License-Identifier: Apache-2.0
//
// A program on libebpf-gpu's C API (<ebpf-gpu/ebpf-gpu.h>) as the loader's
// commands use it: `run`'s host and GPU back ends and `compare`'s host side
// are programs of the library as an application's would be, so the tools
// and the library cannot drift apart. Each step returns the library's
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
};

class ApiProgram {
public:
  /// Opens the object, shapes its maps, loads it (verified first).
  static Expected<ApiProgram> load(const ApiLoad &L);

  /// --map-set/--map-file entries, in order: a slot by name, a pattern or
  /// model file, or a value (every CPU's, for a per-CPU map).
  MaybeError setEntries(const std::vector<loader::MapEntry> &Entries);
  /// bpf_fib_lookup's table from the file at `Path`.
  MaybeError setFibFile(const std::string &Path);
  /// `Batch` as one burst; verdicts, bytes and redirect targets written
  /// back into it.
  MaybeError run(runtime::PacketBatch &Batch);
  MaybeError checkMaps();
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

private:
  struct Close {
    void operator()(ebpf_gpu_prog *P) const;
  };
  std::unique_ptr<ebpf_gpu_prog, Close> Prog;
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_APIPROGRAM_H

// SPDX-License-Identifier: Apache-2.0
//
// The back ends of ebpf-gpu-loader as runtime::BatchExecutor objects, with
// the loading that precedes them: choosing a program in an eBPF object,
// verifying it, JIT-compiling it for this CPU (builds with the compiler),
// or loading a .gpu.o (or compiling one on the spot) onto the GPU (builds
// with CUDA headers). Shared by the one-shot `run` and by `forward`, so the
// two paths run a program the same way. Errors are returned with the object
// path and program name in front; the tool prints them.

#ifndef EBPF_GPU_EXEC_EXECUTORS_H
#define EBPF_GPU_EXEC_EXECUTORS_H

#include "ebpf-gpu/Abi/GpuObject.h"
#ifdef EBPF_GPU_HAVE_CUDA
#include "ebpf-gpu/Loader/GpuRunner.h"
#endif
#include "ebpf-gpu/Runtime/BatchExecutor.h"
#ifdef EBPF_GPU_LOADER_WITH_COMPILER
#include "ebpf-gpu/Object/Object.h"
#endif

#include <memory>
#include <string>

namespace ebpfgpu::object {
struct ObjectSpec;
struct ProgramSpec;
struct ReadOptions;
} // namespace ebpfgpu::object

namespace ebpfgpu::exec {

#ifdef EBPF_GPU_LOADER_WITH_COMPILER
/// When the host back end returns what hash-map deletions freed: after each
/// packet (as the kernel's BPF_PROG_TEST_RUN, which the one-shot run is
/// compared against) or after each batch (forwarding, where several workers
/// share the program and reclaim when none is inside a batch).
enum class HostReclaim { EachPacket, EachBatch };

/// Reads `Object` (with `Read`: inner map templates), chooses `Section` (or
/// its only program), verifies and JIT-compiles it. `Cpus`: the workers that
/// run it at once (the data plane's): per-CPU maps keep a slice each and
/// each lane (openLane) runs its batches as one of them, so that their
/// per-CPU updates never race; run() is CPU 0.
Expected<std::unique_ptr<runtime::BatchExecutor>>
makeHostExecutor(const std::string &Object, const std::string &Section, HostReclaim Reclaim,
                 const object::ReadOptions &Read = {}, uint32_t Cpus = 1);
/// The same for program `P` of an object already read from `Path` (many
/// programs of one object checked in one process: `compare`).
Expected<std::unique_ptr<runtime::BatchExecutor>>
makeHostExecutor(const object::ObjectSpec &Obj, const std::string &Path,
                 const object::ProgramSpec &P, HostReclaim Reclaim);

/// Reads `Object`, chooses and verifies a program, and compiles it for the
/// GPU in process.
Expected<abi::GpuObjectSpec> compileForGpu(const std::string &Object,
                                           const std::string &Section,
                                           const object::ReadOptions &Read = {});
#endif

#ifdef EBPF_GPU_HAVE_CUDA
/// How the GPU back end runs batches (loader/GpuRunner.h).
struct GpuExecOptions {
  /// The most packets one launch (or persistent-kernel batch) takes; a
  /// larger batch runs as several (0: the whole batch at once).
  size_t LaunchSize = 0;
  loader::GpuMode Mode = loader::GpuMode::Launch;
  loader::GpuDataPath Path = loader::GpuDataPath::Copy;
  /// Persistent mode: blocks (0: one per multiprocessor), and how long a
  /// batch may take before the run fails.
  uint32_t Blocks = 0;
  uint32_t WatchdogMs = 1000;
  /// The longest frame expected (sizes the first buffers; longer frames
  /// only make them grow).
  uint32_t MaxFrame = 2048;
  /// Time the kernel apart from the copies with device events (gpuKernelMs).
  bool TimeKernel = true;
  /// A CUDA context of the executor's own instead of the GPU's primary
  /// one, so that abandonGpuExecutor can stop it alone (the daemon).
  bool OwnContext = false;
  /// openLane gives each worker runners of its own with batches in flight
  /// at once (launch mode, programs that need the host between batches
  /// excepted: theirs go one at a time through run()). Off in the daemon,
  /// whose fault recovery halts and abandons the executor's one runner.
  bool AsyncLanes = false;
  /// Mapped path: small packets staged in device memory for the program
  /// (GpuRunnerOptions::Stage), or run in place. Auto stages them for a
  /// program that may write packets (its byte stores would each cross PCIe;
  /// the LB gained 64%) and, in launch mode, not for one proven read-only
  /// (in place it keeps the GPU's work per packet lower: the port filter
  /// and the firewall lost 10-12% staged, H200, docs/PERFORMANCE.md); the
  /// persistent kernel, there for latency, stages every program (one PCIe
  /// round trip for the packet instead of one per dependent load).
  enum class Staging { Auto, On, Off } Stage = Staging::Auto;
  /// Async lanes of a program whose hashed maps the device reclaims:
  /// packets between two reclaims (loader::GpuReclaimBarrier; 0: its
  /// default, a quarter of the maps' fewest spare elements).
  uint64_t ReclaimPeriod = 0;
  /// Runs a .gpu.o that ebpf-gpu-cc made without the safety verifier
  /// (--no-verify), which makeGpuExecutor refuses otherwise: for tests of
  /// the back end, never the default.
  bool AllowUnverified = false;
};
/// The GPU program `GpuObj` is (abi::readGpuObjectFile of `Path`): that
/// .gpu.o when `Path` is one (a damaged one is an error), else program
/// `Section` of the eBPF object at `Path` (with `Read`, or none) chosen,
/// verified and compiled now, where the loader has the compiler. What it
/// returns still goes through makeGpuExecutor's check that it was verified.
Expected<abi::GpuObjectSpec> gpuProgram(Expected<abi::GpuObjectSpec> GpuObj,
                                        const std::string &Path, const std::string &Section,
                                        const object::ReadOptions *Read = nullptr);

/// "on", "off", anything else Auto (the options' parsers check the word).
inline GpuExecOptions::Staging parseStaging(const std::string &Word) {
  return Word == "on"    ? GpuExecOptions::Staging::On
         : Word == "off" ? GpuExecOptions::Staging::Off
                         : GpuExecOptions::Staging::Auto;
}

/// A back end without a program: every packet's verdict is XDP_DROP and
/// nothing runs. `forward --backend null` measures the ports and the data
/// plane alone with it (their ceiling beside a real back end's figures).
std::unique_ptr<runtime::BatchExecutor> makeNullExecutor();

/// Opens GPU 0 and loads `Spec` (an XDP program), which must have been
/// verified when it was compiled (unless Opts.AllowUnverified): every GPU
/// program any tool runs comes through here. In persistent mode the
/// kernel starts here. Each run() reclaims hash-map deletions between
/// launches. Launches from several threads are serialised.
Expected<std::unique_ptr<runtime::BatchExecutor>> makeGpuExecutor(const abi::GpuObjectSpec &Spec,
                                                               const GpuExecOptions &Opts);
/// Ends the kernels of a GPU back end whose batch failed (GpuRunner::halt:
/// a kernel that hangs is aborted at its loop guards) and says what
/// happened ("" when there was nothing to end). No batch may follow.
std::string haltGpuExecutor(runtime::BatchExecutor &Exec);
/// Gives up a GPU back end that failed (`Exec` from makeGpuExecutor, no
/// call inside it and none to come): with its own context, a kernel that
/// hangs is aborted (GpuRunner::halt: it traps at its next loop guard) and
/// the context destroyed, the GPU and other contexts carrying on; its
/// device objects are left unfreed, their memory gone with the context. A
/// kernel that does not stop leaves its context behind (destroying it would
/// wait for ever); on the primary context everything is left as it is.
/// Returns what was done, for the fault's record. `Exec` may then be
/// destroyed.
std::string abandonGpuExecutor(runtime::BatchExecutor &Exec);
/// Milliseconds the GPU kernel ran over all of `Exec`'s launches (device
/// events); `Exec` must come from makeGpuExecutor.
double gpuKernelMs(const runtime::BatchExecutor &Exec);
/// The `Percent` percentile of its launches' latency in microseconds (the
/// batch staged, run and its verdicts back on the host); -1 before any.
double gpuLatencyUs(runtime::BatchExecutor &Exec, double Percent);
/// Reclaims the device ran between async lanes' batches
/// (loader::GpuReclaimBarrier), -1 where there is no barrier.
int64_t gpuReclaims(runtime::BatchExecutor &Exec);
#endif

} // namespace ebpfgpu::exec

#endif // EBPF_GPU_EXEC_EXECUTORS_H

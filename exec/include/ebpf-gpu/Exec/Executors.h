// SPDX-License-Identifier: Apache-2.0
//
// The back ends of ebpf-gpu-loader as runtime::BatchExecutor objects, and
// the one entry that makes them: exec::load() reads the object (an eBPF
// object or a .gpu.o), chooses its program, has it verified, and compiles
// or loads it for the back end asked for: the host JIT (builds with the
// compiler), the GPU (builds with CUDA headers), the kernel (the oracle,
// builds with the compiler) or none (null). Shared by `run`, `forward`,
// the daemon and `compare`, so that every path runs a program the same way
// and nothing runs unverified. Errors are returned with the object path
// and program name in front; the tool prints them.

#ifndef EBPF_GPU_EXEC_EXECUTORS_H
#define EBPF_GPU_EXEC_EXECUTORS_H

#include "ebpf-gpu/Exec/Backend.h"
#include "ebpf-gpu/Loader/GpuModes.h"
#include "ebpf-gpu/Runtime/BatchExecutor.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ebpfgpu::exec {

/// When the host back end returns what hash-map deletions freed: after each
/// packet (as the kernel's BPF_PROG_TEST_RUN, which the one-shot run is
/// compared against) or after each batch (forwarding, where several workers
/// share the program and reclaim when none is inside a batch).
enum class HostReclaim { EachPacket, EachBatch };

/// How the host back end runs the program.
struct HostOptions {
  HostReclaim Reclaim = HostReclaim::EachPacket;
  /// The workers that run it at once (the data plane's): per-CPU maps keep
  /// a slice each and each lane (openLane) runs its batches as one of them,
  /// so that their per-CPU updates never race; run() is CPU 0.
  uint32_t Cpus = 1;
};

/// How the kernel back end runs packets (one by one, BPF_PROG_TEST_RUN).
struct KernelRunOptions {
  /// The ifindex the context names (none: no context, the loopback device).
  std::optional<uint32_t> Ingress;
  /// Event maps are read every `EventBatch` packets (0: at the end).
  size_t EventBatch = 0;
};

/// How the GPU back end runs batches (loader/GpuRunner.h). Plain data in
/// every build: a loader without CUDA reads the options too, and refuses
/// the back end where it is asked for.
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
  /// one, so that abandonGpuExecutor can stop it alone (the daemon), and
  /// so that several of one GPU can stand in for several GPUs.
  bool OwnContext = false;
  /// One of several contexts that run one program (LoadRequest::Gpus, two
  /// entries or more). In persistent mode every runner of the executor is
  /// made before any kernel of the group runs and starts its kernel at its
  /// first batch: the group's memory is pinned and freed only while none
  /// of their kernels runs (BatchExecutor::stopDeviceLoops).
  bool ContextGroup = false;
  /// The GPU (CUDA device ordinal); LoadRequest::Gpus sets it for each
  /// GPU of a list.
  int Device = 0;
  /// openLane gives each worker runners of its own with batches in flight
  /// at once (launch mode, programs that need the host between batches
  /// excepted: theirs go one at a time through run()).
  bool AsyncLanes = false;
  /// With AsyncLanes, in persistent mode: each worker's lane a persistent
  /// kernel of its own (GpuLanes.cpp). Off in the daemon, which stops
  /// persistent kernels around other programs' context changes (quiesce())
  /// and can start again only the executor's own: its persistent programs
  /// run one batch at a time.
  bool PersistentLanes = true;
  /// Mapped path: small packets staged in device memory for the program
  /// (GpuRunnerOptions::Stage), or run in place. Auto stages them for a
  /// program that may write packets (its byte stores would each cross PCIe;
  /// the LB gained 64%) and, in launch mode, not for one proven read-only
  /// (in place it keeps the GPU's work per packet lower: the port filter
  /// and the firewall lost 10-12% staged, H200, docs/PERFORMANCE.md), nor, in
  /// persistent mode, unless its launches are of at most 64 packets (the
  /// latency mode: one PCIe round trip for the packet instead of one per
  /// dependent load, for ~25 ns of the worker's time a packet).
  enum class Staging { Auto, On, Off } Stage = Staging::Auto;
  /// Async lanes of a program whose hashed maps the device reclaims:
  /// packets between two reclaims (loader::GpuReclaimBarrier; 0: its
  /// default, a quarter of the maps' fewest spare elements).
  uint64_t ReclaimPeriod = 0;
};
/// "auto", "on", "off"; nothing for other words.
inline std::optional<GpuExecOptions::Staging> parseStaging(const std::string &Word) {
  if (Word == "auto")
    return GpuExecOptions::Staging::Auto;
  if (Word == "on")
    return GpuExecOptions::Staging::On;
  if (Word == "off")
    return GpuExecOptions::Staging::Off;
  return std::nullopt;
}

#ifdef EBPF_GPU_HAVE_CUDA
/// Ends the kernels of a GPU back end whose batch failed (GpuRunner::halt:
/// a kernel that hangs is aborted at its loop guards) and says what
/// happened ("" when there was nothing to end). No batch may follow.
std::string haltGpuExecutor(runtime::BatchExecutor &Exec);
/// (A back end on several GPUs: each of them, their messages joined.)
/// Gives up a GPU back end that failed (`Exec` from load(), no
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
/// events); `Exec` must be a GPU back end from load(). On several GPUs:
/// the sum, the largest of their percentiles, the sum of their reclaims.
double gpuKernelMs(const runtime::BatchExecutor &Exec);
/// The `Percent` percentile of its launches' latency in microseconds (the
/// batch staged, run and its verdicts back on the host); -1 before any.
double gpuLatencyUs(runtime::BatchExecutor &Exec, double Percent);
/// Reclaims the device ran between async lanes' batches
/// (loader::GpuReclaimBarrier), -1 where there is no barrier.
int64_t gpuReclaims(runtime::BatchExecutor &Exec);
#endif

/// What exec::load() is asked to run, and how.
struct LoadRequest {
  /// An eBPF object, or a .gpu.o (the GPU back end's code only).
  std::string Path;
  /// An eBPF object or a .gpu.o in memory (a skeleton's embedded bytes, an
  /// application's own copy) instead of the file: `Path` then only names it
  /// in messages. The host and GPU back ends take it; the kernel's needs a
  /// file.
  std::shared_ptr<const std::vector<uint8_t>> Image;
  /// The program (function or section name); empty: the object's only one.
  std::string Section;
  /// Nothing: the GPU for a .gpu.o, the host for anything else.
  std::optional<Backend> Kind;
  /// eBPF objects: inner map templates of maps of maps defined without one
  /// (OUTER, MAP) and max_entries set before load (MAP, N), as user space
  /// gives libbpf (`run --inner-map/--map-size`).
  std::vector<std::pair<std::string, std::string>> InnerMaps;
  std::vector<std::pair<std::string, uint32_t>> MapSizes;
  /// eBPF objects: key and value sizes set before load (MAP, BYTES), as
  /// libbpf's bpf_map__set_key_size/set_value_size (the C API's).
  std::vector<std::pair<std::string, uint32_t>> KeySizes, ValueSizes;
  /// eBPF objects: map_flags set before load (MAP, FLAGS), as libbpf's
  /// bpf_map__set_map_flags (the C API's).
  std::vector<std::pair<std::string, uint32_t>> MapFlags;
  /// eBPF objects: global data sections' contents set before load
  /// (object::ReadOptions::InitialValues).
  std::vector<std::pair<std::string, std::vector<uint8_t>>> InitialValues;
  /// Runs a .gpu.o that ebpf-gpu-cc made without the safety verifier
  /// (--no-verify), which load() refuses otherwise: for tests of the back
  /// end, never the default.
  bool AllowUnverified = false;
  HostOptions Host;
  GpuExecOptions Gpu;
  KernelRunOptions Kernel;
  /// The GPU back end on several GPUs (exec/MultiGpu.h: parseGpuList's
  /// list, repeats allowed): a context and a loaded module each, each in
  /// a context of its own, data plane workers spread over them, one
  /// program to the host. Empty: GPU Gpu.Device alone. Other back ends
  /// refuse a list; a program with a map that cannot be spread over
  /// several contexts (checkMapsForGpus) is refused before any GPU opens.
  std::vector<int> Gpus;
};

/// A loaded program: its back end and what the daemon keeps of it.
struct LoadedProgram {
  std::unique_ptr<runtime::BatchExecutor> Exec;
  Backend Kind = Backend::Null;
  /// The chosen program's section, whether it was verified (false only for
  /// a .gpu.o let through by AllowUnverified), its BTF (may be empty).
  std::string Section;
  bool Verified = true;
  std::vector<uint8_t> Btf;
  /// A new back end running the same code (as it was read at load, not as
  /// the file is now), maps empty: the daemon's fault recovery. Null for
  /// the kernel back end.
  std::function<Expected<std::unique_ptr<runtime::BatchExecutor>>()> Remake;
};

/// The one way a program comes to run: reads `R.Path`, chooses the back
/// end (`R.Kind`, or the default for the file), chooses the program and
/// makes sure it was verified: the host and a GPU compile on the spot run
/// ebpf-gpu's verifier first (every program a tail call may reach), a
/// .gpu.o must say it was verified when compiled (unless
/// R.AllowUnverified), the kernel's own verifier judges its load. In GPU
/// persistent mode the kernel starts here. An error names the file and
/// why: unreadable, no such program, refused by a verifier, a back end
/// this build lacks, or one that cannot take this file. The caller owns
/// what it returns. Kernel loads are not thread-safe (libbpf's messages
/// are collected in one place): one at a time.
Expected<LoadedProgram> load(const LoadRequest &R);

} // namespace ebpfgpu::exec

#endif // EBPF_GPU_EXEC_EXECUTORS_H

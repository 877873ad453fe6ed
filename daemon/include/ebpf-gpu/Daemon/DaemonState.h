// SPDX-License-Identifier: Apache-2.0
//
// What the daemon holds and how it answers requests: the program table
// (loaded, verified, JIT-compiled or GPU-loaded programs with ids, their
// maps with daemon-wide ids and BTF for pretty-printing), which program
// each port runs, and rate samples for `stats`. handle() takes one request
// line and returns its response; it never throws and never ends the
// daemon: every mistake is an error response. Each program's back end sits
// behind a GuardedExecutor: when it fails a batch, recoverFaults() replaces
// it with a new one made from the program's spec, its maps copied over,
// while its ports keep running. The data plane and the back ends come
// through two small interfaces (PortControl, BackendMaker) so that the
// fuzz target can drive every request without DPDK, LLVM or a GPU. Not
// thread-safe: the daemon's control thread is its only user.

#ifndef EBPF_GPU_DAEMON_DAEMONSTATE_H
#define EBPF_GPU_DAEMON_DAEMONSTATE_H

#include "ebpf-gpu/Daemon/DaemonFaults.h"
#include "ebpf-gpu/Daemon/Json.h"

#include "ebpf-gpu/Exec/Backend.h"
#include "ebpf-gpu/Loader/BtfFormat.h"
#include "ebpf-gpu/Loader/GpuModes.h"
#include "ebpf-gpu/Runtime/BatchExecutor.h"
#include "ebpf-gpu/Runtime/Dataplane.h"

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

/// What the daemon needs of its data plane (runtime::Dataplane, whose
/// methods these are; see there).
class PortControl {
public:
  virtual ~PortControl() = default;
  virtual Expected<uint32_t> attach(const runtime::AttachOptions &O,
                                    std::shared_ptr<runtime::BatchExecutor> Exec) = 0;
  virtual MaybeError replace(uint32_t Id, std::shared_ptr<runtime::BatchExecutor> Exec) = 0;
  virtual MaybeError resume(uint32_t Id) = 0;
  virtual Expected<runtime::PortStats> detach(uint32_t Id) = 0;
  virtual std::vector<runtime::PortStats> stats() const = 0;
  virtual uint32_t findPort(const std::string &NameOrId) const = 0;
  virtual unsigned workers() const = 0;
  virtual MaybeError bindXsk(uint32_t Id, const runtime::XskConsumer &C) = 0;
  virtual bool unbindXsk(uint32_t Id) = 0;
  virtual std::vector<std::pair<uint32_t, runtime::XskConsumer>> xsks() const = 0;
  virtual void stop() = 0;
};

/// A `prog load` request as the back ends take it.
struct LoadRequest {
  std::string Path, Section;
  /// Host or Gpu; none: gpu for a .gpu.o, host otherwise.
  std::optional<exec::Backend> Backend;
  /// GPU back end: the mode and the data path (none: the defaults, launch
  /// and copy), the persistent kernel's watchdog and blocks, the most
  /// packets a launch takes (0: the whole batch).
  std::optional<loader::GpuMode> GpuMode;
  std::optional<loader::GpuDataPath> GpuPath;
  uint32_t WatchdogMs = 1000, Blocks = 0, LaunchSize = 0;
  /// eBPF objects: inner map templates (OUTER, MAP) and max_entries set
  /// before load (MAP, N), as `run --inner-map/--map-size`.
  std::vector<std::pair<std::string, std::string>> InnerMaps;
  std::vector<std::pair<std::string, uint32_t>> MapSizes;
  /// eBPF objects: key and value sizes set before load (MAP, BYTES), as
  /// `run --map-key-size/--map-value-size`.
  std::vector<std::pair<std::string, uint32_t>> KeySizes, ValueSizes;
  /// Accept a .gpu.o compiled with --no-verify (the daemon's test-only
  /// --allow-unverified).
  bool AllowUnverified = false;
  /// The data plane's workers: the host back end keeps a per-CPU slice of
  /// each per-CPU map for each.
  uint32_t Workers = 1;
  /// GPU back end: the GPU list as written (`gpus`, exec::parseGpuList's:
  /// "2", "0,1", "0,0"); empty: GPU 0 alone. Read where the back ends are.
  std::string Gpus;
};

/// A loaded back end and what it takes to make it again.
struct LoadedBackend {
  std::unique_ptr<runtime::BatchExecutor> Exec;
  exec::Backend Backend = exec::Backend::Host;
  std::string Section;
  bool Verified = true;
  std::vector<uint8_t> Btf;
  /// How the program runs ("gpu persistent mapped, watchdog 50 ms").
  std::string Describe;
  /// A new back end running the same code (the object as it was at load,
  /// not as the file is now), maps empty: fault recovery.
  std::function<Expected<std::unique_ptr<runtime::BatchExecutor>>()> Remake;
  /// Gives up a back end that failed, when no call is inside it any more
  /// and none will come, and says how: the GPU's aborts a kernel that hangs
  /// and destroys its own CUDA context; others are just freed. Null: freed.
  std::function<std::string(std::shared_ptr<runtime::BatchExecutor>)> Discard;
};

/// Makes back ends: the host JIT and the GPU in the daemon, a map-only
/// stand-in in the fuzz target.
class BackendMaker {
public:
  virtual ~BackendMaker() = default;
  /// Reads, chooses, verifies and compiles or loads the program.
  virtual Expected<LoadedBackend> load(const LoadRequest &R) = 0;
};

struct DaemonOptions {
  /// `prog load` may take unverified .gpu.o files (test only).
  bool AllowUnverified = false;
  /// The data plane's workers (each has a lane of every program it runs).
  uint32_t Workers = 1;
  /// Test only: these batches (1-based, counted per program over its
  /// life) fail as a broken back end would.
  FaultInjection Inject;
  /// Called from a worker when a program's back end fails (the daemon
  /// wakes its control loop to run recoverFaults()).
  std::function<void()> OnFault;
};

class DaemonState {
public:
  DaemonState(PortControl &DP, BackendMaker &Backends, DaemonOptions O = {})
      : DP(DP), Backends(Backends), Opts(std::move(O)) {}

  /// One request (a JSON object) in, its response out.
  json::Value handle(const std::string &Line);
  /// Records every queue's rx count now; `stats` reports rates over the
  /// last two samples.
  void sampleRates();
  /// Stops the data plane (workers finish, ports close), then drops the
  /// programs.
  void stop();
  /// Re-creates the back end of every program whose back end failed (see
  /// recover()); returns the milliseconds until a failed re-creation should
  /// be tried again, or -1 when none waits.
  int recoverFaults();
  /// Every port's, queue's and program's counters now, in Prometheus's
  /// text exposition format 0.0.4 (DaemonMetrics.cpp; `daemon --metrics`
  /// serves it).
  std::string metrics() const;

private:
  struct Map {
    uint32_t Id = 0, ProgId = 0;
    runtime::MapInfo Info; ///< with the BTF ids its values print with
  };
  /// What the last fault of a program did.
  struct FaultRecord {
    int64_t At = 0; ///< Unix seconds
    std::string Error;
    bool Recovered = false;
    double RecoveryMs = 0;
    std::vector<std::string> MapsRestored;
    std::vector<std::pair<std::string, std::string>> MapsLost; ///< map, why
    std::string RecoveryError;
    /// How the failed back end was given up (Discard's answer).
    std::string Teardown;
  };
  struct Program {
    uint32_t Id = 0;
    std::string Name, Path, Section, Describe;
    exec::Backend Backend = exec::Backend::Host;
    bool Verified = true;
    int64_t LoadedAt = 0;
    /// What the ports run: the back end behind its guard.
    std::shared_ptr<GuardedExecutor> Exec;
    std::function<Expected<std::unique_ptr<runtime::BatchExecutor>>()> Remake;
    std::function<std::string(std::shared_ptr<runtime::BatchExecutor>)> Discard;
    std::optional<loader::BtfTypes> Btf;
    std::vector<uint32_t> MapIds;
    uint64_t Recoveries = 0;
    std::optional<FaultRecord> LastFault;
    std::chrono::steady_clock::time_point RetryAt{};
  };
  struct Sample {
    std::chrono::steady_clock::time_point At;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> Rx; ///< (port, queue)
  };

  Expected<json::Value> dispatch(const std::string &Cmd, const json::Value &Args);
  Expected<json::Value> progLoad(const json::Value &Args);
  Expected<json::Value> progList();
  Expected<json::Value> progShow(const json::Value &Args);
  Expected<json::Value> progUnload(const json::Value &Args);
  Expected<json::Value> progReplace(const json::Value &Args);
  Expected<json::Value> netAttach(const json::Value &Args);
  Expected<json::Value> netDetach(const json::Value &Args);
  Expected<json::Value> netResume(const json::Value &Args);
  Expected<json::Value> netList();
  Expected<json::Value> xskBind(const json::Value &Args);
  Expected<json::Value> xskUnbind(const json::Value &Args);
  Expected<json::Value> xskList();
  Expected<json::Value> mapList();
  Expected<json::Value> mapShow(const json::Value &Args);
  Expected<json::Value> mapDump(const json::Value &Args);
  Expected<json::Value> mapLookup(const json::Value &Args);
  Expected<json::Value> mapUpdate(const json::Value &Args);
  Expected<json::Value> mapDelete(const json::Value &Args);
  Expected<json::Value> stats();

  Expected<Program *> programArg(const json::Value &Args, const char *Key);
  Expected<Map *> mapArg(const json::Value &Args);
  Expected<uint32_t> portArg(const json::Value &Args, const char *Key = "port");
  json::Value xskJson(uint32_t Id, const runtime::XskConsumer &C) const;
  std::vector<uint32_t> portsOf(uint32_t ProgId) const;
  json::Value progJson(const Program &P) const;
  json::Value mapJson(const Map &M) const;
  json::Value entryJson(const Map &M, const uint8_t *Key, const uint8_t *Value) const;
  json::Value portJson(const runtime::PortStats &S, bool WithCounters) const;
  json::Value faultJson(const Program &P) const;
  /// Takes program `P`'s failed back end out (once no call is inside it),
  /// copies what its maps hold, gives it up, makes a new one from the
  /// spec, fills its maps and puts it behind the same guard, so every port
  /// running `P` runs the new one.
  void recover(Program &P);
  /// Every program's back end but `Except`'s quiesced (BatchExecutor::
  /// quiesce: persistent GPU kernels stopped, batches held off) until the
  /// tokens are dropped: around making or destroying a CUDA context, which
  /// would otherwise wait for those kernels for ever.
  std::vector<std::shared_ptr<void>> quiesceOthers(const Program *Except);
  /// Before `P` is dropped: gives up its back end if it failed.
  void release(Program &P);

  PortControl &DP;
  BackendMaker &Backends;
  DaemonOptions Opts;
  std::map<uint32_t, Program> Programs;
  std::map<uint32_t, Map> Maps;
  std::map<uint32_t, uint32_t> PortProgram; ///< port id -> program id
  uint32_t NextProgId = 1, NextMapId = 1;
  std::optional<Sample> Prev, Last;
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_DAEMON_DAEMONSTATE_H

// SPDX-License-Identifier: Apache-2.0
//
// `daemon --config FILE`: the programs and ports the daemon serves from the
// start, and again after each SIGHUP (what a systemd unit's ExecReload
// sends). One entry a line, `#` to the end of a line a comment:
//   program NAME path=/abs/prog.o [section=S] [backend=host|gpu] [gpu_mode=..]
//           [gpu_path=..] [inner_maps=..] [map_sizes=..] [watchdog_ms=N]
//           [blocks=N] [launch_size=N]
//   port DEVICE program=NAME [exception=DEVICE] [queues=N] [batch=N] [timeout_us=N]
//   xsk ID port=DEVICE [queue=N] out=DEVICE
// The keys are `prog load`'s, `net attach`'s and `xsk bind`'s arguments
// (docs/DAEMON.md); an xsk line's devices are ports of the file.
// A reload brings the daemon from the last configuration to the new one with
// the requests a client would send: programs loaded first; a program whose
// line or object file changed is loaded anew and put in place on its ports
// with `prog replace` (between two batches: no packet lost) before the old
// one is unloaded; ports gone from the file are detached, new ones
// attached, ones whose options changed detached and attached again; xsk
// consumers new or changed, or whose ports were attached anew, are bound
// (again), and those gone from the file unbound. A file
// that does not parse, or a program that does not load, leaves what runs as
// it was (the failing program keeps its old version).
//
// With a state folder (`daemon --state-dir DIR`), the maps of each program
// are saved to DIR/NAME.maps.json when the daemon stops, and put back into
// the program the next time a daemon loads it under that NAME (a restart
// keeps a conntrack table): every map whose name, type and sizes are the
// same, entries written as `map update` writes them (per-CPU values:
// summed, into CPU 0); .rodata is skipped. A file that cannot be read is
// reported and the program runs with fresh maps.

#ifndef EBPF_GPU_DAEMON_DAEMONCONFIG_H
#define EBPF_GPU_DAEMON_DAEMONCONFIG_H

#include "ebpf-gpu/Daemon/Json.h"

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

struct DaemonConfig {
  struct Entry {
    unsigned Line = 0;
    std::string Name;     ///< the program's name, the port's device, the xsk's id
    json::Value Args;     ///< the request's arguments (a port's without "prog")
    std::string Program;  ///< ports: the program's NAME
    bool operator==(const Entry &O) const;
  };
  std::vector<Entry> Programs, Ports, Xsks;
};

/// Reads a configuration's text; errors name `File` and the line.
Expected<DaemonConfig> parseDaemonConfig(const std::string &Text, const std::string &File);

/// What a configuration made of the daemon: program and port ids, and the
/// identity of each program's object file when it was loaded.
class ConfigApplier {
public:
  /// `Send` takes a request's command and arguments and returns its
  /// response ({"ok": ..., "result"|"error": ...}: DaemonState::handle's).
  using Sender = std::function<json::Value(const std::string &Cmd, json::Value Args)>;
  explicit ConfigApplier(Sender Send) : Send(std::move(Send)) {}

  /// Reads `File` and brings the daemon to it. Returns one line a change
  /// made ("config: program fw loaded as 1", ...), or the first error
  /// that kept a part of the file from taking effect (`Strict`: at the
  /// first error; the daemon's start treats any error as fatal).
  Expected<std::vector<std::string>> apply(const std::string &File, bool Strict);
  /// Where maps are saved and restored from (empty: nowhere).
  void setStateDir(std::string Dir) { StateDir = std::move(Dir); }
  /// Saves every program's maps to the state folder; a line a program (or
  /// what kept it from being saved).
  std::vector<std::string> saveState();

private:
  struct Loaded {
    DaemonConfig::Entry Line;
    uint32_t Id = 0;
    std::string FileStamp; ///< size and mtime of the object when loaded
  };
  struct Attached {
    DaemonConfig::Entry Line;
    uint32_t Port = 0, Prog = 0;
  };
  /// apply()'s steps, in their order, sharing one Reload; each returns
  /// true when an error ends the reload (`Strict`), the error in it.
  struct Reload;
  bool loadPrograms(Reload &Run);
  bool detachPorts(Reload &Run);
  bool replacePrograms(Reload &Run);
  bool attachPorts(Reload &Run);
  bool bindXsks(Reload &Run);
  bool resumePorts(Reload &Run);
  bool unloadPrograms(Reload &Run);
  /// Puts program NAME's saved maps (if any) into program `Id`.
  std::string restoreState(const std::string &Name, uint32_t Id);
  /// The map ids of program `Id` and each map's description (map show).
  std::vector<json::Value> mapsOf(uint32_t Id);

  Sender Send;
  std::string StateDir;
  std::map<std::string, Loaded> Programs; ///< by NAME
  std::map<std::string, Attached> Ports;  ///< by DEVICE
  std::map<std::string, DaemonConfig::Entry> Xsks; ///< bound, by ID
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_DAEMON_DAEMONCONFIG_H

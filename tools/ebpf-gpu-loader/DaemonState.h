// SPDX-License-Identifier: Apache-2.0
//
// What the daemon holds and how it answers requests: the program table
// (loaded, verified, JIT-compiled or GPU-loaded programs with ids, their
// maps with daemon-wide ids and BTF for pretty-printing), which program
// each port runs, and rate samples for `stats`. handle() takes one request
// line and returns its response; it never throws and never ends the
// daemon: every mistake is an error response. Not thread-safe: the
// daemon's control thread is its only user.

#ifndef EBPF_GPU_TOOLS_LOADER_DAEMONSTATE_H
#define EBPF_GPU_TOOLS_LOADER_DAEMONSTATE_H

#include "Json.h"

#include "ebpf-gpu/Loader/BtfFormat.h"
#include "ebpf-gpu/Runtime/BatchExecutor.h"
#include "ebpf-gpu/Runtime/Dataplane.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ebpfgpu::tools {

class DaemonState {
public:
  explicit DaemonState(runtime::Dataplane &DP) : DP(DP) {}

  /// One request (a JSON object) in, its response out.
  json::Value handle(const std::string &Line);
  /// Records every queue's rx count now; `stats` reports rates over the
  /// last two samples.
  void sampleRates();
  /// Stops the data plane (workers finish, ports close), then drops the
  /// programs.
  void stop();

private:
  struct Map {
    uint32_t Id = 0, ProgId = 0;
    runtime::MapInfo Info;
    uint32_t KeyType = 0, ValueType = 0; ///< BTF ids (0: none)
  };
  struct Program {
    uint32_t Id = 0;
    std::string Name, Path, Section, Backend;
    bool Verified = true;
    int64_t LoadedAt = 0;
    std::shared_ptr<runtime::BatchExecutor> Exec;
    std::optional<loader::BtfTypes> Btf;
    std::vector<uint32_t> MapIds;
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
  Expected<json::Value> netList();
  Expected<json::Value> mapList();
  Expected<json::Value> mapShow(const json::Value &Args);
  Expected<json::Value> mapDump(const json::Value &Args);
  Expected<json::Value> mapLookup(const json::Value &Args);
  Expected<json::Value> mapUpdate(const json::Value &Args);
  Expected<json::Value> mapDelete(const json::Value &Args);
  Expected<json::Value> stats();

  Expected<Program *> programArg(const json::Value &Args, const char *Key);
  Expected<Map *> mapArg(const json::Value &Args);
  Expected<uint32_t> portArg(const json::Value &Args);
  std::vector<uint32_t> portsOf(uint32_t ProgId) const;
  json::Value progJson(const Program &P) const;
  json::Value mapJson(const Map &M) const;
  json::Value entryJson(const Map &M, const uint8_t *Key, const uint8_t *Value) const;
  json::Value portJson(const runtime::PortStats &S, bool WithCounters) const;

  runtime::Dataplane &DP;
  std::map<uint32_t, Program> Programs;
  std::map<uint32_t, Map> Maps;
  std::map<uint32_t, uint32_t> PortProgram; ///< port id -> program id
  uint32_t NextProgId = 1, NextMapId = 1;
  std::optional<Sample> Prev, Last;
};

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_LOADER_DAEMONSTATE_H

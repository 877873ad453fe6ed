// SPDX-License-Identifier: Apache-2.0
//
// libFuzzer target: the daemon's control protocol. An input is a session,
// request lines as a client writes them on the socket; each goes through
// the JSON parser and DaemonState::handle, which must answer every line
// with one well-formed response (an error for anything malformed) and never
// crash. A parsed request must also survive a write/parse round trip. The
// data plane is a table of ports without DPDK, and the back ends are
// map-only stand-ins loaded from .gpu.o files (their maps in host memory,
// every packet passed), so `prog load` of a seed's .gpu.o, `map update` /
// `dump` with BTF pretty-printing, `net attach` / `replace` / `detach` all
// run for real. A line "!" runs one packet through every attached port's
// program, with batches 1 and 3 of each program failing (the daemon's test
// fault injection), and then the daemon's fault recovery.

#include "ebpf-gpu/Daemon/DaemonState.h"
#include "ebpf-gpu/Daemon/Json.h"

#include "ebpf-gpu/Abi/GpuObject.h"
#include "ebpf-gpu/Abi/MapMemory.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

using namespace ebpfgpu;
using namespace ebpfgpu::tools;

namespace {

/// A back end whose maps live in host memory and which passes every packet.
class MapOnlyExecutor final : public runtime::BatchExecutor {
public:
  static Expected<std::unique_ptr<runtime::BatchExecutor>> make(const abi::GpuObjectSpec &S) {
    std::unique_ptr<MapOnlyExecutor> E(new MapOnlyExecutor());
    E->Name = S.Program;
    for (const platform::MapSpec &M : S.Maps) {
      runtime::MapInfo Info = runtime::liveMap(M);
      const platform::MapShape &Shape = Info;
      if (MaybeError Err = abi::checkMapSupported(M.Name, Shape))
        return std::move(*Err);
      // Keeps each input's memory small whatever the object asks for.
      if (uint64_t(Shape.MaxEntries) * (Shape.KeySize + Shape.ValueSize) > (8u << 20))
        return Error("map '" + M.Name + "': too large for the fuzz target");
      E->Maps.push_back(std::make_unique<abi::HostMap>(M.Name, Shape));
      E->Infos.push_back(std::move(Info));
    }
    for (size_t I = 0; I < S.Maps.size(); ++I) {
      if (!ebpfgpu_map_is_outer(E->Infos[I].Type))
        continue;
      std::vector<abi::HostMap *> Inner;
      for (const std::string &N : S.Maps[I].InnerMaps)
        for (auto &M : E->Maps)
          if (M->name() == N)
            Inner.push_back(M.get());
      if (Inner.size() != S.Maps[I].InnerMaps.size())
        return Error("map '" + S.Maps[I].Name + "': an inner map is missing");
      E->Maps[I]->setInnerMaps(S.Maps[I].InnerMaps, Inner);
    }
    return std::unique_ptr<runtime::BatchExecutor>(std::move(E));
  }

  MaybeError run(runtime::PacketBatch &B) override {
    for (size_t I = 0; I < B.size(); ++I)
      B.setOutcome(I, B.offset(I), B.length(I), 2, 0);
    return std::nullopt;
  }
  Expected<std::string> dumpMaps() override {
    std::string Out;
    for (auto &M : Maps)
      Out += M->format();
    return Out;
  }
  MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                       const std::vector<uint8_t> &Value) override {
    for (auto &M : Maps)
      if (M->name() == Map)
        return abi::setMapEntry(Map, *M->header(), Key, Value);
    return Error("no map " + Map);
  }
  MaybeError setFib(const std::vector<uint8_t> &) override { return Error("no fib here"); }
  MaybeError setInnerMap(const std::string &, const std::vector<uint8_t> &,
                         const std::string &) override {
    return Error("not here");
  }
  MaybeError checkMaps() override {
    for (auto &M : Maps)
      if (MaybeError E = M->check())
        return E;
    return std::nullopt;
  }
  Expected<std::string> takeTrace() override { return std::string(); }
  Expected<std::string> takeEvents() override { return std::string(); }
  Expected<std::vector<std::string>> warnings() override { return std::vector<std::string>(); }
  std::vector<runtime::MapInfo> maps() const override { return Infos; }
  MaybeError accessMap(const std::string &Name, const runtime::MapOperation &Op) override {
    for (auto &M : Maps)
      if (M->name() == Name) {
        bool Changed = false;
        MaybeError E = Op(*M->header(), Changed);
        if (MaybeError Bad = M->check()) {
          std::fprintf(stderr, "map operation broke the map: %s\n", Bad->message().c_str());
          std::abort();
        }
        return E;
      }
    return Error("no map named '" + Name + "'");
  }
  const std::string &programName() const override { return Name; }
  const char *backendName() const override { return "gpu"; }

private:
  std::string Name;
  std::vector<std::unique_ptr<abi::HostMap>> Maps;
  std::vector<runtime::MapInfo> Infos;
};

class FakeBackends final : public BackendMaker {
public:
  Expected<LoadedBackend> load(const LoadRequest &R) override {
    if (R.Backend && R.Backend != exec::Backend::Gpu)
      return Error("the fuzz target loads .gpu.o files only");
    auto Spec = abi::readGpuObjectFile(R.Path);
    if (!Spec)
      return Spec.takeError();
    if (!Spec->Verified && !R.AllowUnverified)
      return Error(R.Path + ": compiled without the safety verifier");
    auto E = MapOnlyExecutor::make(*Spec);
    if (!E)
      return E.takeError();
    LoadedBackend L;
    L.Exec = std::move(*E);
    L.Backend = exec::Backend::Gpu;
    L.Section = Spec->Section;
    L.Verified = Spec->Verified;
    L.Btf = Spec->Btf;
    L.Describe = "map-only stand-in";
    L.Remake = [S = *Spec] { return MapOnlyExecutor::make(S); };
    return L;
  }
};

/// Ports without DPDK: attach records them, stats reports what they ran.
class FakePorts final : public PortControl {
public:
  Expected<uint32_t> attach(const runtime::AttachOptions &O,
                            std::shared_ptr<runtime::BatchExecutor> Exec) override {
    if (O.Device.empty() || O.Device.size() > 64)
      return Error("no such device");
    if (findPort(O.Device))
      return Error("in use");
    for (uint32_t Id = 1; Id <= runtime::MaxDataplanePorts; ++Id)
      if (!Ports.count(Id)) {
        runtime::PortStats S;
        S.Id = Id;
        S.Device = O.Device;
        S.Exception = O.Exception;
        S.Options = O;
        S.Program = Exec->programName();
        for (uint32_t Q = 0; Q < O.Queues; ++Q) {
          runtime::QueueStats QS;
          QS.Queue = Q;
          QS.Worker = Q % 2;
          S.Queues.push_back(QS);
        }
        Ports[Id] = {S, std::move(Exec)};
        return Id;
      }
    return Error("no free port id");
  }
  MaybeError replace(uint32_t Id, std::shared_ptr<runtime::BatchExecutor> Exec) override {
    auto It = Ports.find(Id);
    if (It == Ports.end())
      return Error("no port");
    It->second.first.Program = Exec->programName();
    It->second.second = std::move(Exec);
    return std::nullopt;
  }
  MaybeError resume(uint32_t Id) override {
    return Ports.count(Id) ? MaybeError() : MaybeError(Error("no port"));
  }
  Expected<runtime::PortStats> detach(uint32_t Id) override {
    auto It = Ports.find(Id);
    if (It == Ports.end())
      return Error("no port");
    runtime::PortStats S = It->second.first;
    Ports.erase(It);
    for (auto X = Xsks.begin(); X != Xsks.end();)
      X = X->second.Ifindex == Id || X->second.Port == Id ? Xsks.erase(X) : std::next(X);
    return S;
  }
  std::vector<runtime::PortStats> stats() const override {
    std::vector<runtime::PortStats> Out;
    for (const auto &[Id, P] : Ports)
      Out.push_back(P.first);
    return Out;
  }
  uint32_t findPort(const std::string &NameOrId) const override {
    for (const auto &[Id, P] : Ports)
      if (std::to_string(Id) == NameOrId || P.first.Device == NameOrId)
        return Id;
    return 0;
  }
  unsigned workers() const override { return 2; }
  MaybeError bindXsk(uint32_t Id, const runtime::XskConsumer &C) override {
    if (Id < 1 || Id > runtime::MaxXskConsumers || !Ports.count(C.Ifindex) || !Ports.count(C.Port))
      return Error("no such consumer id or port");
    Xsks[Id] = C;
    return std::nullopt;
  }
  bool unbindXsk(uint32_t Id) override { return Xsks.erase(Id) != 0; }
  std::vector<std::pair<uint32_t, runtime::XskConsumer>> xsks() const override {
    return {Xsks.begin(), Xsks.end()};
  }
  void stop() override {
    Ports.clear();
    Xsks.clear();
  }

  /// One packet through every port's program, counted as the data plane
  /// counts it.
  void runOnePacketEach() {
    for (auto &[Id, P] : Ports) {
      runtime::PacketBatch B(128);
      uint8_t Frame[60] = {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0};
      B.add(Frame, sizeof(Frame));
      runtime::QueueStats &Q = P.first.Queues.at(0);
      ++Q.RxPackets;
      if (P.second->run(B))
        ++Q.ExecFailed;
      else
        ++Q.Actions.Packets[2];
    }
  }

private:
  std::map<uint32_t, std::pair<runtime::PortStats, std::shared_ptr<runtime::BatchExecutor>>> Ports;
  std::map<uint32_t, runtime::XskConsumer> Xsks;
};

void checkResponse(const json::Value &R) {
  const json::Value *Ok = R.get("ok");
  if (!R.isObject() || !Ok || !Ok->isBool() || !R.get("id") ||
      (Ok->boolean() ? !R.get("result") : !R.get("error") || !R.get("error")->isString())) {
    std::fprintf(stderr, "malformed response: %s\n", R.write().c_str());
    std::abort();
  }
  // What the daemon writes on the socket must read back as the same JSON.
  std::string Text = R.write();
  auto Again = json::parse(Text);
  if (!Again || Again->write() != Text) {
    std::fprintf(stderr, "a response does not read back: %s\n", Text.c_str());
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static FaultInjection Inject = *FaultInjection::parse("1,3");
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  FakePorts Ports;
  FakeBackends Backends;
  DaemonOptions O;
  O.Inject = Inject;
  O.AllowUnverified = Size % 2; // either way, whatever the input
  DaemonState State(Ports, Backends, O);
  size_t At = 0, Lines = 0;
  while (At < Text.size() && Lines++ < 64) {
    size_t End = Text.find('\n', At);
    std::string Line = Text.substr(At, End == std::string::npos ? std::string::npos : End - At);
    At = End == std::string::npos ? Text.size() : End + 1;
    if (Line == "!") {
      Ports.runOnePacketEach();
      State.recoverFaults();
      continue;
    }
    if (auto V = json::parse(Line)) {
      std::string W = V->write();
      auto Again = json::parse(W);
      if (!Again || Again->write() != W) {
        std::fprintf(stderr, "JSON does not read back: %s\n", W.c_str());
        std::abort();
      }
    }
    checkResponse(State.handle(Line));
  }
  State.sampleRates();
  checkResponse(State.handle("{\"id\": 0, \"cmd\": \"stats\"}"));
  // The metrics of whatever the requests left: every line a comment or a
  // sample, every label value quoted on one line.
  const std::string M = State.metrics();
  for (size_t At = 0, Nl; At < M.size(); At = Nl + 1) {
    Nl = M.find('\n', At);
    if (Nl == std::string::npos || (M[At] != '#' && M.compare(At, 9, "ebpf_gpu_") != 0)) {
      std::fprintf(stderr, "metrics: malformed line at byte %zu\n", At);
      std::abort();
    }
  }
  State.stop();
  return 0;
}

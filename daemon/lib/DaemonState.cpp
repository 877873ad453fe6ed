// SPDX-License-Identifier: Apache-2.0
//
// The daemon's requests: programs (load, list, show, unload, replace),
// ports (attach, detach, list) and stats, each answered with a JSON result
// or one error; the maps' requests are DaemonMaps.cpp's.

#include "DaemonArgs.h"
#include "ebpf-gpu/Daemon/DaemonState.h"
#include "DaemonText.h"

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Loader/MapEntries.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace ebpfgpu::tools {

using namespace daemon;

namespace {

using json::Value;

Value actionsJson(const runtime::ActionStats &A) {
  Value O = Value::object();
  for (unsigned I = 0; I < runtime::NumXdpActions; ++I)
    O.set(runtime::xdpActionName(I),
          Value::object().set("packets", A.Packets[I]).set("bytes", A.Bytes[I]));
  return O;
}

Value latencyJson(const runtime::LatencyHistogram::Counts &C) {
  uint64_t N = 0;
  for (uint64_t X : C)
    N += X;
  return Value::object()
      .set("batches", N)
      .set("p50", double(runtime::LatencyHistogram::quantile(C, 0.50)) / 1000.0)
      .set("p99", double(runtime::LatencyHistogram::quantile(C, 0.99)) / 1000.0);
}

} // namespace

json::Value DaemonState::handle(const std::string &Line) {
  Value Resp = Value::object();
  Expected<Value> Req = json::parse(Line);
  if (!Req) {
    Resp.set("id", nullptr).set("ok", false).set("error", Req.error().message());
    return Resp;
  }
  const Value *Id = Req->isObject() ? Req->get("id") : nullptr;
  Resp.set("id", Id ? *Id : Value());
  if (!Req->isObject()) {
    Resp.set("ok", false).set("error", "a request is a JSON object");
    return Resp;
  }
  const Value *Cmd = Req->get("cmd");
  if (!Cmd || !Cmd->isString()) {
    Resp.set("ok", false).set("error", "a request needs \"cmd\" (a string)");
    return Resp;
  }
  const Value *Args = Req->get("args");
  Value NoArgs = Value::object();
  if (Args && !Args->isObject()) {
    Resp.set("ok", false).set("error", "\"args\" must be an object");
    return Resp;
  }
  Expected<Value> R = dispatch(Cmd->text(), Args ? *Args : NoArgs);
  if (!R) {
    Resp.set("ok", false).set("error", Cmd->text() + ": " + R.error().message());
    return Resp;
  }
  Resp.set("ok", true).set("result", std::move(*R));
  return Resp;
}

Expected<Value> DaemonState::dispatch(const std::string &Cmd, const Value &Args) {
  if (Cmd == "prog load")
    return progLoad(Args);
  if (Cmd == "prog list")
    return progList();
  if (Cmd == "prog show")
    return progShow(Args);
  if (Cmd == "prog unload")
    return progUnload(Args);
  if (Cmd == "prog replace")
    return progReplace(Args);
  if (Cmd == "net attach")
    return netAttach(Args);
  if (Cmd == "net detach")
    return netDetach(Args);
  if (Cmd == "net resume")
    return netResume(Args);
  if (Cmd == "net list")
    return netList();
  if (Cmd == "xsk bind")
    return xskBind(Args);
  if (Cmd == "xsk unbind")
    return xskUnbind(Args);
  if (Cmd == "xsk list")
    return xskList();
  if (Cmd == "map list")
    return mapList();
  if (Cmd == "map show")
    return mapShow(Args);
  if (Cmd == "map dump")
    return mapDump(Args);
  if (Cmd == "map lookup")
    return mapLookup(Args);
  if (Cmd == "map update")
    return mapUpdate(Args);
  if (Cmd == "map delete")
    return mapDelete(Args);
  if (Cmd == "stats")
    return stats();
  return Error("unknown command (prog load|list|show|unload|replace, net attach|detach|resume|list, "
               "xsk bind|unbind|list, map list|show|dump|lookup|update|delete, stats)");
}

// ---- programs --------------------------------------------------------------

namespace {

/// "A=B,C=D" as (A, B), (C, D); errors name the argument.
Expected<std::vector<std::pair<std::string, std::string>>> pairsArg(const std::string &Text,
                                                                    const std::string &Arg) {
  std::vector<std::pair<std::string, std::string>> Out;
  size_t Pos = 0;
  while (!Text.empty() && Pos <= Text.size()) {
    size_t End = Text.find(',', Pos);
    std::string Item = Text.substr(Pos, End == std::string::npos ? End : End - Pos);
    size_t Eq = Item.find('=');
    if (Eq == std::string::npos || Eq == 0 || Eq + 1 == Item.size())
      return Error(Arg + ": expected NAME=VALUE[,NAME=VALUE...], not '" + Text + "'");
    Out.emplace_back(Item.substr(0, Eq), Item.substr(Eq + 1));
    if (End == std::string::npos)
      break;
    Pos = End + 1;
  }
  return Out;
}

} // namespace

Expected<Value> DaemonState::progLoad(const Value &Args) {
  auto Path = stringArg(Args, "path");
  if (!Path)
    return Path.takeError();
  auto Section = stringArg(Args, "section", false);
  auto Backend = stringArg(Args, "backend", false);
  auto Name = stringArg(Args, "name", false);
  auto Mode = stringArg(Args, "gpu_mode", false);
  auto DataPath = stringArg(Args, "gpu_path", false);
  auto InnerMaps = stringArg(Args, "inner_maps", false);
  auto MapSizes = stringArg(Args, "map_sizes", false);
  auto KeySizes = stringArg(Args, "map_key_sizes", false);
  auto ValueSizes = stringArg(Args, "map_value_sizes", false);
  auto Gpus = stringArg(Args, "gpus", false);
  for (auto *S : {&Section, &Backend, &Name, &Mode, &DataPath, &InnerMaps, &MapSizes, &KeySizes,
                  &ValueSizes, &Gpus})
    if (!*S)
      return S->takeError();
  auto Watchdog = numberArg(Args, "watchdog_ms", 1000, 1, 3600000);
  auto Blocks = numberArg(Args, "blocks", 0, 0, 65536);
  auto LaunchSize = numberArg(Args, "launch_size", 0, 0, 65536);
  for (auto *N : {&Watchdog, &Blocks, &LaunchSize})
    if (!*N)
      return N->takeError();
  if (Path->empty() || (*Path)[0] != '/')
    return Error("path '" + *Path + "' must be absolute (the daemon's directory is not yours)");
  std::optional<exec::Backend> Kind;
  if (!Backend->empty()) {
    Kind = exec::parseBackend(*Backend);
    if (Kind != exec::Backend::Host && Kind != exec::Backend::Gpu)
      return Error("backend must be host or gpu, not '" + *Backend + "'");
  }
  LoadRequest R;
  if (!Mode->empty() && !loader::parseGpuMode(*Mode, R.GpuMode.emplace()))
    return Error("gpu_mode must be launch or persistent, not '" + *Mode + "'");
  if (!DataPath->empty() && !loader::parseGpuDataPath(*DataPath, R.GpuPath.emplace()))
    return Error("gpu_path must be copy or mapped, not '" + *DataPath + "'");
  R.Path = *Path;
  R.Section = *Section;
  R.Backend = Kind;
  R.WatchdogMs = uint32_t(*Watchdog);
  R.Blocks = uint32_t(*Blocks);
  R.LaunchSize = uint32_t(*LaunchSize);
  R.AllowUnverified = Opts.AllowUnverified;
  R.Workers = Opts.Workers;
  R.Gpus = *Gpus;
  auto Inner = pairsArg(*InnerMaps, "inner_maps");
  if (!Inner)
    return Inner.takeError();
  R.InnerMaps = std::move(*Inner);
  for (const auto &[Arg, Key, Unit, Into] :
       {std::tuple(&*MapSizes, "map_sizes", "entries", &R.MapSizes),
        std::tuple(&*KeySizes, "map_key_sizes", "bytes", &R.KeySizes),
        std::tuple(&*ValueSizes, "map_value_sizes", "bytes", &R.ValueSizes)}) {
    auto Sizes = pairsArg(*Arg, Key);
    if (!Sizes)
      return Sizes.takeError();
    for (const auto &[Map, N] : *Sizes) {
      char *End = nullptr;
      unsigned long long E = std::strtoull(N.c_str(), &End, 10);
      if (*End || !std::isdigit(static_cast<unsigned char>(N[0])) || E == 0 || E > 0x7fffffffu)
        return Error(std::string(Key) + ": '" + Map + "=" + N + "': " + Unit +
                     " from 1 to 2147483647");
      Into->emplace_back(Map, uint32_t(E));
    }
  }
  std::vector<std::shared_ptr<void>> Quiet = quiesceOthers(nullptr);
  auto L = Backends.load(R);
  Quiet.clear();
  if (!L)
    return L.takeError();

  Program P;
  P.Path = *Path;
  P.Backend = L->Backend;
  P.Section = L->Section;
  P.Verified = L->Verified;
  P.Describe = L->Describe;
  P.Remake = std::move(L->Remake);
  P.Discard = std::move(L->Discard);
  std::vector<uint8_t> Btf = std::move(L->Btf);
  P.Exec = std::make_shared<GuardedExecutor>(
      std::shared_ptr<runtime::BatchExecutor>(std::move(L->Exec)), Opts.Inject, Opts.OnFault);
  P.Name = Name->empty() ? P.Exec->programName() : *Name;
  P.Id = NextProgId++;
  P.LoadedAt = int64_t(std::time(nullptr));
  if (!Btf.empty()) {
    auto T = loader::BtfTypes::read(Btf);
    if (T) // without readable BTF, maps print in hex
      P.Btf = std::move(*T);
  }
  for (const runtime::MapInfo &I : P.Exec->maps()) {
    Map M;
    M.Id = NextMapId++;
    M.ProgId = P.Id;
    M.Info = I;
    P.MapIds.push_back(M.Id);
    Maps[M.Id] = M;
  }
  uint32_t Id = P.Id;
  Programs[Id] = std::move(P);
  return progJson(Programs[Id]);
}

std::vector<uint32_t> DaemonState::portsOf(uint32_t ProgId) const {
  std::vector<uint32_t> Out;
  for (const auto &[Port, Prog] : PortProgram)
    if (Prog == ProgId)
      Out.push_back(Port);
  return Out;
}

Value DaemonState::progJson(const Program &P) const {
  Value Ids = Value::array(), Ports = Value::array();
  for (uint32_t M : P.MapIds)
    Ids.push(M);
  for (uint32_t Port : portsOf(P.Id))
    Ports.push(Port);
  return Value::object()
      .set("id", P.Id)
      .set("type", "xdp")
      .set("name", P.Name)
      .set("backend", exec::backendName(P.Backend))
      .set("path", P.Path)
      .set("section", P.Section)
      .set("verified", P.Verified)
      .set("run", P.Describe)
      .set("loaded_at", P.LoadedAt)
      .set("btf", P.Btf.has_value())
      .set("map_ids", std::move(Ids))
      .set("ports", std::move(Ports))
      .set("faults", faultJson(P));
}

Value DaemonState::faultJson(const Program &P) const {
  Value F = Value::object()
                .set("state", P.Exec->faulted() ? "faulted" : "running")
                .set("faults", P.Exec->faults())
                .set("recoveries", P.Recoveries)
                .set("failed_batches", P.Exec->failedBatches())
                .set("failed_packets", P.Exec->failedPackets());
  if (!P.LastFault)
    return F.set("last", nullptr);
  const FaultRecord &R = *P.LastFault;
  Value Restored = Value::array(), Lost = Value::array();
  for (const std::string &M : R.MapsRestored)
    Restored.push(M);
  for (const auto &[M, Why] : R.MapsLost)
    Lost.push(Value::object().set("map", M).set("why", Why));
  return F.set(
      "last", Value::object()
                  .set("at", R.At)
                  .set("error", R.Error)
                  .set("recovered", R.Recovered)
                  .set("recovery_ms", R.RecoveryMs)
                  .set("recovery_error", R.RecoveryError.empty() ? Value() : Value(R.RecoveryError))
                  .set("teardown", R.Teardown.empty() ? Value() : Value(R.Teardown))
                  .set("maps_restored", std::move(Restored))
                  .set("maps_lost", std::move(Lost)));
}

Expected<DaemonState::Program *> DaemonState::programArg(const Value &Args, const char *Key) {
  const Value *V = Args.get(Key);
  std::optional<uint64_t> Id = V ? V->u64() : std::nullopt;
  if (!Id)
    return Error(std::string("argument '") + Key + "' must be a program id");
  auto It = Programs.find(uint32_t(*Id));
  if (*Id > UINT32_MAX || It == Programs.end())
    return Error("no program with id " + std::to_string(*Id));
  return &It->second;
}

Expected<Value> DaemonState::progList() {
  Value L = Value::array();
  for (const auto &[Id, P] : Programs)
    L.push(progJson(P));
  return L;
}

Expected<Value> DaemonState::progShow(const Value &Args) {
  auto P = programArg(Args, "id");
  if (!P)
    return P.takeError();
  return progJson(**P);
}

Expected<Value> DaemonState::progUnload(const Value &Args) {
  auto P = programArg(Args, "id");
  if (!P)
    return P.takeError();
  std::vector<uint32_t> Ports = portsOf((*P)->Id);
  if (!Ports.empty()) {
    std::string List;
    for (uint32_t Port : Ports)
      List += (List.empty() ? "" : ", ") + std::to_string(Port);
    return Error("program " + std::to_string((*P)->Id) + " runs on port(s) " + List +
                 "; detach them or replace the program there first");
  }
  uint32_t Id = (*P)->Id;
  for (uint32_t M : (*P)->MapIds)
    Maps.erase(M);
  std::vector<std::shared_ptr<void>> Quiet = quiesceOthers(*P);
  (*P)->Exec->quiesce(); // no port runs it: nothing starts it again
  release(**P);
  Programs.erase(Id);
  return Value::object().set("id", Id).set("unloaded", true);
}

Expected<Value> DaemonState::progReplace(const Value &Args) {
  auto Old = programArg(Args, "id");
  if (!Old)
    return Old.takeError();
  auto New = programArg(Args, "new_id");
  if (!New)
    return New.takeError();
  std::vector<uint32_t> Ports = portsOf((*Old)->Id);
  if (Ports.empty())
    return Error("program " + std::to_string((*Old)->Id) + " runs on no port");
  Value Done = Value::array();
  for (uint32_t Port : Ports) {
    if (MaybeError E = DP.replace(Port, (*New)->Exec))
      return std::move(*E);
    PortProgram[Port] = (*New)->Id;
    Done.push(Port);
  }
  return Value::object()
      .set("id", (*Old)->Id)
      .set("new_id", (*New)->Id)
      .set("ports", std::move(Done));
}

// ---- ports -----------------------------------------------------------------

Expected<uint32_t> DaemonState::portArg(const Value &Args, const char *Key) {
  const Value *V = Args.get(Key);
  if (!V || (!V->isString() && !V->isNumber()))
    return Error(std::string("argument '") + Key + "' must be a port id or device name");
  uint32_t Id = DP.findPort(V->text());
  if (!Id)
    return Error("no port '" + V->text() + "' (net list shows them)");
  return Id;
}

Value DaemonState::portJson(const runtime::PortStats &S, bool WithCounters) const {
  auto It = PortProgram.find(S.Id);
  Value Prog = Value::object()
                   .set("id", It == PortProgram.end() ? Value() : Value(It->second))
                   .set("name", S.Program);
  Value O = Value::object()
                .set("id", S.Id)
                .set("ifindex", S.Id)
                .set("device", S.Device)
                .set("exception", S.Exception.empty() ? Value() : Value(S.Exception))
                .set("prog", std::move(Prog))
                .set("queues", S.Options.Queues)
                .set("batch", S.Options.BatchSize)
                .set("timeout_us", S.Options.TimeoutUs);
  if (!WithCounters)
    return O;
  runtime::ActionStats A = S.actions();
  uint64_t Oversized = 0, Unknown = 0, PassDropped = 0, ExecFailed = 0, RxBytes = 0;
  uint64_t Copies = 0, CopyFailed = 0, ToCpu = 0, ToXsk = 0, XskRefused = 0;
  for (const runtime::QueueStats &Q : S.Queues) {
    ToCpu += Q.RedirectCpu;
    ToXsk += Q.RedirectXsk;
    XskRefused += Q.XskRefused;
    Copies += Q.BroadcastCopies;
    CopyFailed += Q.BroadcastFailed;
    Oversized += Q.Oversized;
    Unknown += Q.RedirectUnknown;
    PassDropped += Q.PassDropped;
    ExecFailed += Q.ExecFailed;
    RxBytes += Q.RxBytes;
  }
  O.set("rx_packets", S.rxPackets())
      .set("rx_bytes", RxBytes)
      .set("actions", actionsJson(A))
      .set("invalid_verdicts", A.Invalid)
      .set("tx_packets", S.TxPackets)
      .set("tx_bytes", S.TxBytes)
      .set("tx_full", S.TxFull)
      .set("pass_tx_packets", S.PassTxPackets)
      .set("pass_tx_full", S.PassTxFull)
      .set("broadcast_copies", Copies)
      .set("redirect_cpu", ToCpu)
      .set("redirect_xsk", ToXsk)
      .set("xsk_refused", XskRefused)
      .set("errors", Value::object()
                         .set("oversized", Oversized)
                         .set("redirect_unknown", Unknown)
                         .set("pass_dropped", PassDropped)
                         .set("exec_failed", ExecFailed)
                         .set("broadcast_failed", CopyFailed)
                         .set("rx_nombuf", S.RxNoMbuf)
                         .set("rx_missed", S.RxMissed)
                         .set("rx_errors", S.RxErrors)
                         .set("tx_errors", S.TxErrors));
  return O;
}

Expected<Value> DaemonState::netAttach(const Value &Args) {
  auto P = programArg(Args, "prog");
  if (!P)
    return P.takeError();
  auto Dev = stringArg(Args, "device");
  if (!Dev)
    return Dev.takeError();
  // A port already attached gets the program switched between batches.
  if (uint32_t Existing = DP.findPort(*Dev)) {
    if (MaybeError E = DP.replace(Existing, (*P)->Exec))
      return std::move(*E);
    PortProgram[Existing] = (*P)->Id;
    return Value::object().set("port", Existing).set("prog", (*P)->Id).set("replaced", true);
  }
  runtime::AttachOptions O;
  O.Device = *Dev;
  auto Exc = stringArg(Args, "exception", false);
  auto Queues = numberArg(Args, "queues", 1, 1, 64);
  auto Batch = numberArg(Args, "batch", 256, 1, 65536);
  auto Timeout = numberArg(Args, "timeout_us", 100, 0, 10000000);
  if (!Exc)
    return Exc.takeError();
  for (auto *N : {&Queues, &Batch, &Timeout})
    if (!*N)
      return N->takeError();
  O.Exception = *Exc;
  O.Queues = uint32_t(*Queues);
  O.BatchSize = uint32_t(*Batch);
  O.TimeoutUs = uint32_t(*Timeout);
  // Paused: receives nothing until `net resume`, so that what the port's
  // first packets need (an xsk consumer bound to it, a map entry naming
  // it) can be set up first.
  if (const Value *Paused = Args.get("paused")) {
    if (!Paused->isBool())
      return Error("argument 'paused' must be true or false");
    O.Paused = Paused->boolean();
  }
  auto Id = DP.attach(O, (*P)->Exec);
  if (!Id)
    return Id.takeError();
  PortProgram[*Id] = (*P)->Id;
  return Value::object().set("port", *Id).set("prog", (*P)->Id).set("replaced", false);
}

Expected<Value> DaemonState::netDetach(const Value &Args) {
  auto Id = portArg(Args);
  if (!Id)
    return Id.takeError();
  auto Final = DP.detach(*Id);
  if (!Final)
    return Final.takeError();
  Value O = portJson(*Final, true);
  PortProgram.erase(*Id);
  return O;
}

Expected<Value> DaemonState::netResume(const Value &Args) {
  auto Id = portArg(Args);
  if (!Id)
    return Id.takeError();
  if (MaybeError E = DP.resume(*Id))
    return std::move(*E);
  return Value::object().set("port", *Id).set("resumed", true);
}

Expected<Value> DaemonState::netList() {
  Value L = Value::array();
  for (const runtime::PortStats &S : DP.stats())
    L.push(portJson(S, false));
  return L;
}

// ---- xskmap consumers ---------------------------------------------------------

Value DaemonState::xskJson(uint32_t Id, const runtime::XskConsumer &C) const {
  auto Device = [&](uint32_t Port) -> Value {
    for (const runtime::PortStats &S : DP.stats())
      if (S.Id == Port)
        return S.Device;
    return Value();
  };
  return Value::object()
      .set("id", Id)
      .set("port", C.Ifindex)
      .set("device", Device(C.Ifindex))
      .set("queue", C.Queue)
      .set("out", C.Port)
      .set("out_device", Device(C.Port));
}

Expected<Value> DaemonState::xskBind(const Value &Args) {
  // The consumer id is the operator's, as the socket's fd that an AF_XDP
  // program's loader writes into the map: entries name it.
  if (!Args.get("id"))
    return Error("missing argument 'id'");
  auto Id = numberArg(Args, "id", 0, 1, runtime::MaxXskConsumers);
  if (!Id)
    return Id.takeError();
  auto Port = portArg(Args, "port");
  if (!Port)
    return Port.takeError();
  auto Out = portArg(Args, "out");
  if (!Out)
    return Out.takeError();
  auto Queue = numberArg(Args, "queue", 0, 0, 63);
  if (!Queue)
    return Queue.takeError();
  runtime::XskConsumer C{*Port, uint32_t(*Queue), *Out};
  if (MaybeError E = DP.bindXsk(uint32_t(*Id), C))
    return std::move(*E);
  return xskJson(uint32_t(*Id), C);
}

Expected<Value> DaemonState::xskUnbind(const Value &Args) {
  if (!Args.get("id"))
    return Error("missing argument 'id'");
  auto Id = numberArg(Args, "id", 0, 1, runtime::MaxXskConsumers);
  if (!Id)
    return Id.takeError();
  if (!DP.unbindXsk(uint32_t(*Id)))
    return Error("no xsk consumer " + std::to_string(*Id) + " is bound (xsk list shows them)");
  return Value::object().set("id", *Id).set("unbound", true);
}

Expected<Value> DaemonState::xskList() {
  Value L = Value::array();
  for (const auto &[Id, C] : DP.xsks())
    L.push(xskJson(Id, C));
  return L;
}

// ---- back-end faults ---------------------------------------------------------

void DaemonState::sampleRates() {
  Sample S;
  S.At = std::chrono::steady_clock::now();
  for (const runtime::PortStats &P : DP.stats())
    for (const runtime::QueueStats &Q : P.Queues)
      S.Rx[{P.Id, Q.Queue}] = Q.RxPackets;
  Prev = std::move(Last);
  Last = std::move(S);
}

Expected<Value> DaemonState::stats() {
  double Interval = Prev && Last ? std::chrono::duration<double>(Last->At - Prev->At).count() : 0;
  auto Rate = [&](uint32_t Port, uint32_t Queue) {
    if (Interval <= 0)
      return 0.0;
    auto A = Prev->Rx.find({Port, Queue}), B = Last->Rx.find({Port, Queue});
    if (B == Last->Rx.end())
      return 0.0;
    uint64_t From = A == Prev->Rx.end() || A->second > B->second ? 0 : A->second;
    return double(B->second - From) / Interval / 1e6;
  };
  std::map<unsigned, runtime::LatencyHistogram::Counts> PerWorker;
  std::map<unsigned, std::pair<uint64_t, uint64_t>> WorkerWork; // batches, backend ns
  Value Ports = Value::array();
  for (const runtime::PortStats &S : DP.stats()) {
    Value P = portJson(S, true);
    double PortRate = 0;
    Value Queues = Value::array();
    for (const runtime::QueueStats &Q : S.Queues) {
      double R = Rate(S.Id, Q.Queue);
      PortRate += R;
      auto &W = PerWorker[Q.Worker];
      for (unsigned B = 0; B < runtime::LatencyHistogram::Buckets; ++B)
        W[B] += Q.Latency[B];
      WorkerWork[Q.Worker].first += Q.Batches;
      WorkerWork[Q.Worker].second += Q.BackendNs;
      Queues.push(Value::object()
                      .set("queue", Q.Queue)
                      .set("worker", Q.Worker)
                      .set("rx_packets", Q.RxPackets)
                      .set("rx_bytes", Q.RxBytes)
                      .set("mpps", R)
                      .set("actions", actionsJson(Q.Actions))
                      .set("batches", Q.Batches)
                      .set("backend_us", double(Q.BackendNs) / 1000.0)
                      .set("latency_us", latencyJson(Q.Latency)));
    }
    P.set("mpps", PortRate).set("per_queue", std::move(Queues));
    Ports.push(std::move(P));
  }
  Value Workers = Value::array();
  for (unsigned W = 0; W < DP.workers(); ++W) {
    runtime::LatencyHistogram::Counts C =
        PerWorker.count(W) ? PerWorker[W] : runtime::LatencyHistogram::Counts{};
    Workers.push(Value::object()
                     .set("worker", W)
                     .set("batches", WorkerWork[W].first)
                     .set("backend_us", double(WorkerWork[W].second) / 1000.0)
                     .set("latency_us", latencyJson(C)));
  }
  Value Progs = Value::array();
  for (const auto &[Id, P] : Programs)
    Progs.push(Value::object().set("id", Id).set("name", P.Name).set("faults", faultJson(P)));
  return Value::object()
      .set("interval_s", Interval)
      .set("ports", std::move(Ports))
      .set("workers", std::move(Workers))
      .set("programs", std::move(Progs));
}

std::vector<std::shared_ptr<void>> DaemonState::quiesceOthers(const Program *Except) {
  std::vector<std::shared_ptr<void>> Tokens;
  for (auto &[Id, Q] : Programs)
    if (&Q != Except)
      if (std::shared_ptr<void> T = Q.Exec->quiesce())
        Tokens.push_back(std::move(T));
  return Tokens;
}

void DaemonState::release(Program &P) {
  // A back end that failed is given up as recovery would (a GPU kernel
  // that hangs would make an ordinary teardown wait for it for ever).
  if (!P.Exec->faulted())
    return;
  std::vector<std::shared_ptr<void>> Quiet;
  std::shared_ptr<runtime::BatchExecutor> Old =
      P.Exec->takeOut([&](runtime::BatchExecutor &) { Quiet = quiesceOthers(&P); });
  if (Old && P.Discard)
    P.Discard(std::move(Old));
}

void DaemonState::stop() {
  DP.stop();
  PortProgram.clear();
  Maps.clear();
  // No batch runs any more: every persistent kernel stopped first, so that
  // destroying one program's context does not wait for another's kernel.
  for (auto &[Id, P] : Programs)
    P.Exec->quiesce();
  for (auto &[Id, P] : Programs)
    release(P);
  Programs.clear();
}

} // namespace ebpfgpu::tools

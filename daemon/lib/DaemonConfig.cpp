// SPDX-License-Identifier: Apache-2.0
#include "ebpf-gpu/Daemon/DaemonConfig.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace ebpfgpu::tools {

using json::Value;

namespace {

const std::set<std::string> ProgramKeys = {
    "path",        "section",   "backend",       "gpu_mode",        "gpu_path",
    "inner_maps",  "map_sizes", "map_key_sizes", "map_value_sizes", "name",
    "watchdog_ms", "blocks",    "launch_size",   "gpus"};
const std::set<std::string> NumberKeys = {"watchdog_ms", "blocks", "launch_size", "queues",
                                          "batch", "timeout_us", "queue"};
const std::set<std::string> PortKeys = {"program", "exception", "queues", "batch", "timeout_us"};
const std::set<std::string> XskKeys = {"port", "queue", "out"};

/// "SIZE:MTIME_NS:INODE" of a file, "" when it cannot be read.
std::string fileStamp(const std::string &Path) {
  struct stat St;
  if (stat(Path.c_str(), &St) != 0)
    return "";
  return std::to_string(St.st_size) + ":" +
         std::to_string(int64_t(St.st_mtim.tv_sec) * 1000000000 + St.st_mtim.tv_nsec) + ":" +
         std::to_string(St.st_ino);
}

bool ok(const Value &R) {
  const Value *O = R.get("ok");
  return O && O->boolean();
}

std::string errorOf(const Value &R) {
  const Value *E = R.get("error");
  return E ? E->text() : "no answer";
}

/// The id a response names: "id" (prog load) or "port" (net attach).
uint32_t idOf(const Value &R, const char *Key = "id") {
  const Value *Res = R.get("result");
  const Value *Id = Res ? Res->get(Key) : nullptr;
  return Id && Id->u64() ? uint32_t(*Id->u64()) : 0;
}

} // namespace

bool DaemonConfig::Entry::operator==(const Entry &O) const {
  return Name == O.Name && Program == O.Program && Args.write() == O.Args.write();
}

Expected<DaemonConfig> parseDaemonConfig(const std::string &Text, const std::string &File) {
  DaemonConfig C;
  std::istringstream In(Text);
  std::string Line;
  std::set<std::string> Names, Devices;
  for (unsigned N = 1; std::getline(In, Line); ++N) {
    auto Fail = [&](const std::string &Why) { return Error(File + ":" + std::to_string(N) + ": " + Why); };
    Line = Line.substr(0, Line.find('#'));
    std::istringstream Words(Line);
    std::string Kind, Name, W;
    if (!(Words >> Kind))
      continue;
    if (Kind != "program" && Kind != "port" && Kind != "xsk")
      return Fail("'" + Kind + "': a line is 'program NAME key=value...', 'port DEVICE "
                  "program=NAME key=value...' or 'xsk ID port=DEVICE queue=N out=DEVICE'");
    // A device string may hold '=' (net_pcap0,rx_pcap=...); a name may not.
    if (!(Words >> Name) || (Kind == "program" && Name.find('=') != std::string::npos))
      return Fail(Kind + " needs a " + (Kind == "program" ? "name" : "device") + " first");
    if (Kind == "xsk" && (Name.empty() || Name.size() > 9 ||
                          Name.find_first_not_of("0123456789") != std::string::npos))
      return Fail("xsk needs a consumer id (a number) first, not '" + Name + "'");
    DaemonConfig::Entry E;
    E.Line = N;
    E.Name = Name;
    E.Args = Value::object();
    const std::set<std::string> &Keys =
        Kind == "program" ? ProgramKeys : Kind == "port" ? PortKeys : XskKeys;
    while (Words >> W) {
      size_t Eq = W.find('=');
      if (Eq == std::string::npos || Eq == 0)
        return Fail("'" + W + "' is not key=value");
      std::string K = W.substr(0, Eq), V = W.substr(Eq + 1);
      if (!Keys.count(K))
        return Fail("unknown key '" + K + "' for a " + Kind);
      if (E.Args.get(K) || (K == "program" && !E.Program.empty()))
        return Fail("'" + K + "' given twice");
      if (K == "program") {
        E.Program = V;
      } else if (NumberKeys.count(K)) {
        if (V.empty() || V.size() > 10 || V.find_first_not_of("0123456789") != std::string::npos)
          return Fail("'" + K + "' needs a number, not '" + V + "'");
        E.Args.set(K, uint64_t(std::stoull(V)));
      } else {
        E.Args.set(K, V);
      }
    }
    if (Kind == "program") {
      if (!E.Args.get("path"))
        return Fail("program " + Name + " needs path=/absolute/object.o");
      if (!Names.insert(Name).second)
        return Fail("program " + Name + " named twice");
      C.Programs.push_back(std::move(E));
    } else if (Kind == "xsk") {
      if (!E.Args.get("port") || !E.Args.get("out"))
        return Fail("xsk " + Name + " needs port=DEVICE and out=DEVICE");
      if (std::any_of(C.Xsks.begin(), C.Xsks.end(),
                      [&](const DaemonConfig::Entry &X) { return X.Name == Name; }))
        return Fail("xsk " + Name + " named twice");
      E.Args.set("id", uint64_t(std::stoull(Name)));
      C.Xsks.push_back(std::move(E));
    } else {
      if (E.Program.empty())
        return Fail("port " + Name + " needs program=NAME");
      if (!Devices.insert(Name).second)
        return Fail("port " + Name + " named twice");
      E.Args.set("device", Name);
      C.Ports.push_back(std::move(E));
    }
  }
  for (const DaemonConfig::Entry &P : C.Ports)
    if (!Names.count(P.Program))
      return Error(File + ":" + std::to_string(P.Line) + ": port " + P.Name +
                   " runs program " + P.Program + ", which no program line names");
  for (const DaemonConfig::Entry &X : C.Xsks)
    for (const char *K : {"port", "out"})
      if (!Devices.count(X.Args.get(K)->text()))
        return Error(File + ":" + std::to_string(X.Line) + ": xsk " + X.Name + " names " + K +
                     " " + X.Args.get(K)->text() + ", which no port line names");
  return C;
}

/// What one apply() works on: the file read, and what each step leaves for
/// the next ones.
struct ConfigApplier::Reload {
  Reload(const std::string &File, bool Strict, const DaemonConfig &C)
      : File(File), Strict(Strict), C(C) {}
  const std::string &File;
  const bool Strict;
  const DaemonConfig &C;
  std::vector<std::string> Done;
  std::optional<Error> First;
  std::map<std::string, uint32_t> Fresh; // NAME -> new id, not yet in place
  std::map<std::string, std::string> Stamps; // NAME -> its file as loaded
  std::set<std::string> Touched; // devices detached or attached: their consumers went
  std::vector<uint32_t> Paused;  // attached (4), receiving after 5

  /// Keeps the first error; true when it ends the reload (`Strict`).
  bool failed(const std::string &Why) {
    if (!First)
      First = Error("config " + File + ": " + Why);
    return Strict;
  }
};

Expected<std::vector<std::string>> ConfigApplier::apply(const std::string &File, bool Strict) {
  std::ifstream In(File);
  if (!In)
    return Error("config " + File + ": " + std::strerror(errno));
  std::stringstream Text;
  Text << In.rdbuf();
  auto C = parseDaemonConfig(Text.str(), File);
  if (!C)
    return C.takeError();
  Reload Run(File, Strict, *C);
  if (loadPrograms(Run) || detachPorts(Run) || replacePrograms(Run) || attachPorts(Run) ||
      bindXsks(Run) || resumePorts(Run) || unloadPrograms(Run))
    return std::move(*Run.First);
  if (Run.First)
    return std::move(*Run.First);
  return std::move(Run.Done);
}

// 1. Programs new or changed (their line, or their object file) are loaded.
bool ConfigApplier::loadPrograms(Reload &Run) {
  for (const DaemonConfig::Entry &P : Run.C.Programs) {
    std::string Stamp = fileStamp(P.Args.get("path")->text());
    auto It = Programs.find(P.Name);
    if (It != Programs.end() && It->second.Line == P && It->second.FileStamp == Stamp)
      continue;
    Value R = Send("prog load", P.Args);
    if (!ok(R)) {
      if (Run.failed("line " + std::to_string(P.Line) + ": program " + P.Name + ": " + errorOf(R)))
        return true;
      continue;
    }
    Run.Fresh[P.Name] = idOf(R);
    Run.Stamps[P.Name] = Stamp;
    Run.Done.push_back("config: program " + P.Name + " loaded as " + std::to_string(idOf(R)));
    if (It == Programs.end() && !StateDir.empty())
      if (std::string Restored = restoreState(P.Name, idOf(R)); !Restored.empty())
        Run.Done.push_back(Restored);
  }
  return false;
}

// 2. Ports gone from the file, or whose line changed (options, program),
// are detached.
bool ConfigApplier::detachPorts(Reload &Run) {
  std::map<std::string, const DaemonConfig::Entry *> Want;
  for (const DaemonConfig::Entry &P : Run.C.Ports)
    Want[P.Name] = &P;
  for (auto It = Ports.begin(); It != Ports.end();) {
    auto W = Want.find(It->first);
    if (W != Want.end() && *W->second == It->second.Line) {
      ++It;
      continue;
    }
    Value R = Send("net detach", Value::object().set("port", It->second.Port));
    if (!ok(R) && Run.failed("port " + It->first + ": " + errorOf(R)))
      return true;
    Run.Done.push_back("config: port " + It->first + " detached");
    Run.Touched.insert(It->first);
    It = Ports.erase(It);
  }
  return false;
}

// 3. Programs loaded anew take over their ports between two batches.
bool ConfigApplier::replacePrograms(Reload &Run) {
  for (auto F = Run.Fresh.begin(); F != Run.Fresh.end();) {
    const std::string &Name = F->first;
    const uint32_t NewId = F->second;
    auto It = Programs.find(Name);
    if (It == Programs.end()) {
      ++F;
      continue;
    }
    bool Runs = std::any_of(Ports.begin(), Ports.end(),
                            [&, Old = It->second.Id](const auto &P) { return P.second.Prog == Old; });
    if (Runs) {
      Value R = Send("prog replace", Value::object().set("id", It->second.Id).set("new_id", NewId));
      if (!ok(R)) {
        // The old version stays in place; the new one goes.
        Send("prog unload", Value::object().set("id", NewId));
        F = Run.Fresh.erase(F);
        if (Run.failed("program " + Name + ": " + errorOf(R)))
          return true;
        continue;
      }
      for (auto &[Dev, P] : Ports)
        if (P.Prog == It->second.Id)
          P.Prog = NewId;
      Run.Done.push_back("config: program " + Name + " replaced by " + std::to_string(NewId) +
                         " on its ports");
    }
    Send("prog unload", Value::object().set("id", It->second.Id));
    ++F;
  }
  for (const DaemonConfig::Entry &P : Run.C.Programs)
    if (Run.Fresh.count(P.Name))
      Programs[P.Name] = {P, Run.Fresh[P.Name], Run.Stamps[P.Name]};
  return false;
}

// 4. Ports new (or detached above for a changed line) are attached; a
// port whose program was loaded anew (3) already runs the new one.
bool ConfigApplier::attachPorts(Reload &Run) {
  auto Current = [&](const std::string &Name) -> uint32_t {
    auto F = Run.Fresh.find(Name);
    if (F != Run.Fresh.end())
      return F->second;
    auto It = Programs.find(Name);
    return It == Programs.end() ? 0 : It->second.Id;
  };
  for (const DaemonConfig::Entry &P : Run.C.Ports) {
    auto It = Ports.find(P.Name);
    uint32_t Prog = Current(P.Program);
    if (It != Ports.end()) // attached, its line unchanged (2)
      continue;
    if (!Prog) {
      if (Run.failed("port " + P.Name + ": its program " + P.Program + " is not loaded"))
        return true;
      continue;
    }
    Value Args = P.Args;
    Args.set("prog", Prog);
    // Receiving once the whole file is in place (5: its xsk consumers).
    Args.set("paused", true);
    Value R = Send("net attach", Args);
    if (!ok(R)) {
      if (Run.failed("line " + std::to_string(P.Line) + ": port " + P.Name + ": " + errorOf(R)))
        return true;
      continue;
    }
    Ports[P.Name] = {P, idOf(R, "port"), Prog};
    Run.Touched.insert(P.Name);
    Run.Paused.push_back(idOf(R, "port"));
    Run.Done.push_back("config: port " + P.Name + " attached to program " + P.Program + " (" +
                       std::to_string(Prog) + ")");
  }
  return false;
}

// 5. xsk consumers gone from the file are unbound (a detach may have
// unbound them already); new or changed ones, and those whose ports were
// detached or attached above, are bound.
bool ConfigApplier::bindXsks(Reload &Run) {
  for (auto It = Xsks.begin(); It != Xsks.end();) {
    bool Kept = std::any_of(Run.C.Xsks.begin(), Run.C.Xsks.end(),
                            [&](const DaemonConfig::Entry &X) { return X.Name == It->first; });
    if (Kept) {
      ++It;
      continue;
    }
    Send("xsk unbind", Value::object().set("id", *It->second.Args.get("id")));
    Run.Done.push_back("config: xsk " + It->first + " unbound");
    It = Xsks.erase(It);
  }
  for (const DaemonConfig::Entry &X : Run.C.Xsks) {
    auto It = Xsks.find(X.Name);
    if (It != Xsks.end() && It->second == X && !Run.Touched.count(X.Args.get("port")->text()) &&
        !Run.Touched.count(X.Args.get("out")->text()))
      continue;
    Value R = Send("xsk bind", X.Args);
    if (!ok(R)) {
      Xsks.erase(X.Name);
      if (Run.failed("line " + std::to_string(X.Line) + ": xsk " + X.Name + ": " + errorOf(R)))
        return true;
      continue;
    }
    Xsks[X.Name] = X;
    Run.Done.push_back("config: xsk " + X.Name + " bound to port " + X.Args.get("port")->text());
  }
  return false;
}

// The ports attached in 4 start receiving, their xsk consumers bound (5).
bool ConfigApplier::resumePorts(Reload &Run) {
  for (uint32_t Port : Run.Paused) {
    Value R = Send("net resume", Value::object().set("port", Port));
    if (!ok(R) && Run.failed("port " + std::to_string(Port) + ": " + errorOf(R)))
      return true;
  }
  return false;
}

// 6. Programs gone from the file are unloaded once no port runs them.
bool ConfigApplier::unloadPrograms(Reload &Run) {
  for (auto It = Programs.begin(); It != Programs.end();) {
    bool Kept = std::any_of(Run.C.Programs.begin(), Run.C.Programs.end(),
                            [&](const DaemonConfig::Entry &P) { return P.Name == It->first; });
    if (Kept) {
      ++It;
      continue;
    }
    Value R = Send("prog unload", Value::object().set("id", It->second.Id));
    if (!ok(R) && Run.failed("program " + It->first + ": " + errorOf(R)))
      return true;
    Run.Done.push_back("config: program " + It->first + " unloaded");
    It = Programs.erase(It);
  }
  return false;
}

namespace {

std::string hexText(const Value &List) {
  std::string Out;
  for (const Value &B : List.items())
    Out += B.text().substr(B.text().rfind('x') + 1);
  return Out;
}

std::string statePath(const std::string &Dir, const std::string &Name) {
  return Dir + "/" + Name + ".maps.json";
}

} // namespace

std::vector<Value> ConfigApplier::mapsOf(uint32_t Id) {
  std::vector<Value> Out;
  Value R = Send("prog show", Value::object().set("id", Id));
  const Value *Res = R.get("result");
  const Value *Ids = Res ? Res->get("map_ids") : nullptr;
  for (const Value &M : Ids ? Ids->items() : std::vector<Value>()) {
    Value S = Send("map show", Value::object().set("id", M));
    if (ok(S))
      Out.push_back(*S.get("result"));
  }
  return Out;
}

std::vector<std::string> ConfigApplier::saveState() {
  std::vector<std::string> Done;
  for (const auto &[Name, P] : Programs) {
    Value Maps = Value::array();
    size_t Entries = 0;
    std::string Why;
    for (const Value &M : mapsOf(P.Id)) {
      if (M.get("read_only")->boolean())
        continue;
      Value D = Send("map dump", Value::object().set("id", *M.get("id")));
      if (!ok(D)) {
        Why = errorOf(D);
        break;
      }
      Value List = Value::array();
      for (const Value &E : D.get("result")->get("entries")->items()) {
        Value Pair = Value::array(); // push returns the element pushed
        Pair.push(hexText(*E.get("key")));
        Pair.push(hexText(*E.get("value")));
        List.push(std::move(Pair));
      }
      Entries += List.items().size();
      Value Saved = Value::object();
      for (const char *K : {"name", "type", "key_size", "value_size", "max_entries"})
        Saved.set(K, *M.get(K));
      Maps.push(Saved.set("entries", std::move(List)));
    }
    const std::string Path = statePath(StateDir, Name), Tmp = Path + ".tmp";
    if (Why.empty()) {
      std::ofstream Out(Tmp, std::ios::trunc);
      Out << Value::object().set("program", Name).set("maps", Maps).write() << "\n";
      Out.close();
      if (!Out || std::rename(Tmp.c_str(), Path.c_str()) != 0)
        Why = Path + ": " + std::strerror(errno);
    }
    if (!Why.empty()) {
      std::remove(Tmp.c_str());
      Done.push_back("state: program " + Name + ": not saved: " + Why);
      continue;
    }
    Done.push_back("state: program " + Name + ": " + std::to_string(Maps.items().size()) +
                   " maps, " + std::to_string(Entries) + " entries saved to " + Path);
  }
  return Done;
}

std::string ConfigApplier::restoreState(const std::string &Name, uint32_t Id) {
  const std::string Path = statePath(StateDir, Name);
  std::ifstream In(Path);
  if (!In)
    return errno == ENOENT ? "" : "state: " + Path + ": " + std::strerror(errno);
  std::stringstream Text;
  Text << In.rdbuf();
  auto Doc = json::parse(Text.str());
  const Value *Saved = Doc && Doc->isObject() ? Doc->get("maps") : nullptr;
  if (!Saved || !Saved->isArray())
    return "state: " + Path + ": not a saved state; program " + Name + " starts with fresh maps";
  std::vector<Value> Live = mapsOf(Id);
  size_t Maps = 0, Entries = 0;
  std::string Skipped;
  for (const Value &S : Saved->items()) {
    const Value *SName = S.isObject() ? S.get("name") : nullptr;
    const Value *SEntries = S.isObject() ? S.get("entries") : nullptr;
    auto M = std::find_if(Live.begin(), Live.end(), [&](const Value &L) {
      return SName && L.get("name")->text() == SName->text();
    });
    bool Same = M != Live.end() && SEntries && SEntries->isArray();
    for (const char *K : {"type", "key_size", "value_size", "max_entries"})
      Same = Same && S.get(K) && S.get(K)->write() == M->get(K)->write();
    if (!Same) {
      Skipped += std::string(Skipped.empty() ? "" : ", ") + (SName ? SName->text() : "?");
      continue;
    }
    ++Maps;
    for (const Value &E : SEntries->items()) {
      if (!E.isArray() || E.items().size() != 2) {
        Skipped += std::string(Skipped.empty() ? "" : ", ") + SName->text() + " (an entry)";
        break;
      }
      Value R = Send("map update", Value::object()
                                       .set("id", *M->get("id"))
                                       .set("key", E.items()[0])
                                       .set("value", E.items()[1]));
      if (!ok(R)) {
        Skipped += std::string(Skipped.empty() ? "" : ", ") + SName->text() + " (" + errorOf(R) + ")";
        break;
      }
      ++Entries;
    }
  }
  return "state: program " + Name + ": " + std::to_string(Maps) + " maps, " +
         std::to_string(Entries) + " entries restored from " + Path +
         (Skipped.empty() ? "" : "; not restored (name, type or sizes changed): " + Skipped);
}

} // namespace ebpfgpu::tools

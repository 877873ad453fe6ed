// SPDX-License-Identifier: Apache-2.0
//
// The client subcommands of ebpf-gpu-loader, in bpftool's shape: each turns
// its command line into one request on the daemon's control socket, waits
// for the response and prints it as text (or, with --json, the result
// object as the daemon sent it; --pretty indents it). Exit codes: 0 success, 1 the daemon
// refused the request or cannot be reached, 2 bad command line.

#include "Daemon.h"
#include "Options.h"

#include "ebpf-gpu/Daemon/Json.h"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

namespace ebpfgpu::tools {

namespace {

using json::Value;


int usage(const std::string &Msg) {
  if (!Msg.empty())
    std::fprintf(stderr, "%s: error: %s\n", Tool, Msg.c_str());
  std::fprintf(
      stderr,
      "usage: %s [--socket PATH] [--json|--pretty] COMMAND\n"
      "  prog load PROG.o|PROG.gpu.o [--section S] [--backend host|gpu] [--name N]\n"
      "            [--inner-map OUTER=MAP]... [--map-size MAP=ENTRIES]...\n"
      "            [--map-key-size MAP=BYTES]... [--map-value-size MAP=BYTES]... (eBPF objects)\n"
      "            [--gpu-mode launch|persistent] [--gpu-path copy|mapped] [--watchdog-ms MS]\n"
      "            [--blocks N] [--launch-size N] [--gpus LIST]\n"
      "  prog list | prog show ID | prog unload ID | prog replace ID NEW_ID\n"
      "  net attach PROG_ID PORTDEV [--queues N] [--batch N] [--timeout-us T] [--exception DEV]\n"
      "             [--paused]\n"
      "  net resume PORT | net detach PORT | net list\n"
      "  xsk bind ID PORT QUEUE OUT | xsk unbind ID | xsk list\n"
      "      an xskmap consumer: entries holding ID send what rx queue QUEUE of PORT\n"
      "      redirects to them out of port OUT (ports by id or device name)\n"
      "  map list | map show MAP | map dump MAP\n"
      "  map lookup MAP key BYTES... | map delete MAP key BYTES...\n"
      "  map update MAP key BYTES... value BYTES... [any|noexist|exist]\n"
      "  map update MAP key BYTES... value name NAME\n"
      "      (a program array's slot: a program loaded with it, by name; a map of maps':\n"
      "      one of the program's maps)\n"
      "  map update MAP file PATH   (a pattern or model map: its rules or model, replaced)\n"
      "      MAP is 'id ID' or 'name NAME'; BYTES are hex (0a 0x0a 0a000000)\n"
      "      (no key for a queue, stack or bloom filter: update pushes, lookup peeks)\n"
      "  stats\n"
      "  --socket PATH  the daemon's control socket (default %s, or "
      "$EBPF_GPU_LOADER_SOCKET)\n"
      "  --json, -j     print the daemon's result as JSON\n"
      "  --pretty, -p   the same, indented (as bpftool's -p)\n",
      Tool, DefaultDaemonSocket);
  return 2;
}

/// Sends one request and returns the daemon's response.
Value call(const std::string &Socket, const std::string &Cmd, Value Args) {
  sockaddr_un Addr{};
  if (Socket.size() >= sizeof(Addr.sun_path))
    fail("socket path '" + Socket + "' is too long");
  Addr.sun_family = AF_UNIX;
  std::strcpy(Addr.sun_path, Socket.c_str());
  int Fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (Fd < 0)
    fail(std::string("socket: ") + std::strerror(errno));
  if (connect(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof(Addr)) != 0) {
    int Err = errno;
    close(Fd);
    if (Err == EACCES || Err == EPERM)
      fail("permission denied: cannot connect to " + Socket +
           " (the daemon's socket is for root and the daemon's user)");
    if (Err == ENOENT || Err == ECONNREFUSED)
      fail("no daemon at " + Socket + " (" + std::strerror(Err) + "; start one with `" + Tool +
           " daemon`, or name its socket with --socket)");
    fail("cannot connect to " + Socket + ": " + std::strerror(Err));
  }
  Value Req = Value::object().set("id", 1).set("cmd", Cmd).set("args", std::move(Args));
  std::string Line = Req.write() + "\n";
  size_t Done = 0;
  while (Done < Line.size()) {
    ssize_t N = send(Fd, Line.data() + Done, Line.size() - Done, MSG_NOSIGNAL);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break; // a refusal may be waiting to be read
    Done += size_t(N);
  }
  std::string In;
  char Buf[65536];
  while (In.find('\n') == std::string::npos) {
    ssize_t N = recv(Fd, Buf, sizeof(Buf), 0);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    In.append(Buf, size_t(N));
  }
  close(Fd);
  if (In.empty())
    fail("the daemon closed the connection without an answer");
  auto Resp = json::parse(In.substr(0, In.find('\n')));
  if (!Resp || !Resp->isObject())
    fail("the daemon's answer is not JSON: " + In.substr(0, 200));
  const Value *Ok = Resp->get("ok");
  if (!Ok || !Ok->isBool() || !Ok->boolean()) {
    const Value *E = Resp->get("error");
    fail(E && E->isString() ? E->text() : "the daemon refused the request");
  }
  const Value *R = Resp->get("result");
  return R ? *R : Value();
}

std::string num(const Value *V) { return V ? (V->isNull() ? "-" : V->text()) : "-"; }
std::string num(const Value &O, const char *K) { return num(O.get(K)); }

std::string idList(const Value *L) {
  std::string S;
  if (L)
    for (const Value &V : L->items())
      S += (S.empty() ? "" : ",") + V.text();
  return S.empty() ? "-" : S;
}

void printProg(const Value &P) {
  std::printf("%s: xdp  name %s  backend %s  maps %s  ports %s\n", num(P, "id").c_str(),
              P.get("name")->text().c_str(), P.get("backend")->text().c_str(),
              idList(P.get("map_ids")).c_str(), idList(P.get("ports")).c_str());
  std::printf("\tfrom %s section %s  verified %s  btf %s\n", P.get("path")->text().c_str(),
              P.get("section")->text().c_str(), P.get("verified")->boolean() ? "yes" : "no",
              P.get("btf")->boolean() ? "yes" : "no");
  if (const Value *Run = P.get("run"))
    std::printf("\truns %s\n", Run->text().c_str());
  const Value *F = P.get("faults");
  if (!F || !F->isObject())
    return;
  std::printf("\tstate %s  faults %s  recoveries %s  failed batches %s packets %s\n",
              F->get("state")->text().c_str(), num(*F, "faults").c_str(),
              num(*F, "recoveries").c_str(), num(*F, "failed_batches").c_str(),
              num(*F, "failed_packets").c_str());
  const Value *L = F->get("last");
  if (!L || !L->isObject())
    return;
  std::printf("\tlast fault: %s\n", L->get("error")->text().c_str());
  if (L->get("recovered")->boolean())
    std::printf("\t  re-created in %.1f ms", L->get("recovery_ms")->number());
  else
    std::printf("\t  not re-created yet: %s", L->get("recovery_error")->isNull()
                                                  ? "in progress"
                                                  : L->get("recovery_error")->text().c_str());
  std::string Restored;
  for (const Value &M : L->get("maps_restored")->items())
    Restored += (Restored.empty() ? "" : ", ") + M.text();
  std::printf("; maps restored: %s\n", Restored.empty() ? "none" : Restored.c_str());
  for (const Value &M : L->get("maps_lost")->items())
    std::printf("\t  map %s not restored: %s\n", M.get("map")->text().c_str(),
                M.get("why")->text().c_str());
  if (const Value *T = L->get("teardown"); T && !T->isNull())
    std::printf("\t  old back end: %s\n", T->text().c_str());
}

void printMap(const Value &M) {
  std::printf("%s: %s  name %s  flags 0x%llx  prog %s\n", num(M, "id").c_str(),
              M.get("type")->text().c_str(), M.get("name")->text().c_str(),
              (unsigned long long)M.get("flags")->u64().value_or(0), num(M, "prog_id").c_str());
  std::printf("\tkey %sB  value %sB  max_entries %s%s%s\n", num(M, "key_size").c_str(),
              num(M, "value_size").c_str(), num(M, "max_entries").c_str(),
              M.get("global_data")->boolean() ? "  global data" : "",
              M.get("read_only")->boolean() ? "  read-only" : "");
}

void printPort(const Value &P) {
  const Value *Prog = P.get("prog");
  std::printf("%s: %s  prog %s (%s)  queues %s  batch %s  timeout %sus", num(P, "id").c_str(),
              P.get("device")->text().c_str(), num(Prog->get("id")).c_str(),
              Prog->get("name")->text().c_str(), num(P, "queues").c_str(), num(P, "batch").c_str(),
              num(P, "timeout_us").c_str());
  const Value *Exc = P.get("exception");
  if (Exc && Exc->isString())
    std::printf("  exception %s", Exc->text().c_str());
  std::printf("\n");
}

void printCounters(const Value &P) {
  const Value *A = P.get("actions");
  std::printf("\trx %s packets %s bytes", num(P, "rx_packets").c_str(), num(P, "rx_bytes").c_str());
  if (const Value *R = P.get("mpps"))
    std::printf(" (%.3f Mpps)", R->number());
  std::printf("; tx %s, tx-full %s, pass-tx %s\n\t", num(P, "tx_packets").c_str(),
              num(P, "tx_full").c_str(), num(P, "pass_tx_packets").c_str());
  for (const auto &[Name, V] : A->members())
    std::printf("%s %s  ", Name.c_str(), num(V, "packets").c_str());
  std::printf("\n\terrors:");
  for (const auto &[Name, V] : P.get("errors")->members())
    std::printf(" %s %s", Name.c_str(), V.text().c_str());
  std::printf("\n");
}

std::string hexBytes(const Value *L) {
  std::string S;
  for (const Value &B : L->items())
    S += (S.empty() ? "" : " ") + B.text().substr(2);
  return S;
}

void printEntry(const Value &E) {
  const Value *F = E.get("formatted");
  const Value *FK = F ? F->get("key") : nullptr;
  const Value *FV = F ? F->get("value") : nullptr;
  std::printf("key: %s  value: %s\n", FK ? FK->write().c_str() : hexBytes(E.get("key")).c_str(),
              FV ? FV->write().c_str() : hexBytes(E.get("value")).c_str());
}

/// Hex byte words ("0a", "0x0a", "0a000000") up to the next keyword.
std::string takeBytes(std::vector<std::string> &A, size_t &I, const char *Stop) {
  std::string Hex;
  while (I < A.size() && A[I] != Stop && A[I] != "any" && A[I] != "noexist" && A[I] != "exist") {
    std::string W = A[I++];
    if (W.size() > 2 && W[0] == '0' && (W[1] == 'x' || W[1] == 'X'))
      W = W.substr(2);
    if (W.size() % 2)
      W = "0" + W; // 0xa is one byte
    Hex += W;
  }
  return Hex;
}

/// The words of a client command after its object and verb, taken in
/// order; a word missing, malformed or left over ends the run with a usage
/// message naming the command.
struct Words {
  const std::vector<std::string> &A;
  std::string Obj, Verb;
  size_t I = 2;

  std::string need(const char *What) {
    if (I >= A.size())
      std::exit(usage(Obj + " " + Verb + ": missing " + What));
    return A[I++];
  }
  void noMore() const {
    if (I < A.size())
      std::exit(usage(Obj + " " + Verb + ": unexpected '" + A[I] + "'"));
  }
  Value id(const char *What) {
    std::string S = need(What);
    char *End = nullptr;
    unsigned long long N = std::strtoull(S.c_str(), &End, 10);
    if (S.empty() || *End || S[0] == '-' || N > UINT32_MAX)
      std::exit(usage(Obj + " " + Verb + ": " + What + " must be a number, not '" + S + "'"));
    return Value(uint64_t(N));
  }
  void mapRef(Value &Args) {
    std::string Kind = need("'id ID' or 'name NAME'");
    if (Kind == "id")
      Args.set("id", id("map id"));
    else if (Kind == "name")
      Args.set("name", need("map name"));
    else
      std::exit(usage(Obj + " " + Verb + ": name the map with 'id ID' or 'name NAME'"));
  }
};

/// The daemon request the words `A` (object, verb, arguments) make: its
/// command into `Cmd`, its arguments into `Args`; an exit status for a
/// usage error, else nothing.
std::optional<int> buildRequest(std::vector<std::string> &A, std::string &Cmd, Value &Args) {
  Words W{A, A[0], A.size() > 1 ? A[1] : ""};
  const std::string &Obj = W.Obj;
  size_t &I = W.I;
  Cmd = Obj + " " + W.Verb;
  if (Obj == "stats") {
    Cmd = "stats";
    I = 1;
    W.noMore();
  } else if (Cmd == "prog load") {
    std::string Path = W.need("program file");
    char Real[PATH_MAX];
    if (!realpath(Path.c_str(), Real))
      fail(Path + ": " + std::strerror(errno));
    Args.set("path", std::string(Real));
    while (I < A.size()) {
      std::string O = A[I++];
      if (O == "--section" || O == "section")
        Args.set("section", W.need("section name"));
      else if (O == "--backend" || O == "backend")
        Args.set("backend", W.need("back end"));
      else if (O == "--name" || O == "name")
        Args.set("name", W.need("name"));
      else if (O == "--gpu-mode")
        Args.set("gpu_mode", W.need("launch or persistent"));
      else if (O == "--gpu-path")
        Args.set("gpu_path", W.need("copy or mapped"));
      else if (O == "--gpus")
        Args.set("gpus", W.need("GPU list"));
      else if (O == "--watchdog-ms")
        Args.set("watchdog_ms", W.id("--watchdog-ms"));
      else if (O == "--blocks")
        Args.set("blocks", W.id("--blocks"));
      else if (O == "--launch-size")
        Args.set("launch_size", W.id("--launch-size"));
      else if (O == "--inner-map" || O == "--map-size" || O == "--map-key-size" ||
               O == "--map-value-size") {
        // Repeatable: joined with commas into one string argument.
        std::string Key = O == "--inner-map"      ? "inner_maps"
                          : O == "--map-size"     ? "map_sizes"
                          : O == "--map-key-size" ? "map_key_sizes"
                                                  : "map_value_sizes";
        std::string V = W.need(O == "--inner-map" ? "OUTER=MAP"
                               : O == "--map-size" ? "MAP=ENTRIES"
                                                   : "MAP=BYTES");
        const Value *Prev = Args.get(Key);
        Args.set(Key, Prev ? Prev->text() + "," + V : V);
      }
      else
        return usage("prog load: unknown option '" + O + "'");
    }
  } else if (Cmd == "prog list") {
    W.noMore();
  } else if (Cmd == "prog show") {
    if (I == A.size())
      Cmd = "prog list";
    else
      Args.set("id", W.id("program id"));
    W.noMore();
  } else if (Cmd == "prog unload") {
    Args.set("id", W.id("program id"));
    W.noMore();
  } else if (Cmd == "prog replace") {
    Args.set("id", W.id("program id"));
    Args.set("new_id", W.id("new program id"));
    W.noMore();
  } else if (Cmd == "net attach") {
    Args.set("prog", W.id("program id"));
    Args.set("device", W.need("port device"));
    while (I < A.size()) {
      std::string O = A[I++];
      auto Number = [&](const char *Key) { Args.set(Key, W.id(O.c_str())); };
      if (O == "--queues")
        Number("queues");
      else if (O == "--batch")
        Number("batch");
      else if (O == "--timeout-us")
        Number("timeout_us");
      else if (O == "--exception")
        Args.set("exception", W.need("exception device"));
      else if (O == "--paused")
        Args.set("paused", true);
      else
        return usage("net attach: unknown option '" + O + "'");
    }
  } else if (Cmd == "net detach" || Cmd == "net resume") {
    Args.set("port", W.need("port (id or device name)"));
    W.noMore();
  } else if (Cmd == "net list" || Cmd == "net show") {
    Cmd = "net list";
    W.noMore();
  } else if (Cmd == "xsk bind") {
    Args.set("id", W.id("consumer id"));
    Args.set("port", W.need("port (id or device name)"));
    Args.set("queue", W.id("queue"));
    Args.set("out", W.need("out port (id or device name)"));
    W.noMore();
  } else if (Cmd == "xsk unbind") {
    Args.set("id", W.id("consumer id"));
    W.noMore();
  } else if (Cmd == "xsk list") {
    W.noMore();
  } else if (Cmd == "map list" || (Cmd == "map show" && A.size() == 2)) {
    Cmd = "map list";
    W.noMore();
  } else if (Cmd == "map show" || Cmd == "map dump") {
    W.mapRef(Args);
    W.noMore();
  } else if (Cmd == "map update" && A.size() > 4 && A[4] == "file") {
    // A pattern or model map's whole contents: a file the daemon reads.
    W.mapRef(Args);
    ++I;
    std::string Path = W.need("rules or model file");
    char Real[PATH_MAX];
    if (!realpath(Path.c_str(), Real))
      fail(Path + ": " + std::strerror(errno));
    Args.set("file", std::string(Real));
    W.noMore();
  } else if (Cmd == "map lookup" || Cmd == "map delete" || Cmd == "map update") {
    W.mapRef(Args);
    // Maps without keys (queue, stack, bloom filter) take none: `map update
    // MAP value BYTES...` pushes, `map lookup MAP` peeks.
    const bool NoKey = Cmd == "map update" ? I < A.size() && A[I] == "value" : I == A.size();
    if (!NoKey) {
      if (W.need("'key'") != "key")
        return usage(Cmd + ": expected 'key BYTES...'");
      Args.set("key", takeBytes(A, I, "value"));
    }
    if (Cmd == "map update") {
      if (W.need("'value'") != "value")
        return usage(Cmd + ": expected 'value BYTES...'");
      if (I < A.size() && A[I] == "name") {
        // As bpftool's `value name PROG`: a program (or inner map) by name.
        ++I;
        Args.set("inner", W.need("program or map name"));
      } else {
        Args.set("value", takeBytes(A, I, ""));
        if (I < A.size())
          Args.set("flags", A[I++]);
      }
    }
    W.noMore();
  } else {
    return usage("unknown command '" + Cmd + "'");
  }

  return std::nullopt;
}

/// The daemon's reply `R` to `Cmd`, as text.
void printReply(const std::string &Cmd, const Value &R) {
  if (Cmd == "prog load" || Cmd == "prog show") {
    printProg(R);
  } else if (Cmd == "prog list") {
    for (const Value &P : R.items())
      printProg(P);
  } else if (Cmd == "prog unload") {
    std::printf("program %s unloaded\n", num(R, "id").c_str());
  } else if (Cmd == "prog replace") {
    std::printf("program %s replaced by %s on port(s) %s\n", num(R, "id").c_str(),
                num(R, "new_id").c_str(), idList(R.get("ports")).c_str());
  } else if (Cmd == "net attach") {
    std::printf("port %s: program %s %s\n", num(R, "port").c_str(), num(R, "prog").c_str(),
                R.get("replaced")->boolean() ? "replaced the one running there" : "attached");
  } else if (Cmd == "net resume") {
    std::printf("port %s: receiving\n", num(R, "port").c_str());
  } else if (Cmd == "net detach") {
    std::printf("port %s detached; final counters:\n", num(R, "id").c_str());
    printPort(R);
    printCounters(R);
  } else if (Cmd == "net list") {
    for (const Value &P : R.items())
      printPort(P);
  } else if (Cmd == "xsk bind" || Cmd == "xsk list") {
    for (const Value &X : Cmd == "xsk list" ? R.items() : std::vector<Value>{R})
      std::printf("xsk %s: port %s (%s) queue %s -> port %s (%s)\n", num(X, "id").c_str(),
                  num(X, "port").c_str(), num(X, "device").c_str(), num(X, "queue").c_str(),
                  num(X, "out").c_str(), num(X, "out_device").c_str());
  } else if (Cmd == "xsk unbind") {
    std::printf("xsk %s unbound\n", num(R, "id").c_str());
  } else if (Cmd == "map list") {
    for (const Value &M : R.items())
      printMap(M);
  } else if (Cmd == "map show") {
    printMap(R);
  } else if (Cmd == "map dump") {
    for (const Value &E : R.get("entries")->items())
      printEntry(E);
    std::printf("Found %zu element(s)\n", R.get("entries")->items().size());
  } else if (Cmd == "map lookup") {
    printEntry(R);
  } else if (Cmd == "map update") {
    if (const Value *C = R.get("contents"))
      std::printf("map %s updated: %s\n", num(R, "map").c_str(), C->text().c_str());
    else
      std::printf("map %s updated\n", num(R, "map").c_str());
  } else if (Cmd == "map delete") {
    std::printf("map %s: key deleted\n", num(R, "map").c_str());
  } else if (Cmd == "stats") {
    std::printf("interval %.3f s\n", R.get("interval_s")->number());
    for (const Value &P : R.get("ports")->items()) {
      printPort(P);
      printCounters(P);
      for (const Value &Q : P.get("per_queue")->items()) {
        const Value *L = Q.get("latency_us");
        std::printf("\tqueue %s (worker %s): rx %s  %.3f Mpps  batches %s  back end %.1f us  "
                    "latency p50 %.1f us p99 %.1f us\n",
                    num(Q, "queue").c_str(), num(Q, "worker").c_str(), num(Q, "rx_packets").c_str(),
                    Q.get("mpps")->number(), num(Q, "batches").c_str(),
                    Q.get("backend_us")->number(), L->get("p50")->number(),
                    L->get("p99")->number());
      }
    }
    for (const Value &W : R.get("workers")->items()) {
      const Value *L = W.get("latency_us");
      std::printf("worker %s: batches %s  back end %.1f us  latency p50 %.1f us p99 %.1f us\n",
                  num(W, "worker").c_str(), num(W, "batches").c_str(),
                  W.get("backend_us")->number(), L->get("p50")->number(), L->get("p99")->number());
    }
  }
}

} // namespace

int clientCommand(int argc, char **argv) {
  const char *Env = std::getenv("EBPF_GPU_LOADER_SOCKET");
  std::string Socket = Env && *Env ? Env : DefaultDaemonSocket;
  bool Json = false, Pretty = false;
  std::vector<std::string> A;
  for (int I = 1; I < argc; ++I) {
    std::string S = argv[I];
    if (S == "-h" || S == "--help") {
      usage("");
      return 0;
    }
    if (S == "--json" || S == "-j")
      Json = true;
    else if (S == "--pretty" || S == "-p")
      Json = Pretty = true;
    else if (S == "--socket") {
      if (I + 1 >= argc)
        return usage("--socket needs a path");
      Socket = argv[++I];
    } else
      A.push_back(S);
  }
  if (A.size() < 1)
    return usage("no command");
  Value Args = Value::object();
  std::string Cmd;
  if (std::optional<int> Exit = buildRequest(A, Cmd, Args))
    return *Exit;
  Value R = call(Socket, Cmd, std::move(Args));
  if (Json)
    std::printf("%s\n", R.write(Pretty).c_str());
  else
    printReply(Cmd, R);
  return 0;
}

} // namespace ebpfgpu::tools

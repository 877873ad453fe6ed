// SPDX-License-Identifier: Apache-2.0
//
// `ebpf-gpu-loader daemon`: owns the back ends (loaded programs) and the
// DPDK data plane (ports hot-plugged on an EAL brought up once), and serves
// a Unix stream control socket: one JSON request a line, one JSON response
// a line with the request's id (docs/DAEMON.md). One control thread runs
// everything but the workers: requests are handled one at a time, signals
// and stats sampling come through the same poll loop. SIGINT/SIGTERM stop
// it cleanly: workers run the batches they hold, ports close (net_pcap
// files complete), the socket is removed, exit 0.

#include "Daemon.h"

#include "DaemonBackends.h"
#include "ebpf-gpu/Daemon/DaemonConfig.h"
#include "ebpf-gpu/Daemon/DaemonState.h"
#include "ebpf-gpu/Daemon/Json.h"
#include "ebpf-gpu/Daemon/MetricsEndpoint.h"
#include "Options.h"
#include "ebpf-gpu/Daemon/Sockets.h"

#include "ebpf-gpu/Runtime/Dataplane.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <map>
#include <poll.h>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

namespace ebpfgpu::tools {

namespace {

/// A request line longer than this is refused and its client dropped.
constexpr size_t MaxRequestBytes = 1 << 20;

int SignalPipe[2] = {-1, -1};
/// Written by a worker whose program's back end failed: wakes the control
/// loop to recover it.
int FaultPipe[2] = {-1, -1};
/// Wakes the control loop with the signal's number (SIGHUP: reload).
extern "C" void onDaemonSignal(int Sig) {
  char C = char(Sig);
  ssize_t R = write(SignalPipe[1], &C, 1);
  (void)R;
}

int usage(const std::string &Msg) {
  if (!Msg.empty())
    std::fprintf(stderr, "%s: error: %s\n", Tool, Msg.c_str());
  std::fprintf(stderr,
               "usage: %s daemon [options] [-- EAL-ARGS]\n"
               "  --socket PATH        control socket (default %s, or $EBPF_GPU_LOADER_SOCKET)\n"
               "  --socket-mode OCTAL  its permissions (default 0600: root, or the daemon's "
               "user, only)\n"
               "  --workers N          worker lcores polling the ports' rx queues (default 1)\n"
               "  --mbufs N            mbufs in the pool all ports share (default 32767)\n"
               "  --max-frame BYTES    longer frames are dropped as oversized (default 2048)\n"
               "  --pci                scan the PCI bus so PCI ports can be attached\n"
               "  --stats-interval-ms MS\n"
               "                       the interval `stats` reports rates over (default 1000)\n"
               "  --metrics [ADDR:]PORT\n"
               "                       serve the counters for Prometheus at\n"
               "                       http://ADDR:PORT/metrics (ADDR default 127.0.0.1)\n"
               "  --config FILE        programs and ports to serve from the start, read again\n"
               "                       on SIGHUP (docs/DAEMON.md)\n"
               "  --state-dir DIR      with --config: each program's maps saved to DIR at the\n"
               "                       stop and restored when it is loaded again\n"
               "  --allow-unverified   TEST ONLY: `prog load` takes .gpu.o files compiled with\n"
               "                       --no-verify (fault-containment tests)\n"
               "  -- EAL-ARGS          passed to DPDK's EAL after the daemon's own\n",
               Tool, DefaultDaemonSocket);
  return 2;
}

struct Client {
  int Fd = -1;
  std::string In;
};

/// The daemon's data plane as DaemonState sees it.
class DataplanePorts final : public PortControl {
public:
  explicit DataplanePorts(runtime::Dataplane &DP) : DP(DP) {}
  Expected<uint32_t> attach(const runtime::AttachOptions &O,
                            std::shared_ptr<runtime::BatchExecutor> Exec) override {
    return DP.attach(O, std::move(Exec));
  }
  MaybeError replace(uint32_t Id, std::shared_ptr<runtime::BatchExecutor> Exec) override {
    return DP.replace(Id, std::move(Exec));
  }
  MaybeError resume(uint32_t Id) override { return DP.resume(Id); }
  Expected<runtime::PortStats> detach(uint32_t Id) override { return DP.detach(Id); }
  std::vector<runtime::PortStats> stats() const override { return DP.stats(); }
  uint32_t findPort(const std::string &NameOrId) const override { return DP.findPort(NameOrId); }
  unsigned workers() const override { return DP.workers(); }
  MaybeError bindXsk(uint32_t Id, const runtime::XskConsumer &C) override {
    return DP.bindXsk(Id, C);
  }
  bool unbindXsk(uint32_t Id) override { return DP.unbindXsk(Id); }
  std::vector<std::pair<uint32_t, runtime::XskConsumer>> xsks() const override {
    return DP.xsks();
  }
  void stop() override { DP.stop(); }

private:
  runtime::Dataplane &DP;
};

/// Makes `Path`'s directory (one level) and binds a listening socket there.
Expected<int> listenOn(const std::string &Path, mode_t Mode) {
  sockaddr_un Addr{};
  if (Path.size() >= sizeof(Addr.sun_path))
    return Error("socket path '" + Path + "' is too long (at most " +
                 std::to_string(sizeof(Addr.sun_path) - 1) + " bytes)");
  std::strcpy(Addr.sun_path, Path.c_str());
  Addr.sun_family = AF_UNIX;
  size_t Slash = Path.rfind('/');
  if (Slash != std::string::npos && Slash > 0)
    mkdir(Path.substr(0, Slash).c_str(), 0755); // exists already: fine
  struct stat St;
  if (lstat(Path.c_str(), &St) == 0) {
    if (!S_ISSOCK(St.st_mode))
      return Error("'" + Path + "' exists and is not a socket");
    int Probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool Live =
        Probe >= 0 && connect(Probe, reinterpret_cast<sockaddr *>(&Addr), sizeof(Addr)) == 0;
    if (Probe >= 0)
      close(Probe);
    if (Live)
      return Error("another daemon serves " + Path);
    unlink(Path.c_str()); // left by a daemon that did not end cleanly
  }
  int Fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (Fd < 0)
    return Error(std::string("socket: ") + std::strerror(errno));
  // Created with the final mode: no window in which others may connect.
  mode_t Old = umask(0777 & ~Mode);
  int R = bind(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof(Addr));
  umask(Old);
  if (R != 0) {
    int Err = errno;
    close(Fd);
    return Error("cannot bind " + Path + ": " + std::strerror(Err));
  }
  chmod(Path.c_str(), Mode);
  if (listen(Fd, 16) != 0) {
    int Err = errno;
    close(Fd);
    unlink(Path.c_str());
    return Error("cannot listen on " + Path + ": " + std::strerror(Err));
  }
  return Fd;
}

/// Root and the daemon's own user may control it.
std::optional<std::string> refusePeer(int Fd) {
  ucred Cred{};
  socklen_t Len = sizeof(Cred);
  if (getsockopt(Fd, SOL_SOCKET, SO_PEERCRED, &Cred, &Len) != 0)
    return std::string("permission denied: cannot tell who the client is");
  if (Cred.uid == 0 || Cred.uid == geteuid())
    return std::nullopt;
  return "permission denied: uid " + std::to_string(Cred.uid) +
         " may not control this daemon (root or uid " + std::to_string(geteuid()) + " only)";
}

/// The operator's trail on stderr: every request that changes something,
/// and every refusal.
void logRequest(const std::string &Line, const json::Value &Resp) {
  const json::Value *Ok = Resp.get("ok");
  if (Ok && !Ok->boolean()) {
    std::fprintf(stderr, "%s: daemon: refused: %s\n", Tool, Resp.get("error")->text().c_str());
    return;
  }
  auto Req = json::parse(Line);
  const json::Value *Cmd = Req ? Req->get("cmd") : nullptr;
  if (!Cmd || !Cmd->isString())
    return;
  static const char *const Changes[] = {"prog load",  "prog unload", "prog replace", "net attach",
                                        "net detach", "net resume",  "xsk bind",     "xsk unbind",
                                        "map update", "map delete"};
  for (const char *C : Changes)
    if (Cmd->text() == C) {
      const json::Value *Args = Req->get("args");
      std::fprintf(stderr, "%s: daemon: %s %s\n", Tool, C,
                   Args ? Args->write().c_str() : "{}");
      return;
    }
}

/// The daemon's command line.
struct DaemonCommandLine {
  runtime::DataplaneOptions DO;
  std::string Socket;
  mode_t Mode = 0600;
  uint64_t IntervalMs = 1000;
  /// --metrics: [ADDR:]PORT, empty for none.
  std::string Metrics;
  /// --config: the configuration file, empty for none; --state-dir.
  std::string Config, StateDir;
  DaemonOptions DOpts;
};

/// `daemon`'s arguments into `L`: an exit status to return (a usage error,
/// or --help), else nothing.
std::optional<int> parseDaemonArgs(int argc, char **argv, DaemonCommandLine &L) {
  for (ArgCursor C(argc, argv, usage); C.next();) {
    const std::string &A = C.arg();
    if (A == "--") {
      L.DO.EalArgs = C.rest();
      break;
    }
    if (A == "--socket")
      L.Socket = C.value();
    else if (A == "--socket-mode") {
      uint64_t M;
      if (!parseNumber(C.value(), 0, 0777, M, 8))
        return usage("--socket-mode needs octal permissions (e.g. 0600)");
      L.Mode = mode_t(M);
    } else if (A == "--workers")
      L.DO.Workers = unsigned(C.number(1, runtime::MaxDataplaneWorkers));
    else if (A == "--mbufs")
      L.DO.Mbufs = uint32_t(C.number(1023, 1u << 24));
    else if (A == "--max-frame")
      L.DO.MaxFrame = uint32_t(C.number(64, 9216));
    else if (A == "--pci")
      L.DO.Pci = true;
    else if (A == "--stats-interval-ms")
      L.IntervalMs = C.number(10, 3600000);
    else if (A == "--metrics")
      L.Metrics = C.value();
    else if (A == "--config")
      L.Config = C.value();
    else if (A == "--state-dir")
      L.StateDir = C.value();
    else if (A == "--allow-unverified")
      L.DOpts.AllowUnverified = true;
    else if (A == "-h" || A == "--help") {
      usage("");
      return 0;
    } else
      return usage("unknown option " + A);
  }
  return std::nullopt;
}

/// Reads what client `C` sent and answers each whole request line; true
/// when the client is to be dropped (gone, unreachable, or its request
/// too long).
bool serveClient(Client &C, DaemonState &State) {
  char Buf[65536];
  ssize_t N = recv(C.Fd, Buf, sizeof(Buf), MSG_DONTWAIT);
  if (N < 0 && (errno == EAGAIN || errno == EINTR))
    return false;
  if (N <= 0)
    return true;
  C.In.append(Buf, size_t(N));
  size_t Nl;
  bool Drop = false;
  while ((Nl = C.In.find('\n')) != std::string::npos && !Drop) {
    std::string Line = C.In.substr(0, Nl);
    C.In.erase(0, Nl + 1);
    if (Line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    json::Value Resp = State.handle(Line);
    logRequest(Line, Resp);
    Drop = !sendAll(C.Fd, Resp.write() + "\n");
  }
  if (!Drop && C.In.size() > MaxRequestBytes) {
    json::Value R = json::Value::object();
    R.set("id", nullptr)
        .set("ok", false)
        .set("error", "request longer than " + std::to_string(MaxRequestBytes) + " bytes");
    sendAll(C.Fd, R.write() + "\n");
    Drop = true;
  }
  return Drop;
}

/// A new client on `Listen`: taken on, or told why not and closed.
void acceptClient(int Listen, std::vector<Client> &Clients) {
  int Fd = accept4(Listen, nullptr, nullptr, SOCK_CLOEXEC);
  if (Fd >= 0) {
    timeval Tv{5, 0}; // a client that does not read its answers is dropped
    setsockopt(Fd, SOL_SOCKET, SO_SNDTIMEO, &Tv, sizeof(Tv));
    if (auto Why = refusePeer(Fd)) {
      json::Value R = json::Value::object();
      R.set("id", nullptr).set("ok", false).set("error", *Why);
      sendAll(Fd, R.write() + "\n");
      close(Fd);
    } else {
      Clients.push_back({Fd, ""});
    }
  }
}

/// Serves until SIGINT or SIGTERM: control clients on `Listen`, scrapes,
/// back-end faults (recovered), rate samples every `IntervalMs`, and
/// `OnReload` on SIGHUP.
void controlLoop(DaemonState &State, int Listen, MetricsEndpoint *Metrics, uint64_t IntervalMs,
                 std::vector<Client> &Clients, const std::function<void()> &OnReload) {
  auto NextSample = std::chrono::steady_clock::now();
  bool Quit = false;
  int RetryMs = -1; // a failed re-creation waits this long
  while (!Quit) {
    auto Now = std::chrono::steady_clock::now();
    if (Now >= NextSample) {
      State.sampleRates();
      NextSample = Now + std::chrono::milliseconds(IntervalMs);
    }
    int Timeout =
        int(std::chrono::duration_cast<std::chrono::milliseconds>(NextSample - Now).count() + 1);
    if (RetryMs >= 0)
      Timeout = std::min(Timeout, RetryMs);
    if (Metrics && Metrics->timeoutMs() >= 0)
      Timeout = std::min(Timeout, Metrics->timeoutMs());
    std::vector<pollfd> Fds = {{SignalPipe[0], POLLIN, 0}, {FaultPipe[0], POLLIN, 0}};
    Fds.push_back({Listen, POLLIN, 0});
    for (const Client &C : Clients)
      Fds.push_back({C.Fd, POLLIN, 0});
    const size_t MetricsAt = Fds.size();
    if (Metrics)
      Metrics->addPollFds(Fds);
    if (poll(Fds.data(), Fds.size(), Timeout) < 0) {
      if (errno == EINTR)
        continue;
      std::fprintf(stderr, "%s: error: poll: %s\n", Tool, std::strerror(errno));
      break;
    }
    if (Fds[0].revents) {
      char Sigs[16];
      bool Reload = false;
      for (ssize_t N; (N = read(SignalPipe[0], Sigs, sizeof(Sigs))) > 0;)
        for (ssize_t I = 0; I < N; ++I)
          (Sigs[I] == SIGHUP ? Reload : Quit) = true;
      if (Quit)
        break;
      if (Reload)
        OnReload();
    }
    if (Fds[1].revents || RetryMs >= 0) {
      char Drain[64];
      while (read(FaultPipe[0], Drain, sizeof(Drain)) > 0) {
      }
      RetryMs = State.recoverFaults();
    }
    std::vector<size_t> Gone;
    for (size_t I = 0; I < Clients.size(); ++I) {
      if (!Fds[I + 3].revents)
        continue;
      if (serveClient(Clients[I], State))
        Gone.push_back(I);
    }
    if (Metrics)
      Metrics->serve(&Fds[MetricsAt], [&] { return State.metrics(); });
    for (size_t K = Gone.size(); K-- > 0;) {
      close(Clients[Gone[K]].Fd);
      Clients.erase(Clients.begin() + long(Gone[K]));
    }
    if (Fds[2].revents & POLLIN)
      acceptClient(Listen, Clients);
  }

}

} // namespace

int daemonCommand(int argc, char **argv) {
  DaemonCommandLine L;
  const char *Env = std::getenv("EBPF_GPU_LOADER_SOCKET");
  L.Socket = Env && *Env ? Env : DefaultDaemonSocket;
  DaemonOptions &DOpts = L.DOpts;
  const std::string &Socket = L.Socket;
  // Test only: batches that fail as a broken back end would.
  if (const char *F = std::getenv("EBPF_GPU_LOADER_TEST_FAIL_BATCHES"); F && *F) {
    auto Inject = FaultInjection::parse(F);
    if (!Inject)
      return usage(std::string("EBPF_GPU_LOADER_TEST_FAIL_BATCHES: ") + Inject.error().message());
    DOpts.Inject = std::move(*Inject);
  }
  if (std::optional<int> Exit = parseDaemonArgs(argc, argv, L))
    return *Exit;
  if (Socket.empty())
    return usage("--socket needs a path");
  if (!L.StateDir.empty() && L.Config.empty())
    return usage("--state-dir needs --config (the programs' names in it name the saved maps)");
  if (struct stat St; !L.StateDir.empty() && (stat(L.StateDir.c_str(), &St) != 0 ||
                                              !S_ISDIR(St.st_mode) ||
                                              access(L.StateDir.c_str(), W_OK) != 0)) {
    std::fprintf(stderr, "%s: error: --state-dir %s is not a folder the daemon can write\n", Tool,
                 L.StateDir.c_str());
    return 1;
  }
  // The metrics endpoint first: a wrong address or a port in use ends the
  // daemon before DPDK starts.
  std::unique_ptr<MetricsEndpoint> Metrics;
  if (!L.Metrics.empty()) {
    auto M = MetricsEndpoint::listen(L.Metrics);
    if (!M) {
      std::fprintf(stderr, "%s: error: %s\n", Tool, M.error().message().c_str());
      return 1;
    }
    Metrics = std::move(*M);
  }

  if (pipe2(SignalPipe, O_CLOEXEC | O_NONBLOCK) != 0 ||
      pipe2(FaultPipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    std::fprintf(stderr, "%s: error: pipe: %s\n", Tool, std::strerror(errno));
    return 1;
  }
  struct sigaction Sa = {};
  Sa.sa_handler = onDaemonSignal;
  sigaction(SIGINT, &Sa, nullptr);
  sigaction(SIGTERM, &Sa, nullptr);
  sigaction(SIGHUP, &Sa, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto DP = runtime::Dataplane::start(L.DO);
  if (!DP) {
    std::fprintf(stderr, "%s: error: %s\n", Tool, DP.error().message().c_str());
    return 1;
  }
  auto Listen = listenOn(Socket, L.Mode);
  if (!Listen) {
    (*DP)->stop();
    std::fprintf(stderr, "%s: error: %s\n", Tool, Listen.error().message().c_str());
    return 1;
  }
  DOpts.OnFault = [] {
    char C = 1;
    ssize_t R = write(FaultPipe[1], &C, 1); // full: a wake-up is pending anyway
    (void)R;
  };
  DataplanePorts Ports(**DP);
  DaemonBackends Backends;
  DOpts.Workers = (*DP)->workers();
  DaemonState State(Ports, Backends, DOpts);
  std::fprintf(stderr, "%s: daemon: serving %s (%u worker(s))\n", Tool, Socket.c_str(),
               (*DP)->workers());
  if (Metrics)
    std::fprintf(stderr, "%s: daemon: metrics at http://%s/metrics\n", Tool,
                 Metrics->address().c_str());
  if (DOpts.AllowUnverified)
    std::fprintf(stderr, "%s: daemon: TEST ONLY: unverified .gpu.o files are accepted\n", Tool);
  if (!DOpts.Inject.empty())
    std::fprintf(stderr,
                 "%s: daemon: TEST ONLY: EBPF_GPU_LOADER_TEST_FAIL_BATCHES=%s: those "
                 "batches of every program fail\n",
                 Tool, std::getenv("EBPF_GPU_LOADER_TEST_FAIL_BATCHES"));

  // The configuration: what a client would send, through the same handler.
  ConfigApplier Config([&](const std::string &Cmd, json::Value Args) {
    std::string Line =
        json::Value::object().set("id", 0).set("cmd", Cmd).set("args", std::move(Args)).write();
    json::Value Resp = State.handle(Line);
    // A restore's entries are summed up in one line (ConfigApplier).
    if (Cmd != "map update")
      logRequest(Line, Resp);
    return Resp;
  });
  Config.setStateDir(L.StateDir);
  auto ApplyConfig = [&](bool Strict) {
    auto Done = Config.apply(L.Config, Strict);
    for (const std::string &D : Done ? *Done : std::vector<std::string>())
      std::fprintf(stderr, "%s: daemon: %s\n", Tool, D.c_str());
    if (!Done)
      std::fprintf(stderr, "%s: %s: %s\n", Tool, Strict ? "error" : "daemon: reload",
                   Done.error().message().c_str());
    return bool(Done);
  };
  if (!L.Config.empty() && !ApplyConfig(true)) {
    close(*Listen);
    State.stop();
    unlink(Socket.c_str());
    return 1;
  }

  std::vector<Client> Clients;
  controlLoop(State, *Listen, Metrics.get(), L.IntervalMs, Clients, [&] {
    if (L.Config.empty()) {
      std::fprintf(stderr, "%s: daemon: SIGHUP: no --config to read again\n", Tool);
      return;
    }
    std::fprintf(stderr, "%s: daemon: SIGHUP: reading %s again\n", Tool, L.Config.c_str());
    ApplyConfig(false);
  });

  std::fprintf(stderr, "%s: daemon: stopping\n", Tool);
  if (!L.StateDir.empty())
    for (const std::string &D : Config.saveState())
      std::fprintf(stderr, "%s: daemon: %s\n", Tool, D.c_str());
  close(*Listen);
  Metrics.reset();
  for (const Client &C : Clients)
    close(C.Fd);
  // Workers finish their batches; ports close (pcap files complete).
  State.stop();
  unlink(Socket.c_str());
  std::fprintf(stderr, "%s: daemon: stopped\n", Tool);
  return 0;
}

} // namespace ebpfgpu::tools

// SPDX-License-Identifier: Apache-2.0
//
// EAL arguments and start-up for the DPDK runtime. Every run gets its own
// file prefix and no shared configuration, so that runs (and tests) never
// meet each other's runtime files; a machine without free hugepages gets
// --no-huge with a memory size fitted to the pool; a run without PCI ports
// does not scan the PCI bus.

#include "DpdkEal.h"

#include "ebpf-gpu/Support/OutputPath.h"

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include <fstream>
#include <regex>
#include <sched.h>
#include <string_view>
#include <unistd.h>

namespace ebpfgpu::runtime::dpdk {

namespace {

bool looksLikePci(const std::string &Name) {
  static const std::regex Pci("([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\\.[0-7]");
  return std::regex_match(Name, Pci);
}

bool haveFreeHugepages() {
  std::ifstream In("/proc/meminfo");
  std::string Key;
  long Value;
  while (In >> Key >> Value)
    if (Key == "HugePages_Free:")
      return Value > 0;
  return false;
}

bool hasArg(const std::vector<std::string> &Args, std::initializer_list<std::string_view> Names) {
  for (const std::string &A : Args)
    for (std::string_view N : Names)
      if (A == N || (A.size() > N.size() && A.compare(0, N.size(), N) == 0 && A[N.size()] == '='))
        return true;
  return false;
}

/// "--lcores" mapping `Count` lcores onto the CPUs this process may use:
/// one CPU each while there are enough, all of them shared otherwise.
std::string lcoreMap(unsigned Count) {
  cpu_set_t Set;
  std::vector<int> Cpus;
  if (sched_getaffinity(0, sizeof(Set), &Set) == 0)
    for (int C = 0; C < CPU_SETSIZE; ++C)
      if (CPU_ISSET(C, &Set))
        Cpus.push_back(C);
  if (Cpus.empty())
    Cpus.push_back(0);
  std::string Map = "--lcores=";
  if (Count <= Cpus.size()) {
    for (unsigned L = 0; L < Count; ++L)
      Map += (L ? "," : "") + std::to_string(L) + "@" + std::to_string(Cpus[L]);
    return Map;
  }
  Map += "(0-" + std::to_string(Count - 1) + ")@(";
  for (size_t I = 0; I < Cpus.size(); ++I)
    Map += (I ? "," : "") + std::to_string(Cpus[I]);
  return Map + ")";
}

} // namespace

Expected<DeviceSpec> parseDevice(const std::string &Spec) {
  DeviceSpec D;
  D.Given = Spec;
  size_t Comma = Spec.find(',');
  D.Name = Spec.substr(0, Comma);
  if (D.Name.empty())
    return Error("port '" + Spec + "': no device name before the arguments");
  if (D.Name == "gen") {
    if (Comma != std::string::npos)
      return Error("port '" + Spec + "': the generator port takes no arguments (--gen-pcap, "
                   "--gen-frame)");
    D.Generator = true;
    return D;
  }
  D.Pci = looksLikePci(D.Name);
  if (D.Pci) {
    if (Comma != std::string::npos)
      return Error("port '" + Spec +
                   "': PCI devices take no arguments here "
                   "(pass driver arguments with -a after --)");
    if (D.Name.size() == 7) // bus:dev.fn: DPDK names the port with its domain
      D.Name = "0000:" + D.Name;
    D.Eal = D.Name;
    return D;
  }
  // A net_pcap's output is written under a temporary name until the run
  // has ended well, as every output of the tools.
  D.Eal = D.Name;
  bool Pcap = D.Name.rfind("net_pcap", 0) == 0 || D.Name.rfind("eth_pcap", 0) == 0;
  size_t Pos = Comma;
  while (Pos != std::string::npos) {
    size_t Next = Spec.find(',', Pos + 1);
    std::string Arg = Spec.substr(Pos + 1, Next == std::string::npos ? Next : Next - Pos - 1);
    if (Pcap && Arg.rfind("tx_pcap=", 0) == 0) {
      std::string Path = Arg.substr(8);
      std::string Tmp = stagingPath(Path, ".tmp");
      if (Tmp != Path)
        D.Outputs.push_back({Path, Tmp});
      Arg = "tx_pcap=" + Tmp;
    }
    D.Eal += "," + Arg;
    Pos = Next;
  }
  return D;
}

Expected<std::unique_ptr<Eal>> Eal::init(const std::vector<DeviceSpec> &Devices, unsigned Lcores,
                                         unsigned MemoryMb, const std::vector<std::string> &Extra) {
  std::unique_ptr<Eal> E(new Eal());
  E->LogStream = open_memstream(&E->LogBuffer, &E->LogSize);
  if (!E->LogStream)
    return Error("cannot capture DPDK's log: out of memory");
  rte_openlog_stream(E->LogStream);

  std::vector<std::string> Args = {"ebpf-gpu-loader",
                                   "--file-prefix=ebpf-gpu-" + std::to_string(getpid()),
                                   "--no-shconf", "--no-telemetry", "--log-level=error"};
  if (!hasArg(Extra, {"-l", "--lcores", "-c"}))
    Args.push_back(lcoreMap(Lcores));
  bool AnyPci = false;
  for (const DeviceSpec &D : Devices)
    AnyPci |= D.Pci;
  if (!AnyPci && !hasArg(Extra, {"-a", "--allow", "-b", "--block"}))
    Args.push_back("--no-pci");
  if (!haveFreeHugepages() && !hasArg(Extra, {"--no-huge", "-m", "--socket-mem"})) {
    Args.push_back("--no-huge");
    Args.push_back("-m");
    Args.push_back(std::to_string(MemoryMb));
  }
  for (const DeviceSpec &D : Devices) {
    if (D.Generator)
      continue;
    Args.push_back(D.Pci ? "-a" : "--vdev");
    Args.push_back(D.Eal);
  }
  Args.insert(Args.end(), Extra.begin(), Extra.end());

  std::vector<char *> Argv;
  for (std::string &A : Args)
    Argv.push_back(A.data());
  Argv.push_back(nullptr);
  if (rte_eal_init(int(Args.size()), Argv.data()) < 0) {
    std::string Why = rte_strerror(rte_errno);
    std::string Log = E->takeLog();
    E->logToStderr();
    return Error("DPDK's EAL did not start: " + (Log.empty() ? Why : Log));
  }
  E->Up = true;
  return E;
}

Eal::~Eal() {
  rte_openlog_stream(stderr);
  if (Up)
    rte_eal_cleanup();
  if (LogStream)
    std::fclose(LogStream);
  std::free(LogBuffer);
}

std::string Eal::takeLog() {
  if (!LogStream)
    return "";
  std::fflush(LogStream);
  std::string Text(LogBuffer + LogTaken, LogSize - LogTaken);
  LogTaken = LogSize;
  std::string Joined;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    std::string Line = Text.substr(Pos, End == std::string::npos ? End : End - Pos);
    if (!Line.empty())
      Joined += (Joined.empty() ? "" : "; ") + Line;
    Pos = End == std::string::npos ? Text.size() : End + 1;
  }
  return Joined;
}

void Eal::logToStderr() {
  // The memory stream stays open: a thread that took it just before the
  // switch may still be writing a line into it.
  takeLog();
  rte_openlog_stream(stderr);
}

void Eal::captureLog() {
  if (!LogStream)
    return;
  takeLog();
  rte_openlog_stream(LogStream);
}

} // namespace ebpfgpu::runtime::dpdk

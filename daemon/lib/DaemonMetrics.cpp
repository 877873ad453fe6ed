// SPDX-License-Identifier: Apache-2.0
//
// The daemon's counters in Prometheus's text exposition format (0.0.4), for
// `daemon --metrics`: the numbers `stats` reports, as counters a scraper
// keeps (rates are the scraper's to take), with the labels a dashboard
// groups by. Per port and queue: packets and bytes received, packets and
// bytes per XDP action, verdicts outside the actions, batches, time in the
// back end, packets lost per reason, and the batch latency as a histogram
// (le at powers of two of nanoseconds: the edges of the data plane's own
// buckets, so that every count is exact). Per port: what it sent, what its
// exception port sent, what the driver counted. Per program: its back end,
// faults, recoveries and the batches and packets that failed.

#include "ebpf-gpu/Daemon/DaemonState.h"

#include "ebpf-gpu/Runtime/LatencyHistogram.h"
#include "ebpf-gpu/Runtime/Packets.h"

#include <cinttypes>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ebpfgpu::tools {

namespace {

using runtime::LatencyHistogram;

/// A label value as the format quotes it.
std::string escape(const std::string &V) {
  std::string Out;
  for (char C : V) {
    if (C == '\\' || C == '"')
      Out += '\\', Out += C;
    else if (C == '\n')
      Out += "\\n";
    else
      Out += C;
  }
  return Out;
}

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string labelText(const Labels &L) {
  if (L.empty())
    return "";
  std::string Out = "{";
  for (size_t I = 0; I < L.size(); ++I)
    Out += (I ? "," : "") + L[I].first + "=\"" + escape(L[I].second) + "\"";
  return Out + "}";
}

std::string number(uint64_t V) { return std::to_string(V); }

std::string seconds(uint64_t Ns) {
  char B[40];
  std::snprintf(B, sizeof(B), "%" PRIu64 ".%09" PRIu64, Ns / 1000000000, Ns % 1000000000);
  return B;
}

/// Metric families in the order first named, each with its samples
/// together, as the format requires.
class Families {
public:
  void add(const std::string &Name, const char *Type, const char *Help, const Labels &L,
           const std::string &Value, const std::string &Suffix = "") {
    Family *F = nullptr;
    for (Family &G : All)
      if (G.Name == Name)
        F = &G;
    if (!F) {
      All.push_back({Name, Type, Help, {}});
      F = &All.back();
    }
    F->Samples += Name + Suffix + labelText(L) + " " + Value + "\n";
  }
  std::string text() const {
    std::string Out;
    for (const Family &F : All)
      Out += "# HELP " + F.Name + " " + F.Help + "\n# TYPE " + F.Name + " " + F.Type + "\n" +
             F.Samples;
    return Out;
  }

private:
  struct Family {
    std::string Name, Type, Help, Samples;
  };
  std::vector<Family> All;
};

/// The histogram's buckets up to 2^K ns hold exactly the batches that took
/// at most 2^K ns: its buckets never straddle a power of two.
void latency(Families &M, const Labels &L, const LatencyHistogram::Counts &C, uint64_t SumNs) {
  const std::string Name = "ebpf_gpu_batch_latency_seconds";
  const char *Help = "Batches by the time from their first packet received to their last sent or "
                     "freed.";
  uint64_t Seen = 0, Total = 0;
  for (uint64_t N : C)
    Total += N;
  unsigned B = 0;
  for (unsigned K = 10; K <= 30; ++K) { // 1.024 us to 1.07 s
    const uint64_t Edge = uint64_t(1) << K;
    for (; B < LatencyHistogram::Buckets && LatencyHistogram::upperBound(B) < Edge; ++B)
      Seen += C[B];
    Labels BL = L;
    BL.push_back({"le", seconds(Edge)});
    M.add(Name, "histogram", Help, BL, number(Seen), "_bucket");
  }
  Labels Inf = L;
  Inf.push_back({"le", "+Inf"});
  M.add(Name, "histogram", Help, Inf, number(Total), "_bucket");
  M.add(Name, "histogram", Help, L, seconds(SumNs), "_sum");
  M.add(Name, "histogram", Help, L, number(Total), "_count");
}

} // namespace

std::string DaemonState::metrics() const {
  Families M;
  M.add("ebpf_gpu_workers", "gauge", "Worker lcores of the data plane.", {}, number(DP.workers()));
  for (const auto &[Id, P] : Programs) {
    Labels L = {{"program_id", number(Id)}, {"program", P.Name}};
    Labels Info = L;
    Info.push_back({"backend", exec::backendName(P.Backend)});
    M.add("ebpf_gpu_program_info", "gauge", "A loaded program and its back end (always 1).", Info,
          "1");
    M.add("ebpf_gpu_program_faulted", "gauge",
          "1 while the program's back end has failed and is not yet re-created.", L,
          P.Exec->faulted() ? "1" : "0");
    M.add("ebpf_gpu_program_faults_total", "counter", "Back-end faults of the program.", L,
          number(P.Exec->faults()));
    M.add("ebpf_gpu_program_recoveries_total", "counter",
          "Back ends re-created after a fault.", L, number(P.Recoveries));
    M.add("ebpf_gpu_program_failed_batches_total", "counter", "Batches the back end failed.", L,
          number(P.Exec->failedBatches()));
    M.add("ebpf_gpu_program_failed_packets_total", "counter",
          "Packets of the batches the back end failed.", L, number(P.Exec->failedPackets()));
  }
  for (const runtime::PortStats &S : DP.stats()) {
    auto It = PortProgram.find(S.Id);
    Labels Port = {{"port", number(S.Id)}, {"device", S.Device}};
    M.add("ebpf_gpu_tx_packets_total", "counter",
          "Packets sent out of the port (XDP_TX, XDP_REDIRECT to it).", Port, number(S.TxPackets));
    M.add("ebpf_gpu_tx_bytes_total", "counter", "Bytes sent out of the port.", Port,
          number(S.TxBytes));
    M.add("ebpf_gpu_tx_full_total", "counter", "Packets the port's tx ring refused (freed).", Port,
          number(S.TxFull));
    M.add("ebpf_gpu_exception_tx_packets_total", "counter",
          "XDP_PASS packets sent to the port's exception port.", Port, number(S.PassTxPackets));
    M.add("ebpf_gpu_exception_tx_full_total", "counter",
          "XDP_PASS packets the exception port's ring refused (freed).", Port,
          number(S.PassTxFull));
    const std::pair<const char *, uint64_t> Driver[] = {{"rx_nombuf", S.RxNoMbuf},
                                                        {"rx_missed", S.RxMissed},
                                                        {"rx_errors", S.RxErrors},
                                                        {"tx_errors", S.TxErrors}};
    for (const auto &[Why, N] : Driver) {
      Labels L = Port;
      L.push_back({"error", Why});
      M.add("ebpf_gpu_port_errors_total", "counter", "The port driver's own error counters.", L,
            number(N));
    }
    for (const runtime::QueueStats &Q : S.Queues) {
      Labels L = Port;
      L.push_back({"queue", number(Q.Queue)});
      L.push_back({"program_id", It == PortProgram.end() ? "" : number(It->second)});
      L.push_back({"program", S.Program});
      M.add("ebpf_gpu_rx_packets_total", "counter", "Packets received.", L, number(Q.RxPackets));
      M.add("ebpf_gpu_rx_bytes_total", "counter", "Bytes received.", L, number(Q.RxBytes));
      for (unsigned A = 0; A < runtime::NumXdpActions; ++A) {
        Labels AL = L;
        AL.push_back({"action", runtime::xdpActionName(A)});
        M.add("ebpf_gpu_action_packets_total", "counter", "Packets by the program's verdict.", AL,
              number(Q.Actions.Packets[A]));
        M.add("ebpf_gpu_action_bytes_total", "counter", "Bytes by the program's verdict.", AL,
              number(Q.Actions.Bytes[A]));
      }
      M.add("ebpf_gpu_invalid_verdicts_total", "counter",
            "Verdicts outside the XDP actions (acted on as XDP_ABORTED).", L,
            number(Q.Actions.Invalid));
      const std::pair<const char *, uint64_t> Lost[] = {{"oversized", Q.Oversized},
                                                        {"redirect_unknown", Q.RedirectUnknown},
                                                        {"pass_dropped", Q.PassDropped},
                                                        {"exec_failed", Q.ExecFailed},
                                                        {"broadcast_failed", Q.BroadcastFailed}};
      for (const auto &[Why, N] : Lost) {
        Labels EL = L;
        EL.push_back({"error", Why});
        M.add("ebpf_gpu_packet_errors_total", "counter",
              "Packets freed without a verdict's action, by reason.", EL, number(N));
      }
      M.add("ebpf_gpu_broadcast_copies_total", "counter",
            "Copies of broadcast packets sent beyond the packets themselves.", L,
            number(Q.BroadcastCopies));
      M.add("ebpf_gpu_redirect_cpu_total", "counter",
            "Redirects into a cpumap, sent to the exception port as XDP_PASS.", L,
            number(Q.RedirectCpu));
      M.add("ebpf_gpu_redirect_xsk_total", "counter",
            "Redirects into an xskmap, sent to the consumer's port.", L, number(Q.RedirectXsk));
      M.add("ebpf_gpu_xsk_refused_total", "counter",
            "Redirects into an xskmap freed: no consumer bound to the packet's port and queue.", L,
            number(Q.XskRefused));
      M.add("ebpf_gpu_batches_total", "counter", "Batches run.", L, number(Q.Batches));
      M.add("ebpf_gpu_backend_seconds_total", "counter",
            "Time spent starting batches in the back end and waiting for them.", L,
            seconds(Q.BackendNs));
      latency(M, L, Q.Latency, Q.LatencySumNs);
    }
  }
  return M.text();
}

} // namespace ebpfgpu::tools

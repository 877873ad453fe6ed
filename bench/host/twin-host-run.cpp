// SPDX-License-Identifier: Apache-2.0
//
// Runs one hand-written CUDA twin on the host, one packet after another
// (compiled with cuda-host-shim.h and the twin's .cu in this translation
// unit: TWIN_SOURCE names it, TWIN_KERNEL its kernel), with its tables set
// from the sample's map file as ebpf-gpu-bench sets them, and writes what
// `ebpf-gpu-loader run --verdicts` writes ("INDEX XDP_ACTION LENGTH" per
// packet) and the bytes of every packet not dropped or aborted, one hex line
// each. Serial order makes even the stateful twins comparable with the host
// back end exactly. Build machine only (scripts/bench.sh prepare).
//
// A pattern map's "MAP:@FILE" line (the IDS twin) is compiled by the
// pattern map's own code (abi/lib/Patterns.cpp, linked in for TWIN_IDS).
//
// usage: twin-host-run IN.pcap VERDICTS OUT.hex [MAPFILE]

#include "cuda-host-shim.h"

#include TWIN_SOURCE

#ifdef TWIN_IDS
#include "ebpf-gpu/Abi/Patterns.h"
#endif

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const std::string &M) {
  std::fprintf(stderr, "twin-host-run: %s\n", M.c_str());
  std::exit(1);
}

std::vector<uint8_t> hex(const std::string &S) {
  std::vector<uint8_t> Out;
  for (size_t I = 0; I + 1 < S.size(); I += 2)
    Out.push_back(uint8_t(std::stoul(S.substr(I, 2), nullptr, 16)));
  return Out;
}

struct Entry {
  std::string Map;
  std::vector<uint8_t> Key, Value;
  std::string PatternFile; ///< "MAP:@FILE", relative to the map file
};

std::vector<Entry> readMaps(const char *Path) {
  std::vector<Entry> Out;
  if (!Path)
    return Out;
  std::ifstream In(Path);
  if (!In)
    die(std::string(Path) + ": cannot read");
  std::string L;
  while (std::getline(In, L)) {
    L = L.substr(0, L.find('#'));
    std::string T;
    for (char C : L)
      if (!std::isspace(static_cast<unsigned char>(C)))
        T += C;
    if (T.empty())
      continue;
    size_t A = T.find(':'), B = T.find(':', A + 1);
    if (A != std::string::npos && T.compare(A, 2, ":@") == 0) {
      std::string Dir = Path, File = T.substr(A + 2);
      Dir = Dir.find('/') == std::string::npos ? "" : Dir.substr(0, Dir.rfind('/') + 1);
      Out.push_back({T.substr(0, A), {}, {}, File[0] == '/' ? File : Dir + File});
      continue;
    }
    Out.push_back({T.substr(0, A), hex(T.substr(A + 1, B - A - 1)), hex(T.substr(B + 1))});
  }
  return Out;
}

[[maybe_unused]] void setArray(const std::vector<Entry> &E, const char *Map, void *Global,
                               size_t Size) {
  for (const Entry &X : E)
    if (X.Map == Map) {
      uint32_t K = 0;
      std::memcpy(&K, X.Key.data(), 4);
      if ((K + 1) * X.Value.size() > Size)
        die(std::string(Map) + ": key past the twin's table");
      std::memcpy(static_cast<uint8_t *>(Global) + K * X.Value.size(), X.Value.data(),
                  X.Value.size());
    }
}

[[maybe_unused]] void setSorted(const std::vector<Entry> &E, const char *Map, void *Global,
                                size_t Size, unsigned &Count) {
  std::vector<const Entry *> Sel;
  for (const Entry &X : E)
    if (X.Map == Map)
      Sel.push_back(&X);
  auto First = [](const Entry *X) {
    uint32_t V;
    std::memcpy(&V, X->Key.data(), 4);
    return V;
  };
  std::stable_sort(Sel.begin(), Sel.end(),
                   [&](const Entry *A, const Entry *B) { return First(A) > First(B); });
  size_t At = 0;
  for (const Entry *X : Sel) {
    if (At + X->Key.size() + X->Value.size() > Size)
      die(std::string(Map) + ": too many entries for the twin's table");
    std::memcpy(static_cast<uint8_t *>(Global) + At, X->Key.data(), X->Key.size());
    At += X->Key.size();
    std::memcpy(static_cast<uint8_t *>(Global) + At, X->Value.data(), X->Value.size());
    At += X->Value.size();
  }
  Count = unsigned(Sel.size());
}

const char *actionName(unsigned A) {
  static const char *N[] = {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT"};
  return A < 5 ? N[A] : "XDP_UNKNOWN";
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 4)
    die("usage: twin-host-run IN.pcap VERDICTS OUT.hex [MAPFILE]");
  std::vector<Entry> Maps = readMaps(argc > 4 ? argv[4] : nullptr);
#ifdef TWIN_LB
  setArray(Maps, "backend_macs", lb_macs, sizeof(lb_macs));
  setArray(Maps, "tx_ports", lb_ports, sizeof(lb_ports));
#endif
#ifdef TWIN_ROUTER
  setSorted(Maps, "routes", router_routes, sizeof(router_routes), router_route_count);
#endif
#ifdef TWIN_L4LB
  setSorted(Maps, "vips", l4lb_vips, sizeof(l4lb_vips), l4lb_vip_count);
  setArray(Maps, "ring", l4lb_ring, sizeof(l4lb_ring));
  setArray(Maps, "reals", l4lb_reals, sizeof(l4lb_reals));
  setArray(Maps, "lb_config", &l4lb_config, sizeof(l4lb_config));
#endif
#ifdef TWIN_IDS
  for (const Entry &X : Maps)
    if (X.Map == "rules" && !X.PatternFile.empty()) {
      auto Automaton = ebpfgpu::abi::compilePatternFile(X.PatternFile);
      if (!Automaton)
        die(Automaton.error().message());
      if (Automaton->size() > sizeof(ids_dfa))
        die(X.PatternFile + ": the automaton is larger than the twin's ids_dfa");
      std::memcpy(ids_dfa, Automaton->data(), Automaton->size());
    }
#endif
#ifdef TWIN_TCP_MSS
  setArray(Maps, "mss_clamp", &tcp_mss_clamp, sizeof(tcp_mss_clamp));
#endif
  std::FILE *F = std::fopen(argv[1], "rb");
  if (!F)
    die(std::string(argv[1]) + ": cannot read");
  uint32_t Header[6];
  if (std::fread(Header, sizeof(Header), 1, F) != 1)
    die("not a pcap file");
  std::FILE *V = std::fopen(argv[2], "w"), *O = std::fopen(argv[3], "w");
  uint32_t Rec[4];
  for (unsigned I = 0; std::fread(Rec, sizeof(Rec), 1, F) == 1; ++I) {
    std::vector<uint8_t> Buf(256 + Rec[2] + 256);
    if (Rec[2] && std::fread(Buf.data() + 256, Rec[2], 1, F) != 1)
      die("cut-off pcap record");
    ebpfgpu_packet_desc D{};
    D.buffer = reinterpret_cast<uint64_t>(Buf.data());
    D.data_offset = 256;
    D.length = Rec[2];
    D.buffer_size = uint32_t(Buf.size());
    ebpfgpu_verdict R{};
    TWIN_KERNEL(&D, &R, 1, 0);
    std::fprintf(V, "%u %s %u\n", I, actionName(R.action), R.length);
    if (R.action >= 2 && R.action <= 4) {
      for (uint32_t K = 0; K < R.length; ++K)
        std::fprintf(O, "%02x", Buf[R.data_offset + K]);
      std::fprintf(O, "\n");
    }
  }
#ifdef TWIN_CONNTRACK
  if (ct_refused)
    die("the flow table refused inserts");
#endif
#ifdef TWIN_L4LB
  if (l4lb_refused)
    die("the connection table refused inserts");
#endif
#ifdef TWIN_RATE_LIMIT
  if (rl_refused)
    die("the bucket table refused sources");
#endif
  std::fclose(F);
  std::fclose(V);
  std::fclose(O);
  return 0;
}

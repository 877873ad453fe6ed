// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-trafgen: writes a pcap of mixed, realistic traffic for the
// samples, tests and benchmarks: IPv4 TCP (SYN and ACK patterns), UDP,
// ICMP, IPv6, 802.1Q-tagged frames, IPv4 with options, ARP and a few
// truncated frames, from Zipf-distributed flows, with valid checksums.
// The same seed gives the same bytes on every machine (own PRNG and
// distributions, nothing implementation-defined). --tcp-options gives
// every IPv4 TCP SYN options (MSS, window scale, SACK, timestamps, NOP and
// EOL padding, an unknown kind, and 5% malformed), drawn from a PRNG of
// their own: the other bytes, and every packet without the flag, stay
// those of the same seed without it. --payload random|http writes payload
// traffic instead (issue 18: the IDS benchmark): IPv4 TCP (http: to port
// 80) and UDP frames of one size (--frame-size, default 1500 bytes), their
// payloads random bytes or HTTP requests; with --rules FILE (a pattern
// file, read by the pattern map's own parser) a fraction --match-rate of
// the payloads carries one rule's bytes at a random place and no other
// payload matches any rule (checked with the pattern map's own scan).

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Abi/Patterns.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

using namespace ebpfgpu;

namespace {

class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
  uint32_t below(uint32_t N) { return uint32_t(next() % N); }
  double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }

private:
  uint64_t State;
};

struct Flow {
  uint32_t Src, Dst;
  uint16_t SrcPort, DstPort;
  uint8_t Proto; // 6 or 17
};

class Builder {
public:
  std::vector<uint8_t> B;
  void u8(uint8_t V) { B.push_back(V); }
  void be16(uint16_t V) { u8(uint8_t(V >> 8)), u8(uint8_t(V)); }
  void be32(uint32_t V) { be16(uint16_t(V >> 16)), be16(uint16_t(V)); }
  void bytes(const uint8_t *P, size_t N) { B.insert(B.end(), P, P + N); }
  void put16(size_t At, uint16_t V) { B[At] = uint8_t(V >> 8), B[At + 1] = uint8_t(V); }
};

uint16_t checksum(const uint8_t *P, size_t N, uint32_t Sum = 0) {
  for (size_t I = 0; I + 1 < N; I += 2)
    Sum += uint32_t(P[I]) << 8 | P[I + 1];
  if (N & 1)
    Sum += uint32_t(P[N - 1]) << 8;
  while (Sum >> 16)
    Sum = (Sum & 0xffff) + (Sum >> 16);
  return uint16_t(~Sum);
}

const uint8_t DstMac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
const uint8_t SrcMac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};

void ethernet(Builder &P, uint16_t Type, bool Vlan, uint16_t VlanId) {
  P.bytes(DstMac, 6);
  P.bytes(SrcMac, 6);
  if (Vlan) {
    P.be16(0x8100);
    P.be16(VlanId);
  }
  P.be16(Type);
}

/// TCP options of a SYN (a multiple of 4 bytes, at most 40), as stacks
/// send them, plus some a middlebox must refuse.
std::vector<uint8_t> synOptions(Rng &R) {
  std::vector<uint8_t> O;
  auto Mss = [&](uint16_t V) { O.insert(O.end(), {2, 4, uint8_t(V >> 8), uint8_t(V)}); };
  auto Ts = [&] {
    uint32_t V = uint32_t(R.next());
    O.insert(O.end(), {8, 10, uint8_t(V >> 24), uint8_t(V >> 16), uint8_t(V >> 8), uint8_t(V), 0, 0, 0, 0});
  };
  uint32_t Kind = R.below(100);
  if (Kind < 40) { // Linux: MSS, SACK permitted, timestamps, NOP, window scale
    Mss(1460);
    O.insert(O.end(), {4, 2});
    Ts();
    O.insert(O.end(), {1, 3, 3, 7});
  } else if (Kind < 60) { // Windows: MSS, NOP, window scale, NOP, NOP, SACK permitted
    Mss(1460);
    O.insert(O.end(), {1, 3, 3, 8, 1, 1, 4, 2});
  } else if (Kind < 70) { // jumbo frames
    Mss(8960);
  } else if (Kind < 80) { // below any clamp: a tunnel's path
    Mss(1380);
    O.insert(O.end(), {1, 1, 4, 2});
  } else if (Kind < 88) { // MSS at an odd offset: NOP, MSS, window scale
    O.push_back(1);
    Mss(uint16_t(1400 + R.below(200)));
    O.insert(O.end(), {3, 3, 6});
  } else if (Kind < 95) { // an unknown kind (experimental, RFC 6994), then EOL padding
    Mss(1440);
    O.insert(O.end(), {254, 6, 0x12, 0x34, uint8_t(R.next()), uint8_t(R.next()), 0, 0});
  } else { // malformed
    Mss(1460);
    switch (R.below(4)) {
    case 0: O.insert(O.end(), {8, 40, 0, 0}); break; // past the header's end
    case 1: O.insert(O.end(), {30, 0, 1, 1}); break; // a length under 2
    case 2: O.insert(O.end(), {3, 4, 7, 1}); break;  // window scale of the wrong length
    default: O[1] = 5, O.insert(O.end(), {1, 1, 1, 0}); // MSS of the wrong length
    }
  }
  while (O.size() % 4)
    O.push_back(0); // EOL
  return O;
}

/// L4 header + payload for TCP or UDP; checksum filled by the caller.
/// `Given`: the payload's bytes (else random ones from `R`).
void transport(Builder &P, const Flow &F, uint8_t TcpFlags, size_t Payload, Rng &R,
               const std::vector<uint8_t> &TcpOptions = {}, const uint8_t *Given = nullptr) {
  if (F.Proto == 6) {
    P.be16(F.SrcPort);
    P.be16(F.DstPort);
    P.be32(uint32_t(R.next()));
    P.be32(TcpFlags & 0x10 ? uint32_t(R.next()) : 0);
    P.u8(uint8_t((5 + TcpOptions.size() / 4) << 4));
    P.u8(TcpFlags);
    P.be16(65535);
    P.be16(0); // checksum
    P.be16(0);
    P.bytes(TcpOptions.data(), TcpOptions.size());
  } else {
    P.be16(F.SrcPort);
    P.be16(F.DstPort);
    P.be16(uint16_t(8 + Payload));
    P.be16(0);
  }
  if (Given)
    P.bytes(Given, Payload);
  else
    for (size_t I = 0; I < Payload; ++I)
      P.u8(uint8_t(R.next()));
}

void ipv4(Builder &P, const Flow &F, uint8_t Proto, unsigned OptWords, uint8_t TcpFlags,
          size_t Payload, Rng &R, Rng *OptionsR, const uint8_t *Given = nullptr) {
  size_t Ip = P.B.size();
  P.u8(uint8_t(0x40 | (5 + OptWords)));
  P.u8(0);
  P.be16(0); // total length, below
  P.be16(uint16_t(R.next()));
  P.be16(0x4000);
  P.u8(64);
  P.u8(Proto);
  P.be16(0);
  P.be32(F.Src);
  P.be32(F.Dst);
  for (unsigned I = 0; I < OptWords; ++I)
    P.be32(0x01010101); // NOP options
  size_t L4 = P.B.size();
  if (Proto == 1) { // ICMP echo request
    P.u8(8);
    P.u8(0);
    P.be16(0);
    P.be16(uint16_t(R.next()));
    P.be16(uint16_t(R.next()));
    for (size_t I = 0; I < Payload; ++I)
      P.u8(uint8_t(R.next()));
    P.put16(L4 + 2, checksum(&P.B[L4], P.B.size() - L4));
  } else {
    std::vector<uint8_t> Options;
    if (OptionsR && Proto == 6 && TcpFlags == 0x02)
      Options = synOptions(*OptionsR);
    transport(P, F, TcpFlags, Payload, R, Options, Given);
    size_t Len = P.B.size() - L4;
    uint32_t Pseudo = (F.Src >> 16) + (F.Src & 0xffff) + (F.Dst >> 16) + (F.Dst & 0xffff) +
                      Proto + uint32_t(Len);
    uint16_t C = checksum(&P.B[L4], Len, Pseudo);
    P.put16(L4 + (Proto == 6 ? 16 : 6), Proto == 17 && C == 0 ? 0xffff : C);
  }
  P.put16(Ip + 2, uint16_t(P.B.size() - Ip));
  P.put16(Ip + 10, checksum(&P.B[Ip], (5 + OptWords) * 4));
}

void ipv6(Builder &P, const Flow &F, size_t Payload, Rng &R) {
  size_t Ip = P.B.size();
  P.be32(0x60000000);
  P.be16(0);
  P.u8(F.Proto);
  P.u8(64);
  for (uint32_t A : {0x20010db8u, 0u, 0u, F.Src, 0x20010db8u, 0u, 0u, F.Dst})
    P.be32(A);
  size_t L4 = P.B.size();
  transport(P, F, 0x10, Payload, R);
  P.put16(Ip + 4, uint16_t(P.B.size() - L4));
}

/// `N` bytes of an HTTP/1.1 request as clients send them: a method, a path,
/// common headers, then a cookie of random characters that fills the rest
/// (the text cut at N bytes when the headers alone are longer).
std::vector<uint8_t> httpPayload(size_t N, Rng &R) {
  static const char *const Methods[] = {"GET", "GET", "GET", "POST", "HEAD"};
  static const char *const Dirs[] = {"/", "/api/v1/", "/static/js/", "/images/", "/search/", "/blog/"};
  static const char *const Words[] = {"index", "items", "app", "logo", "results", "post",
                                      "cart", "view", "home", "news", "list", "page"};
  static const char *const Agents[] = {
      "Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0",
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
      "Chrome/131.0.0.0 Safari/537.36",
      "curl/8.5.0"};
  static const char Alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  auto Token = [&](size_t Len) {
    std::string T;
    for (size_t I = 0; I < Len; ++I)
      T += Alnum[R.below(sizeof(Alnum) - 1)];
    return T;
  };
  std::string Head = std::string(Methods[R.below(5)]) + " " + Dirs[R.below(6)] +
                     Words[R.below(12)] + std::to_string(R.below(10000)) + ".html?id=" +
                     Token(8) + " HTTP/1.1\r\nHost: www." + Words[R.below(12)] +
                     std::to_string(R.below(100)) + ".example\r\nUser-Agent: " + Agents[R.below(3)] +
                     "\r\nAccept: */*\r\nAccept-Encoding: gzip, deflate\r\nConnection: keep-alive\r\n"
                     "Cookie: session=";
  const std::string Tail = "\r\n\r\n";
  if (Head.size() + Tail.size() < N)
    Head += Token(N - Head.size() - Tail.size()) + Tail;
  Head.resize(N, ' ');
  return std::vector<uint8_t>(Head.begin(), Head.end());
}

/// Payload traffic (--payload): its payloads and, with --rules, which
/// carry a rule's bytes.
struct PayloadMode {
  bool Http = false;
  size_t FrameSize = 1500;
  double MatchRate = 0;
  std::string RulesPath;
  std::vector<abi::PatternRule> Rules;
  std::vector<uint8_t> Automaton; ///< the pattern map's bytes of Rules
  ebpfgpu_map Map{};              ///< a host pattern map over Automaton
  uint64_t Matched = 0;

  /// The rules read and compiled; "" or why not.
  std::string loadRules() {
    auto Text = readFileBytes(RulesPath);
    if (!Text)
      return Text.error().message();
    auto Parsed = abi::parsePatternText(std::string(Text->begin(), Text->end()), RulesPath);
    if (!Parsed)
      return Parsed.error().message();
    Rules = std::move(*Parsed);
    // It embeds a rule's bytes: a regex has none to copy.
    for (const abi::PatternRule &R : Rules)
      if (R.IsRegex)
        return RulesPath + ":" + std::to_string(R.Line) +
               ": a regex rule (--rules embeds literal rules' bytes only)";
    auto Bytes = abi::compilePatterns(Rules, RulesPath);
    if (!Bytes)
      return Bytes.error().message();
    Automaton = std::move(*Bytes);
    Map.type = EBPFGPU_MAP_PATTERNS;
    Map.max_entries = uint32_t(Automaton.size());
    Map.values = reinterpret_cast<uint64_t>(Automaton.data());
    return "";
  }

  /// Payload bytes of `N` for one packet; "" or why none can be made.
  std::string make(size_t N, Rng &R, std::vector<uint8_t> &Out) {
    auto Fill = [&] {
      if (Http) {
        Out = httpPayload(N, R);
      } else {
        Out.resize(N);
        for (uint8_t &B : Out)
          B = uint8_t(R.next());
      }
    };
    if (Rules.empty()) {
      Fill();
      return "";
    }
    if (R.unit() < MatchRate) {
      // A rule that fits, drawn uniformly, at a uniform position.
      Fill();
      for (int Try = 0; Try < 64; ++Try) {
        const abi::PatternRule &Rule = Rules[R.below(uint32_t(Rules.size()))];
        if (Rule.Bytes.size() > N)
          continue;
        size_t At = R.below(uint32_t(N - Rule.Bytes.size() + 1));
        std::copy(Rule.Bytes.begin(), Rule.Bytes.end(), Out.begin() + At);
        ++Matched;
        return "";
      }
      return RulesPath + ": 64 rules drawn in a row are longer than a payload of " +
             std::to_string(N) + " bytes (--frame-size)";
    }
    // No rule may match the others: new random parts until none does.
    int64_t Id = 0;
    for (int Try = 0; Try < 16; ++Try) {
      Fill();
      Id = abi::hostPatternScan(Map, Out.data(), Out.size());
      if (Id < 0)
        return "";
    }
    return RulesPath + ": rule " + std::to_string(Id) + " matches 16 " +
           (Http ? "HTTP requests" : "random payloads") + " in a row (" +
           (Http ? "the requests' own text: drop the rule or use --payload random" : "too short a rule") +
           ")";
  }
};

int usage(const char *Msg) {
  if (Msg)
    std::fprintf(stderr, "ebpf-gpu-trafgen: error: %s\n", Msg);
  std::fprintf(stderr,
               "usage: ebpf-gpu-trafgen -o OUT.pcap [--count N] [--seed S] [--flows F]\n"
               "  --count N   packets to write (default 1000)\n"
               "  --seed S    PRNG seed (default 1); same seed, same bytes\n"
               "  --flows F   distinct flows, Zipf-distributed (default 1024)\n"
               "  --tcp-options  IPv4 TCP SYNs carry options (5%% of them malformed)\n"
               "  --payload random|http  IPv4 TCP/UDP frames of one size with random or\n"
               "              HTTP-request payloads (http: TCP to port 80)\n"
               "  --frame-size N  with --payload: every frame's bytes, 60 to 1514 (default 1500)\n"
               "  --rules FILE    with --payload: a pattern file (docs/KFUNCS.md); no payload\n"
               "              matches a rule but those --match-rate chooses\n"
               "  --match-rate R  with --rules: the fraction of payloads, 0 to 1 (default 0),\n"
               "              that carry one rule's bytes at a random place\n");
  return 2;
}

/// The command line: what to write and how.
struct Options {
  std::string Out;
  uint64_t Count = 1000, Seed = 1, NumFlows = 1024;
  bool TcpOptions = false;
  std::string Payload; ///< "", "random" or "http"
  PayloadMode PM;
};

/// Reads the command line into `O` (and the --rules file); an exit status
/// where the run ends here (a refused argument, --help).
std::optional<int> parseArgs(int argc, char **argv, Options &O) {
  PayloadMode &PM = O.PM;
  bool FrameSizeGiven = false, MatchRateGiven = false;
  for (int I = 1; I < argc; ++I) {
    std::string A = argv[I];
    auto Num = [&](uint64_t &V) {
      if (I + 1 >= argc)
        return false;
      char *End;
      V = std::strtoull(argv[++I], &End, 0);
      return *End == 0;
    };
    if (A == "-o" && I + 1 < argc)
      O.Out = argv[++I];
    else if (A == "--count") {
      if (!Num(O.Count) || O.Count == 0 || O.Count > 100000000)
        return usage("--count needs a number from 1 to 100000000");
    } else if (A == "--seed") {
      if (!Num(O.Seed))
        return usage("--seed needs a number");
    } else if (A == "--flows") {
      if (!Num(O.NumFlows) || O.NumFlows == 0 || O.NumFlows > 1000000)
        return usage("--flows needs a number from 1 to 1000000");
    } else if (A == "--tcp-options") {
      O.TcpOptions = true;
    } else if (A == "--payload") {
      if (I + 1 >= argc || (std::string(argv[I + 1]) != "random" && std::string(argv[I + 1]) != "http"))
        return usage("--payload needs random or http");
      O.Payload = argv[++I];
      PM.Http = O.Payload == "http";
    } else if (A == "--frame-size") {
      uint64_t V = 0;
      if (!Num(V) || V < 60 || V > 1514)
        return usage("--frame-size needs a number from 60 to 1514");
      PM.FrameSize = size_t(V);
      FrameSizeGiven = true;
    } else if (A == "--rules") {
      if (I + 1 >= argc)
        return usage("--rules needs a pattern file");
      PM.RulesPath = argv[++I];
    } else if (A == "--match-rate") {
      char *End = nullptr;
      if (I + 1 < argc)
        PM.MatchRate = std::strtod(argv[++I], &End);
      if (!End || *End || End == argv[I] || !(PM.MatchRate >= 0 && PM.MatchRate <= 1))
        return usage("--match-rate needs a number from 0 to 1");
      MatchRateGiven = true;
    } else if (A == "-h" || A == "--help") {
      usage(nullptr);
      return 0;
    } else
      return usage(("unknown argument '" + A + "'").c_str());
  }
  if (O.Out.empty())
    return usage("no output file (-o)");
  if (O.Payload.empty() && (FrameSizeGiven || !PM.RulesPath.empty()))
    return usage(FrameSizeGiven ? "--frame-size needs --payload" : "--rules needs --payload");
  if (MatchRateGiven && PM.RulesPath.empty())
    return usage("--match-rate needs --rules");
  if (!O.Payload.empty() && O.TcpOptions)
    return usage("--tcp-options and --payload do not go together (payload traffic has no SYNs)");
  if (!PM.RulesPath.empty())
    if (std::string Why = PM.loadRules(); !Why.empty()) {
      std::fprintf(stderr, "ebpf-gpu-trafgen: error: %s\n", Why.c_str());
      return 1;
    }
  return std::nullopt;
}

/// `N` flows drawn from `R`: 3 in 10 from inside 10.0.0.0/8, 6 in 10 TCP,
/// 7 in 10 to a common port of their protocol.
std::vector<Flow> makeFlows(Rng &R, uint64_t N) {
  std::vector<Flow> Flows(N);
  for (Flow &F : Flows) {
    bool Inside = R.below(10) < 3;
    F.Src = Inside ? (0x0a000000u | R.below(1u << 24)) : (0x2d000000u + R.below(0x80000000u));
    F.Dst = 0xc0a80000u | R.below(65536);
    static const uint16_t TcpPorts[] = {80, 443, 22, 8080, 25};
    static const uint16_t UdpPorts[] = {53, 123, 4789, 5353};
    F.Proto = R.below(10) < 6 ? 6 : 17;
    F.SrcPort = uint16_t(1024 + R.below(64000));
    bool Common = R.below(10) < 7;
    F.DstPort = Common ? (F.Proto == 6 ? TcpPorts[R.below(5)] : UdpPorts[R.below(4)])
                       : uint16_t(1 + R.below(65535));
  }
  return Flows;
}

/// Zipf(1.1) over `N` flows, as a cumulative distribution: a few heavy
/// hitters, a long tail.
std::vector<double> zipfCdf(uint64_t N) {
  std::vector<double> Cdf(N);
  double Sum = 0;
  for (uint64_t K = 0; K < N; ++K)
    Cdf[K] = (Sum += 1.0 / std::pow(double(K + 1), 1.1));
  for (double &C : Cdf)
    C /= Sum;
  return Cdf;
}

/// One frame of the mixed traffic (without --payload) of flow `F` into `P`:
/// IPv4 TCP/UDP, ICMP, IPv6, VLAN-tagged, IPv4 with options, ARP and
/// truncated frames, mostly of minimum size.
void mixedFrame(Builder &P, const Flow &F, Rng &R, Rng *OptionsR) {
  uint32_t Kind = R.below(100);
  // Mostly minimum-size frames, some mid-size, some full-size.
  uint32_t SizeClass = R.below(10);
  size_t Payload = SizeClass < 6 ? R.below(8) : SizeClass < 9 ? 100 + R.below(400) : 1400;
  uint8_t Flags = R.below(4) == 0 ? 0x02 : 0x10; // SYN or ACK
  if (Kind < 62) {
    ethernet(P, 0x0800, false, 0);
    ipv4(P, F, F.Proto, 0, Flags, Payload, R, OptionsR);
  } else if (Kind < 72) {
    Flow Icmp = F;
    ethernet(P, 0x0800, false, 0);
    ipv4(P, Icmp, 1, 0, 0, Payload, R, OptionsR);
  } else if (Kind < 82) {
    ethernet(P, 0x86dd, false, 0);
    ipv6(P, F, Payload, R);
  } else if (Kind < 90) {
    ethernet(P, 0x0800, true, uint16_t(1 + R.below(4094)));
    ipv4(P, F, F.Proto, 0, Flags, Payload, R, OptionsR);
  } else if (Kind < 95) {
    ethernet(P, 0x0800, false, 0);
    ipv4(P, F, F.Proto, 1 + R.below(3), Flags, Payload, R, OptionsR);
  } else if (Kind < 98) {
    ethernet(P, 0x0806, false, 0);
    for (int I = 0; I < 28; ++I)
      P.u8(uint8_t(R.next()));
  } else {
    // Truncated: the Ethernet type promises IPv4, the frame ends early.
    ethernet(P, 0x0800, false, 0);
    for (uint32_t I = 0, E = R.below(19); I < E; ++I)
      P.u8(uint8_t(R.next()));
  }
  if (Kind < 98)
    while (P.B.size() < 60) // Ethernet minimum without FCS
      P.u8(0);
}

} // namespace

int main(int argc, char **argv) {
  Options O;
  if (std::optional<int> Exit = parseArgs(argc, argv, O))
    return *Exit;
  PayloadMode &PM = O.PM;

  Rng R(O.Seed);
  Rng OptionsRng(O.Seed ^ 0x7463706f7074ull); // "tcpopt": its own stream
  Rng *OptionsR = O.TcpOptions ? &OptionsRng : nullptr;
  std::vector<Flow> Flows = makeFlows(R, O.NumFlows);
  std::vector<double> Cdf = zipfCdf(O.NumFlows);
  auto NextFlow = [&] {
    return Flows[size_t(std::lower_bound(Cdf.begin(), Cdf.end(), R.unit()) - Cdf.begin())];
  };

  runtime::PacketBatch Batch(1522);
  uint64_t TimeNs = 1700000000ull * 1000000000ull;
  // Payload traffic: its own PRNG for the payloads, so that the headers
  // stay the same whatever the payloads are.
  Rng PayloadR(O.Seed ^ 0x7061796c6f6164ull); // "payload"
  std::vector<uint8_t> Bytes;
  for (uint64_t N = 0; !O.Payload.empty() && N < O.Count; ++N) {
    Flow F = NextFlow();
    if (PM.Http)
      F.Proto = 6, F.DstPort = 80;
    size_t Len = PM.FrameSize - 14 - 20 - (F.Proto == 6 ? 20 : 8);
    if (std::string Why = PM.make(Len, PayloadR, Bytes); !Why.empty()) {
      std::fprintf(stderr, "ebpf-gpu-trafgen: error: %s\n", Why.c_str());
      return 1;
    }
    Builder P;
    ethernet(P, 0x0800, false, 0);
    ipv4(P, F, F.Proto, 0, 0x18, Len, R, nullptr, Bytes.data()); // PSH|ACK
    TimeNs += 1000 + R.below(1000);
    Batch.add(P.B.data(), uint32_t(P.B.size()), TimeNs);
  }
  for (uint64_t N = 0; O.Payload.empty() && N < O.Count; ++N) {
    Builder P;
    mixedFrame(P, NextFlow(), R, OptionsR);
    TimeNs += 1000 + R.below(1000);
    Batch.add(P.B.data(), uint32_t(P.B.size()), TimeNs);
  }
  // Every packet goes out: mark them all XDP_PASS.
  for (size_t I = 0; I < Batch.size(); ++I) {
    platform::XdpRuntimeContext Ctx;
    Batch.prepareContext(I, Ctx);
    Batch.finish(I, Ctx, uint64_t(runtime::XdpAction::Pass));
  }
  if (MaybeError E = runtime::writePcap(O.Out, Batch, 1u << unsigned(runtime::XdpAction::Pass))) {
    std::fprintf(stderr, "ebpf-gpu-trafgen: error: %s\n", E->message().c_str());
    return 1;
  }
  if (!PM.RulesPath.empty())
    std::printf("%llu packets, %llu carry a rule of %zu (--match-rate %g)\n",
                (unsigned long long)O.Count, (unsigned long long)PM.Matched, PM.Rules.size(),
                PM.MatchRate);
  return 0;
}

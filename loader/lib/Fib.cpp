// SPDX-License-Identifier: Apache-2.0
//
// Reading FIB files (links, routes, neighbours in ip(8)'s shape) into the
// block bpf_fib_lookup reads, and printing a block back as such a file.

#include "ebpf-gpu/Loader/Fib.h"
#include "ebpf-gpu/Support/ReadFile.h"

#include "ebpf-gpu/Platform/FibAbi.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace ebpfgpu::loader {

static_assert(sizeof(ebpfgpu_fib) == 32 && sizeof(ebpfgpu_fib_link) == 16 &&
              sizeof(ebpfgpu_fib_route) == 56 && sizeof(ebpfgpu_fib_neigh) == 32);

namespace {

struct Address {
  uint8_t Family = 0;
  uint8_t Bytes[16] = {};
};

std::optional<Address> parseAddress(const std::string &Text) {
  Address A;
  if (inet_pton(AF_INET, Text.c_str(), A.Bytes) == 1)
    A.Family = EBPFGPU_AF_INET;
  else if (inet_pton(AF_INET6, Text.c_str(), A.Bytes) == 1)
    A.Family = EBPFGPU_AF_INET6;
  else
    return std::nullopt;
  return A;
}

std::optional<uint32_t> parseNumber(const std::string &Text, uint64_t Max) {
  if (Text.empty() || Text.size() > 10 ||
      !std::all_of(Text.begin(), Text.end(), [](char C) { return C >= '0' && C <= '9'; }))
    return std::nullopt;
  uint64_t V = std::stoull(Text);
  if (V > Max)
    return std::nullopt;
  return uint32_t(V);
}

std::optional<std::array<uint8_t, 6>> parseMac(const std::string &Text) {
  std::array<uint8_t, 6> Mac{};
  unsigned V[6];
  char End;
  if (std::sscanf(Text.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &V[0], &V[1], &V[2], &V[3], &V[4],
                  &V[5], &End) != 6)
    return std::nullopt;
  for (int I = 0; I < 6; ++I)
    Mac[I] = uint8_t(V[I]);
  return Mac;
}

const std::map<std::string, uint8_t> &routeTypes() {
  static const std::map<std::string, uint8_t> Types = {
      {"unicast", EBPFGPU_RTN_UNICAST},         {"local", EBPFGPU_RTN_LOCAL},
      {"broadcast", EBPFGPU_RTN_BROADCAST},     {"anycast", EBPFGPU_RTN_ANYCAST},
      {"multicast", EBPFGPU_RTN_MULTICAST},     {"blackhole", EBPFGPU_RTN_BLACKHOLE},
      {"unreachable", EBPFGPU_RTN_UNREACHABLE}, {"prohibit", EBPFGPU_RTN_PROHIBIT},
      {"throw", EBPFGPU_RTN_THROW}};
  return Types;
}

std::string typeName(uint8_t Type) {
  for (const auto &[Name, T] : routeTypes())
    if (T == Type)
      return Name;
  return "type" + std::to_string(Type);
}

std::string tableName(uint32_t Table) {
  switch (Table) {
  case EBPFGPU_RT_TABLE_MAIN:
    return "main";
  case EBPFGPU_RT_TABLE_LOCAL:
    return "local";
  case EBPFGPU_RT_TABLE_DEFAULT:
    return "default";
  }
  return std::to_string(Table);
}

std::string addressText(uint8_t Family, const uint8_t *Bytes) {
  char Buf[INET6_ADDRSTRLEN];
  inet_ntop(Family == EBPFGPU_AF_INET ? AF_INET : AF_INET6, Bytes, Buf, sizeof(Buf));
  return Buf;
}

std::string macText(const uint8_t *Mac) {
  char Buf[18];
  std::snprintf(Buf, sizeof(Buf), "%02x:%02x:%02x:%02x:%02x:%02x", Mac[0], Mac[1], Mac[2], Mac[3],
                Mac[4], Mac[5]);
  return Buf;
}

/// One line's words after its kind, consumed in order.
class Words {
public:
  explicit Words(std::vector<std::string> W) : W(std::move(W)) {}
  bool done() const { return At == W.size(); }
  const std::string &peek() const { return W[At]; }
  std::string next() { return At < W.size() ? W[At++] : std::string(); }
  bool hasNext() const { return At < W.size(); }

private:
  std::vector<std::string> W;
  size_t At = 0;
};

class Parser {
public:
  explicit Parser(std::string Name) : Name(std::move(Name)) {}

  MaybeError line(const std::string &Text, unsigned LineNo) {
    std::string Body = Text.substr(0, Text.find('#'));
    std::istringstream In(Body);
    std::vector<std::string> W;
    for (std::string X; In >> X;)
      W.push_back(X);
    if (W.empty())
      return std::nullopt;
    Line = LineNo;
    std::string Kind = W.front();
    Words Rest(std::vector<std::string>(W.begin() + 1, W.end()));
    if (Kind == "link")
      return link(Rest);
    if (Kind == "route")
      return route(Rest);
    if (Kind == "neigh")
      return neigh(Rest);
    return fail("unknown line kind '" + Kind + "' (link, route or neigh)");
  }

  Expected<std::vector<uint8_t>> finish() {
    for (const Pending &P : Uses)
      if (!Links.count(P.Ifindex))
        return *failAt(P.Line, "no link " + std::to_string(P.Ifindex) +
                                   " (declare it with a 'link' line)");
    std::stable_sort(Routes.begin(), Routes.end(), [](const auto &A, const auto &B) {
      if (A.family != B.family)
        return A.family < B.family;
      if (A.prefixlen != B.prefixlen)
        return A.prefixlen > B.prefixlen;
      return A.metric < B.metric;
    });
    std::sort(Neighs.begin(), Neighs.end(), [](const auto &A, const auto &B) {
      if (A.family != B.family)
        return A.family < B.family;
      if (A.ifindex != B.ifindex)
        return A.ifindex < B.ifindex;
      return std::memcmp(A.addr, B.addr, 16) < 0;
    });
    for (size_t I = 1; I < Neighs.size(); ++I)
      if (Neighs[I - 1].family == Neighs[I].family && Neighs[I - 1].ifindex == Neighs[I].ifindex &&
          !std::memcmp(Neighs[I - 1].addr, Neighs[I].addr, 16))
        return Error(Name + ": neighbour " + addressText(Neighs[I].family, Neighs[I].addr) +
                     " on link " + std::to_string(Neighs[I].ifindex) + " is given twice");
    ebpfgpu_fib H{};
    H.magic = EBPFGPU_FIB_MAGIC;
    H.nlinks = uint32_t(Links.size());
    H.nroutes = uint32_t(Routes.size());
    H.nneighs = uint32_t(Neighs.size());
    H.links = sizeof(H);
    H.routes = H.links + H.nlinks * uint32_t(sizeof(ebpfgpu_fib_link));
    H.neighs = H.routes + H.nroutes * uint32_t(sizeof(ebpfgpu_fib_route));
    std::vector<uint8_t> Block(H.neighs + H.nneighs * sizeof(ebpfgpu_fib_neigh));
    std::memcpy(Block.data(), &H, sizeof(H));
    size_t At = H.links;
    for (const auto &[Ifindex, L] : Links) { // std::map: by ifindex
      std::memcpy(Block.data() + At, &L, sizeof(L));
      At += sizeof(L);
    }
    if (!Routes.empty())
      std::memcpy(Block.data() + H.routes, Routes.data(), Routes.size() * sizeof(Routes[0]));
    if (!Neighs.empty())
      std::memcpy(Block.data() + H.neighs, Neighs.data(), Neighs.size() * sizeof(Neighs[0]));
    return Block;
  }

private:
  struct Pending {
    uint32_t Ifindex;
    unsigned Line;
  };

  MaybeError fail(const std::string &Why) const { return failAt(Line, Why); }
  MaybeError failAt(unsigned L, const std::string &Why) const {
    return Error(Name + ":" + std::to_string(L) + ": " + Why);
  }

  MaybeError ifindex(Words &W, const std::string &What, uint32_t &Out) {
    std::string V = W.next();
    auto N = parseNumber(V, INT32_MAX);
    if (!N || *N == 0)
      return fail(What + " needs an ifindex (a number from 1), not '" + V + "'");
    Out = *N;
    return std::nullopt;
  }

  MaybeError link(Words &W) {
    ebpfgpu_fib_link L{};
    if (MaybeError E = ifindex(W, "link", L.ifindex))
      return E;
    L.mtu = 1500;
    L.forwarding = EBPFGPU_FIB_FWD4 | EBPFGPU_FIB_FWD6;
    bool HaveMac = false;
    while (!W.done()) {
      std::string Key = W.next();
      if (!W.hasNext())
        return fail("link: '" + Key + "' needs a value");
      std::string V = W.next();
      if (Key == "name") {
        continue;
      } else if (Key == "mac") {
        auto Mac = parseMac(V);
        if (!Mac)
          return fail("link: bad MAC address '" + V + "' (want 02:00:00:00:00:01)");
        std::memcpy(L.mac, Mac->data(), 6);
        HaveMac = true;
      } else if (Key == "mtu") {
        auto N = parseNumber(V, UINT32_MAX);
        if (!N || *N == 0)
          return fail("link: bad MTU '" + V + "'");
        L.mtu = *N;
      } else if (Key == "forwarding" || Key == "forwarding6") {
        if (V != "0" && V != "1")
          return fail("link: " + Key + " takes 0 or 1, not '" + V + "'");
        uint8_t Bit = Key == "forwarding" ? EBPFGPU_FIB_FWD4 : EBPFGPU_FIB_FWD6;
        L.forwarding = V == "1" ? (L.forwarding | Bit) : (L.forwarding & ~Bit);
      } else {
        return fail("link: unknown word '" + Key + "' (name, mac, mtu, forwarding, forwarding6)");
      }
    }
    if (!HaveMac)
      return fail("link " + std::to_string(L.ifindex) + " has no 'mac'");
    if (!Links.emplace(L.ifindex, L).second)
      return fail("link " + std::to_string(L.ifindex) + " is given twice");
    return std::nullopt;
  }

  MaybeError route(Words &W) {
    ebpfgpu_fib_route R{};
    R.type = EBPFGPU_RTN_UNICAST;
    R.table = EBPFGPU_RT_TABLE_MAIN;
    std::string Dst = W.next();
    // As ip(8): `route -6 default ...` is ::/0, `default` alone 0.0.0.0/0.
    bool Six = false;
    if (Dst == "-6" || Dst == "-4") {
      Six = Dst == "-6";
      Dst = W.next();
    }
    if (auto T = routeTypes().find(Dst); T != routeTypes().end()) {
      R.type = T->second;
      Dst = W.next();
    }
    if (Dst.empty())
      return fail("route: no destination");
    std::string Prefix = Dst == "default" ? (Six ? "::/0" : "0.0.0.0/0") : Dst;
    size_t Slash = Prefix.find('/');
    auto A = parseAddress(Prefix.substr(0, Slash));
    if (!A)
      return fail("route: bad destination '" + Dst + "' (an address, ADDR/LEN or 'default')");
    uint32_t Bits = A->Family == EBPFGPU_AF_INET ? 32 : 128;
    uint32_t Len = Bits;
    if (Slash != std::string::npos) {
      auto N = parseNumber(Prefix.substr(Slash + 1), Bits);
      if (!N)
        return fail("route: bad prefix length in '" + Dst + "'");
      Len = *N;
    }
    if (Six && A->Family != EBPFGPU_AF_INET6)
      return fail("route -6: '" + Dst + "' is not an IPv6 destination");
    R.family = A->Family;
    R.prefixlen = uint8_t(Len);
    for (uint32_t I = 0; I < 16; ++I) {
      uint32_t Keep = Len > I * 8 ? std::min<uint32_t>(8, Len - I * 8) : 0;
      R.prefix[I] = A->Bytes[I] & uint8_t(0xff00u >> Keep);
    }
    R.metric = A->Family == EBPFGPU_AF_INET6 ? 1024 : 0; // ip(8)'s defaults
    bool HaveDev = false;
    while (!W.done()) {
      std::string Key = W.next();
      if (Key == "onlink")
        continue;
      if (Key == "nexthop" || Key == "nhid")
        return fail("route: multipath routes and nexthop objects are not supported");
      if (Key == "from" || Key == "tos" || Key == "dsfield" || Key == "encap")
        return fail("route: '" + Key + "' routes are not supported");
      if (!W.hasNext())
        return fail("route: '" + Key + "' needs a value");
      std::string V = W.next();
      if (Key == "via") {
        std::string Family;
        if ((V == "inet" || V == "inet6") && W.hasNext()) {
          Family = V;
          V = W.next();
        }
        auto G = parseAddress(V);
        if (!G || (Family == "inet" && G->Family != EBPFGPU_AF_INET) ||
            (Family == "inet6" && G->Family != EBPFGPU_AF_INET6))
          return fail("route: bad gateway '" + V + "'");
        if (R.family == EBPFGPU_AF_INET6 && G->Family == EBPFGPU_AF_INET)
          return fail("route: an IPv6 route cannot have an IPv4 gateway");
        R.gw_family = G->Family;
        std::memcpy(R.gw, G->Bytes, 16);
      } else if (Key == "dev") {
        Words One({V});
        if (MaybeError E = ifindex(One, "route: dev", R.ifindex))
          return E;
        HaveDev = true;
      } else if (Key == "table") {
        if (V == "main")
          R.table = EBPFGPU_RT_TABLE_MAIN;
        else if (V == "local")
          R.table = EBPFGPU_RT_TABLE_LOCAL;
        else if (V == "default")
          R.table = EBPFGPU_RT_TABLE_DEFAULT;
        else if (auto N = parseNumber(V, UINT32_MAX); N && *N)
          R.table = *N;
        else
          return fail("route: bad table '" + V + "' (a number, main, local or default)");
      } else if (Key == "metric" || Key == "priority" || Key == "preference") {
        auto N = parseNumber(V, UINT32_MAX);
        if (!N)
          return fail("route: bad metric '" + V + "'");
        R.metric = *N;
      } else if (Key == "mtu") {
        // The kernel uses a route's MTU for forwarding only when it is
        // locked (with the default net.ipv4.ip_fwd_use_pmtu = 0).
        bool Lock = V == "lock";
        if (Lock) {
          if (!W.hasNext())
            return fail("route: 'mtu lock' needs a value");
          V = W.next();
        }
        auto N = parseNumber(V, UINT32_MAX);
        if (!N || *N == 0)
          return fail("route: bad MTU '" + V + "'");
        if (Lock)
          R.mtu = *N;
      } else if (Key == "proto" || Key == "scope" || Key == "src" || Key == "pref" ||
                 Key == "realm") {
        continue; // no bearing on the lookup
      } else {
        return fail("route: unknown word '" + Key + "'");
      }
    }
    bool Reject = R.type == EBPFGPU_RTN_BLACKHOLE || R.type == EBPFGPU_RTN_UNREACHABLE ||
                  R.type == EBPFGPU_RTN_PROHIBIT || R.type == EBPFGPU_RTN_THROW;
    if (!Reject && !HaveDev)
      return fail("route: a " + typeName(R.type) + " route needs 'dev IFINDEX'");
    if (Reject && R.gw_family)
      return fail("route: a " + typeName(R.type) + " route has no gateway");
    if (HaveDev)
      Uses.push_back({R.ifindex, Line});
    Routes.push_back(R);
    return std::nullopt;
  }

  MaybeError neigh(Words &W) {
    ebpfgpu_fib_neigh N{};
    std::string Addr = W.next();
    auto A = parseAddress(Addr);
    if (!A)
      return fail("neigh: bad address '" + Addr + "'");
    N.family = A->Family;
    std::memcpy(N.addr, A->Bytes, 16);
    N.valid = 1;
    bool HaveDev = false, HaveMac = false;
    while (!W.done()) {
      std::string Key = W.next();
      std::string Up = Key;
      std::transform(Up.begin(), Up.end(), Up.begin(), ::toupper);
      if (Key == "nud") {
        Up = W.next();
        std::transform(Up.begin(), Up.end(), Up.begin(), ::toupper);
      }
      if (Up == "PERMANENT" || Up == "NOARP" || Up == "REACHABLE" || Up == "STALE" ||
          Up == "DELAY" || Up == "PROBE") {
        N.valid = 1;
        continue;
      }
      if (Up == "INCOMPLETE" || Up == "FAILED" || Up == "NONE") {
        N.valid = 0;
        continue;
      }
      if (Key == "router" || Key == "proxy")
        continue;
      if (!W.hasNext())
        return fail("neigh: '" + Key + "' needs a value");
      std::string V = W.next();
      if (Key == "dev") {
        Words One({V});
        if (MaybeError E = ifindex(One, "neigh: dev", N.ifindex))
          return E;
        HaveDev = true;
      } else if (Key == "lladdr") {
        auto Mac = parseMac(V);
        if (!Mac)
          return fail("neigh: bad MAC address '" + V + "'");
        std::memcpy(N.mac, Mac->data(), 6);
        HaveMac = true;
      } else {
        return fail("neigh: unknown word '" + Key + "' (dev, lladdr, nud STATE)");
      }
    }
    if (!HaveDev)
      return fail("neigh: no 'dev IFINDEX'");
    if (N.valid && !HaveMac)
      return fail("neigh: no 'lladdr MAC'");
    Uses.push_back({N.ifindex, Line});
    Neighs.push_back(N);
    return std::nullopt;
  }

  std::string Name;
  unsigned Line = 0;
  std::map<uint32_t, ebpfgpu_fib_link> Links;
  std::vector<ebpfgpu_fib_route> Routes;
  std::vector<ebpfgpu_fib_neigh> Neighs;
  std::vector<Pending> Uses;
};

} // namespace

Expected<std::vector<uint8_t>> parseFib(const std::string &Text, const std::string &Name) {
  Parser P(Name);
  std::istringstream In(Text);
  unsigned LineNo = 0;
  for (std::string L; std::getline(In, L);)
    if (MaybeError E = P.line(L, ++LineNo))
      return std::move(*E);
  return P.finish();
}

Expected<std::vector<uint8_t>> readFibFile(const std::string &Path) {
  auto Bytes = readFileBytes(Path);
  if (!Bytes)
    return Bytes.takeError();
  return parseFib(std::string(Bytes->begin(), Bytes->end()), Path);
}

std::string formatFib(const std::vector<uint8_t> &Block) {
  ebpfgpu_fib H;
  std::memcpy(&H, Block.data(), sizeof(H));
  std::string Out;
  for (uint32_t I = 0; I < H.nlinks; ++I) {
    ebpfgpu_fib_link L;
    std::memcpy(&L, Block.data() + H.links + I * sizeof(L), sizeof(L));
    Out += "link " + std::to_string(L.ifindex) + " mac " + macText(L.mac) + " mtu " +
           std::to_string(L.mtu) + " forwarding " +
           ((L.forwarding & EBPFGPU_FIB_FWD4) ? "1" : "0") +
           " forwarding6 " + ((L.forwarding & EBPFGPU_FIB_FWD6) ? "1" : "0") + "\n";
  }
  for (uint32_t I = 0; I < H.nroutes; ++I) {
    ebpfgpu_fib_route R;
    std::memcpy(&R, Block.data() + H.routes + I * sizeof(R), sizeof(R));
    Out += std::string("route ") + (R.family == EBPFGPU_AF_INET6 ? "-6 " : "") +
           typeName(R.type) + " " + addressText(R.family, R.prefix) + "/" +
           std::to_string(R.prefixlen);
    if (R.gw_family)
      Out += std::string(" via ") + (R.gw_family != R.family ? "inet6 " : "") +
             addressText(R.gw_family, R.gw);
    if (R.ifindex)
      Out += " dev " + std::to_string(R.ifindex);
    Out += " table " + tableName(R.table) + " metric " + std::to_string(R.metric);
    if (R.mtu)
      Out += " mtu lock " + std::to_string(R.mtu);
    Out += "\n";
  }
  for (uint32_t I = 0; I < H.nneighs; ++I) {
    ebpfgpu_fib_neigh N;
    std::memcpy(&N, Block.data() + H.neighs + I * sizeof(N), sizeof(N));
    Out += "neigh " + addressText(N.family, N.addr) + " dev " + std::to_string(N.ifindex);
    Out += N.valid ? " lladdr " + macText(N.mac) + " PERMANENT\n" : std::string(" FAILED\n");
  }
  return Out;
}

} // namespace ebpfgpu::loader

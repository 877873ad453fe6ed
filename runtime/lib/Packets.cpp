// SPDX-License-Identifier: Apache-2.0
//
// Packet batches, verdict counters and pcap I/O (libpcap).

#include "ebpf-gpu/Runtime/Packets.h"

#include "ebpf-gpu/Support/OutputPath.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace ebpfgpu::runtime {

const char *xdpActionName(uint64_t Code) {
  static const char *const Names[] = {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
                                      "XDP_REDIRECT"};
  return Code < NumXdpActions ? Names[Code] : "XDP_UNKNOWN";
}

std::string redirectTargetName(uint64_t Target) {
  if (!(Target & EBPFGPU_REDIRECT_BROADCAST))
    return Target & EBPFGPU_REDIRECT_CPU
               ? "cpu " + std::to_string(Target & ~uint64_t(EBPFGPU_REDIRECT_CPU))
           : Target & EBPFGPU_REDIRECT_XSK
               ? "xsk " + std::to_string(Target & ~uint64_t(EBPFGPU_REDIRECT_XSK))
               : "ifindex " + std::to_string(Target);
  std::string Ports;
  for (uint32_t I = 0; I < EBPFGPU_REDIRECT_BROADCAST_PORTS; ++I)
    if (Target & 1u << I)
      Ports += (Ports.empty() ? "" : ",") + std::to_string(I + 1);
  if (Target & EBPFGPU_REDIRECT_BROADCAST_FAR)
    Ports += Ports.empty() ? "+far" : ",+far";
  return "broadcast to " + (Ports.empty() ? std::string("none") : Ports);
}

PacketBatch::PacketBatch(uint32_t MaxLen)
    : MaxLen(MaxLen), Stride(strideFor(MaxLen)) {}

bool PacketBatch::addAt(const uint8_t *Data, uint32_t Len, uint32_t Offset, uint32_t Cap,
                        uint64_t TimestampNs) {
  if (Len > MaxLen || Offset > XdpHeadroom || Cap < Len)
    return false;
  size_t Slot = Copied++;
  if (Storage.size() < Copied * Stride)
    Storage.resize(Copied * Stride, 0);
  uint8_t *Buffer = Storage.data() + Slot * Stride;
  // The headroom of a reused stride is left as it is: the head and meta
  // adjustments zero what they expose (ebpfgpu_expose_headroom), and
  // bpf_xdp_adjust_tail what it grows into, on every back end.
  std::memcpy(Buffer + Offset, Data, Len);
  Slots.push_back(Slot);
  const uint32_t Size = Cap < Stride - Offset ? Offset + Cap : 0; // 0: the stride
  push(nullptr, Size, Offset, Len, TimestampNs);
  return true;
}

void PacketBatch::reserve(size_t N, bool Copies) {
  if (Copies && Storage.size() < N * Stride)
    Storage.resize(N * Stride, 0);
  External.reserve(N);
  Sizes.reserve(N);
  Slots.reserve(N);
  Offsets.reserve(N);
  Lengths.reserve(N);
  Verdicts.reserve(N);
  Timestamps.reserve(N);
  Redirects.reserve(N);
}

void PacketBatch::clear() {
  Copied = 0;
  External.clear();
  Sizes.clear();
  Slots.clear();
  Offsets.clear();
  Lengths.clear();
  Verdicts.clear();
  Timestamps.clear();
  Redirects.clear();
}

void PacketBatch::reset(uint32_t NewMaxLen) {
  clear();
  MaxLen = NewMaxLen;
  Stride = strideFor(NewMaxLen);
}

void PacketBatch::prepareContext(size_t I, platform::XdpRuntimeContext &Ctx) {
  uint64_t Base = reinterpret_cast<uint64_t>(buffer(I));
  initXdpContext(Ctx, Base, Base + bufferSize(I), Base + Offsets[I], Lengths[I], IngressIfindex,
                 RxQueueIndex, RxMeta ? Base : 0, uint32_t(I));
}

void PacketBatch::finish(size_t I, const platform::XdpRuntimeContext &Ctx, uint64_t Verdict) {
  uint64_t Base = reinterpret_cast<uint64_t>(buffer(I));
  Offsets[I] = uint32_t(Ctx.data - Base);
  Lengths[I] = uint32_t(Ctx.data_end - Ctx.data);
  Verdicts[I] = Verdict;
  Redirects[I] = Ctx.redirect_target;
}

bool PacketBatch::setOutcome(size_t I, uint32_t Offset, uint32_t Len, uint64_t Verdict,
                             uint64_t Redirect) {
  if (size_t(Offset) + Len > bufferSize(I))
    return false;
  Offsets[I] = Offset;
  Lengths[I] = Len;
  Verdicts[I] = Verdict;
  Redirects[I] = Redirect;
  return true;
}

bool PacketBatch::setResult(size_t I, const uint8_t *Data, uint32_t Len, uint64_t Verdict) {
  if (size_t(XdpHeadroom) + Len > bufferSize(I))
    return false;
  std::memcpy(buffer(I) + XdpHeadroom, Data, Len);
  Offsets[I] = XdpHeadroom;
  Lengths[I] = Len;
  Verdicts[I] = Verdict;
  return true;
}

void ActionStats::count(uint64_t Verdict, uint32_t Len) {
  if (Verdict >= NumXdpActions) {
    ++Invalid;
    Verdict = uint64_t(XdpAction::Aborted);
  }
  ++Packets[Verdict];
  Bytes[Verdict] += Len;
}

uint64_t ActionStats::total() const {
  uint64_t T = 0;
  for (uint64_t P : Packets)
    T += P;
  return T;
}

// pcap files are read and written here rather than through libpcap so that
// the runtime carries no shared-library dependency to GPU machines.
namespace {

constexpr uint32_t MagicMicro = 0xa1b2c3d4, MagicNano = 0xa1b23c4d;
/// A pcapng file's first block (Section Header Block), its type word.
constexpr uint32_t PcapngBlock = 0x0a0d0d0a;
constexpr uint32_t LinkEthernet = 1;

uint32_t swap32(uint32_t V) { return __builtin_bswap32(V); }

} // namespace

Expected<PacketBatch> readPcap(const std::string &Path) {
  std::FILE *F = std::fopen(Path.c_str(), "rb");
  if (!F)
    return Error(Path + ": " + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> Closer(F, std::fclose);
  uint32_t Hdr[6];
  if (std::fread(Hdr, sizeof(Hdr), 1, F) != 1) {
    if (std::ferror(F))
      return Error(Path + ": " + std::strerror(errno));
    return Error(Path + ": not a pcap file (too short)");
  }
  bool Swap = false, Nano = false;
  if (Hdr[0] == MagicMicro || Hdr[0] == MagicNano) {
    Nano = Hdr[0] == MagicNano;
  } else if (swap32(Hdr[0]) == MagicMicro || swap32(Hdr[0]) == MagicNano) {
    Swap = true;
    Nano = swap32(Hdr[0]) == MagicNano;
  } else if (Hdr[0] == PcapngBlock) {
    return Error(Path + ": a pcapng capture: only pcap is read (convert it with "
                        "`editcap -F pcap IN OUT` or `tcpdump -r IN -w OUT`)");
  } else {
    return Error(Path + ": unknown file format (not a pcap capture)");
  }
  uint32_t Link = Swap ? swap32(Hdr[5]) : Hdr[5];
  if ((Link & 0xffff) != LinkEthernet)
    return Error(Path + ": not an Ethernet capture (link type " + std::to_string(Link) + ")");
  struct Packet {
    std::vector<uint8_t> Bytes;
    uint64_t Ts;
  };
  std::vector<Packet> Packets;
  uint32_t MaxLen = 64;
  uint32_t Rec[4];
  for (;;) {
    size_t Got = std::fread(Rec, 1, sizeof(Rec), F);
    if (Got == 0)
      break;
    if (Got < sizeof(Rec)) {
      if (std::ferror(F))
        break; // said below
      return Error(Path + ": the record of packet " + std::to_string(Packets.size() + 1) +
                   " is cut off by the end of the file (" + std::to_string(Got) + " of " +
                   std::to_string(sizeof(Rec)) + " header bytes)");
    }
    for (uint32_t &V : Rec)
      V = Swap ? swap32(V) : V;
    uint32_t CapLen = Rec[2], Len = Rec[3];
    size_t N = Packets.size() + 1;
    if (CapLen != Len)
      return Error(Path + ": packet " + std::to_string(N) + " was truncated by the capture (" +
                   std::to_string(CapLen) + " of " + std::to_string(Len) + " bytes)");
    if (CapLen > 262144)
      return Error(Path + ": packet " + std::to_string(N) + " is implausibly large");
    Packet P;
    P.Bytes.resize(CapLen);
    if (CapLen && std::fread(P.Bytes.data(), CapLen, 1, F) != 1)
      return Error(Path + ": packet " + std::to_string(N) + " is cut off by the end of the file");
    P.Ts = uint64_t(Rec[0]) * 1000000000ull + uint64_t(Rec[1]) * (Nano ? 1 : 1000);
    MaxLen = std::max(MaxLen, CapLen);
    Packets.push_back(std::move(P));
  }
  if (std::ferror(F))
    return Error(Path + ": " + std::strerror(errno));
  PacketBatch Batch(MaxLen);
  for (const Packet &Pk : Packets)
    Batch.add(Pk.Bytes.data(), uint32_t(Pk.Bytes.size()), Pk.Ts);
  return Batch;
}

MaybeError writePcap(const std::string &Path, const PacketBatch &Batch, unsigned Actions) {
  std::string Tmp = stagingPath(Path, ".tmp");
  bool Staged = Tmp != Path;
  std::FILE *F = std::fopen(Tmp.c_str(), "wb");
  if (!F)
    return Error(Path + ": " + std::strerror(errno));
  uint32_t Hdr[6] = {MagicNano, 2 | (4u << 16), 0, 0, 262144, LinkEthernet};
  bool Ok = std::fwrite(Hdr, sizeof(Hdr), 1, F) == 1;
  for (size_t I = 0; Ok && I < Batch.size(); ++I) {
    uint64_t V = Batch.verdict(I);
    if (V >= NumXdpActions || !(Actions & (1u << V)))
      continue;
    uint32_t Rec[4] = {uint32_t(Batch.timestampNs(I) / 1000000000ull),
                       uint32_t(Batch.timestampNs(I) % 1000000000ull), Batch.length(I),
                       Batch.length(I)};
    Ok = std::fwrite(Rec, sizeof(Rec), 1, F) == 1 &&
         (Batch.length(I) == 0 || std::fwrite(Batch.data(I), Batch.length(I), 1, F) == 1);
  }
  Ok = std::fclose(F) == 0 && Ok;
  if (!Ok || (Staged && std::rename(Tmp.c_str(), Path.c_str()) != 0)) {
    if (Staged)
      std::remove(Tmp.c_str());
    return Error(Path + ": cannot write the capture");
  }
  return std::nullopt;
}

} // namespace ebpfgpu::runtime

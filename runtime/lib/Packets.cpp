// SPDX-License-Identifier: Apache-2.0
//
// Packet batches, verdict counters and pcap I/O (libpcap).

#include "ebpf-gpu/Runtime/Packets.h"

#include <pcap/pcap.h>

#include <cstdio>
#include <cstring>
#include <memory>

namespace ebpfgpu::runtime {

const char *xdpActionName(uint64_t Code) {
  static const char *const Names[] = {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
                                      "XDP_REDIRECT"};
  return Code < NumXdpActions ? Names[Code] : "XDP_UNKNOWN";
}

PacketBatch::PacketBatch(uint32_t MaxLen)
    : MaxLen(MaxLen), Stride((XdpHeadroom + MaxLen + XdpTailroom + 63) & ~size_t(63)) {}

bool PacketBatch::add(const uint8_t *Data, uint32_t Len, uint64_t TimestampNs) {
  if (Len > MaxLen)
    return false;
  size_t I = Lengths.size();
  Storage.resize((I + 1) * Stride, 0);
  std::memcpy(buffer(I) + XdpHeadroom, Data, Len);
  Offsets.push_back(XdpHeadroom);
  Lengths.push_back(Len);
  Verdicts.push_back(0);
  Timestamps.push_back(TimestampNs);
  Redirects.push_back(0);
  return true;
}

void PacketBatch::prepareContext(size_t I, platform::XdpRuntimeContext &Ctx) {
  uint64_t Base = reinterpret_cast<uint64_t>(buffer(I));
  Ctx = {};
  Ctx.buffer_start = Base;
  Ctx.buffer_end = Base + Stride;
  Ctx.data = Base + Offsets[I];
  Ctx.data_meta = Ctx.data;
  Ctx.data_end = Ctx.data + Lengths[I];
  Ctx.random_state = 0x5eed0000ull + I;
}

void PacketBatch::finish(size_t I, const platform::XdpRuntimeContext &Ctx, uint64_t Verdict) {
  uint64_t Base = reinterpret_cast<uint64_t>(buffer(I));
  Offsets[I] = uint32_t(Ctx.data - Base);
  Lengths[I] = uint32_t(Ctx.data_end - Ctx.data);
  Verdicts[I] = Verdict;
  Redirects[I] = Ctx.redirect_target;
}

bool PacketBatch::setResult(size_t I, const uint8_t *Data, uint32_t Len, uint64_t Verdict) {
  if (size_t(XdpHeadroom) + Len > Stride)
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

namespace {
struct PcapCloser {
  void operator()(pcap_t *P) const { pcap_close(P); }
};
struct DumperCloser {
  void operator()(pcap_dumper_t *D) const { pcap_dump_close(D); }
};
} // namespace

Expected<PacketBatch> readPcap(const std::string &Path) {
  char Err[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<pcap_t, PcapCloser> P(
      pcap_open_offline_with_tstamp_precision(Path.c_str(), PCAP_TSTAMP_PRECISION_NANO, Err));
  if (!P)
    return Error(Path + ": " + Err);
  if (pcap_datalink(P.get()) != DLT_EN10MB)
    return Error(Path + ": not an Ethernet capture (link type " +
                 std::to_string(pcap_datalink(P.get())) + ")");
  // First pass for the largest packet, so the batch has one stride.
  struct Packet {
    std::vector<uint8_t> Bytes;
    uint64_t Ts;
  };
  std::vector<Packet> Packets;
  uint32_t MaxLen = 64;
  pcap_pkthdr *Hdr;
  const u_char *Data;
  int Rc;
  while ((Rc = pcap_next_ex(P.get(), &Hdr, &Data)) == 1) {
    if (Hdr->caplen != Hdr->len)
      return Error(Path + ": packet " + std::to_string(Packets.size() + 1) +
                   " was truncated by the capture (" + std::to_string(Hdr->caplen) + " of " +
                   std::to_string(Hdr->len) + " bytes)");
    Packets.push_back({std::vector<uint8_t>(Data, Data + Hdr->caplen),
                       uint64_t(Hdr->ts.tv_sec) * 1000000000ull + uint64_t(Hdr->ts.tv_usec)});
    MaxLen = std::max(MaxLen, Hdr->caplen);
  }
  if (Rc == PCAP_ERROR)
    return Error(Path + ": " + pcap_geterr(P.get()));
  PacketBatch Batch(MaxLen);
  for (const Packet &Pk : Packets)
    Batch.add(Pk.Bytes.data(), uint32_t(Pk.Bytes.size()), Pk.Ts);
  return Batch;
}

MaybeError writePcap(const std::string &Path, const PacketBatch &Batch, unsigned Actions) {
  std::string Tmp = Path + ".tmp";
  std::unique_ptr<pcap_t, PcapCloser> P(
      pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO));
  if (!P)
    return Error(Path + ": cannot create a pcap writer");
  std::unique_ptr<pcap_dumper_t, DumperCloser> D(pcap_dump_open(P.get(), Tmp.c_str()));
  if (!D)
    return Error(Path + ": " + pcap_geterr(P.get()));
  for (size_t I = 0; I < Batch.size(); ++I) {
    uint64_t V = Batch.verdict(I);
    if (V >= NumXdpActions || !(Actions & (1u << V)))
      continue;
    pcap_pkthdr Hdr = {};
    Hdr.ts.tv_sec = time_t(Batch.timestampNs(I) / 1000000000ull);
    Hdr.ts.tv_usec = suseconds_t(Batch.timestampNs(I) % 1000000000ull);
    Hdr.caplen = Hdr.len = Batch.length(I);
    pcap_dump(reinterpret_cast<u_char *>(D.get()), &Hdr, Batch.data(I));
  }
  bool Failed = pcap_dump_flush(D.get()) != 0;
  D.reset();
  if (Failed || std::rename(Tmp.c_str(), Path.c_str()) != 0) {
    std::remove(Tmp.c_str());
    return Error(Path + ": cannot write the capture");
  }
  return std::nullopt;
}

} // namespace ebpfgpu::runtime

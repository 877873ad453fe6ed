// SPDX-License-Identifier: Apache-2.0
//
// Packets as XDP programs see them: a batch of frames, each in its own
// buffer with XDP's 256 bytes of headroom (for bpf_xdp_adjust_head/meta) and
// tailroom (for bpf_xdp_adjust_tail), the verdict codes, per-action
// counters, and pcap files in and out.

#ifndef EBPF_GPU_RUNTIME_PACKETS_H
#define EBPF_GPU_RUNTIME_PACKETS_H

#include "ebpf-gpu/Platform/Platform.h"
#include "ebpf-gpu/Support/Error.h"

#include <array>
#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::runtime {

/// XDP verdicts, with the kernel's codes.
enum class XdpAction : uint32_t { Aborted = 0, Drop = 1, Pass = 2, Tx = 3, Redirect = 4 };
constexpr unsigned NumXdpActions = 5;
/// "XDP_DROP" etc.; "XDP_UNKNOWN" for codes outside the enum.
const char *xdpActionName(uint64_t Code);
/// Where an XDP_REDIRECT goes, as its redirect target says: "ifindex 2",
/// "cpu 0" (a cpumap's, EBPFGPU_REDIRECT_CPU), "xsk 1" (an xskmap's consumer
/// 1, EBPFGPU_REDIRECT_XSK), or for a broadcast (EBPFGPU_REDIRECT_BROADCAST) "broadcast to 1,3"
/// ("broadcast to none" when every device was excluded; "+far" when some
/// device lies past the ports a broadcast can reach).
std::string redirectTargetName(uint64_t Target);

constexpr uint32_t XdpHeadroom = 256;
constexpr uint32_t XdpTailroom = 256;

/// Where a packet whose buffer has `Headroom` bytes before it starts in the
/// buffer its program sees: its own headroom, at most XDP's 256 bytes, and
/// at least the EBPFGPU_XDP_FRAME_SIZE bytes the kernel keeps for its
/// struct xdp_frame (which no head or meta adjustment reaches, so a packet
/// without headroom can still move its start on). bpf_xdp_adjust_head and
/// _meta past it fail with -EINVAL, as on a driver that gives less than 256.
constexpr uint32_t dataOffsetFor(uint32_t Headroom) {
  return Headroom < EBPFGPU_XDP_FRAME_SIZE ? EBPFGPU_XDP_FRAME_SIZE
         : Headroom > XdpHeadroom        ? XdpHeadroom
                                         : Headroom;
}

/// The XDP context of the packet `Len` bytes at `Data` in the buffer
/// [Start, End), the `Index`-th of its batch (the seed of its
/// bpf_get_prandom_u32, its events' packet index); `RxMeta` the address of
/// its struct ebpfgpu_rx_meta, or 0. The program may then move the bounds.
inline void initXdpContext(platform::XdpRuntimeContext &Ctx, uint64_t Start, uint64_t End,
                           uint64_t Data, uint32_t Len, uint32_t Ifindex, uint32_t RxQueue,
                           uint64_t RxMeta, uint32_t Index) {
  Ctx = {};
  Ctx.buffer_start = Start;
  Ctx.buffer_end = End;
  Ctx.data = Data;
  Ctx.data_meta = Data;
  Ctx.data_end = Data + Len;
  Ctx.ingress_ifindex = Ifindex;
  Ctx.rx_queue_index = RxQueue;
  Ctx.rx_meta = RxMeta;
  Ctx.random_state = 0x5eed0000ull + Index;
  Ctx.packet_index = Index;
}

/// Frames with headroom and tailroom, stored at a fixed stride. Owns its
/// memory; not thread-safe.
class PacketBatch {
public:
  /// Room for packets of up to `MaxLen` bytes.
  explicit PacketBatch(uint32_t MaxLen);
  /// The stride of a batch for packets of up to `MaxLen` bytes.
  static size_t strideFor(uint32_t MaxLen) {
    return (XdpHeadroom + MaxLen + XdpTailroom + 63) & ~size_t(63);
  }

  /// Appends a copy of `Len` bytes; returns false when Len > maxLen().
  /// Allocates only while the batch grows past its largest size so far.
  bool add(const uint8_t *Data, uint32_t Len, uint64_t TimestampNs = 0) {
    return addAt(Data, Len, XdpHeadroom, UINT32_MAX, TimestampNs);
  }
  /// add(), the copy starting `Offset` bytes into its buffer (at most
  /// XdpHeadroom: dataOffsetFor a packet's own headroom), so that its
  /// program has that much headroom, and its buffer ending `Cap` bytes
  /// after its start or at the stride's end, whichever comes first (the
  /// room the packet's own buffer has after it: bpf_xdp_adjust_tail grows
  /// no further).
  bool addAt(const uint8_t *Data, uint32_t Len, uint32_t Offset, uint32_t Cap = UINT32_MAX,
             uint64_t TimestampNs = 0);
  size_t size() const { return Lengths.size(); }
  uint32_t maxLen() const { return MaxLen; }
  /// Appends a packet that stays where it is (an mbuf's buffer: zero
  /// copy): `BufferSize` bytes at `Buffer`, the packet `Len` bytes at
  /// `DataOffset` in it. The program reads and writes it in place; the
  /// buffer must outlive the batch's use of it. Its headroom and tailroom
  /// are what the buffer has around the packet.
  void addExternal(uint8_t *Buffer, uint32_t BufferSize, uint32_t DataOffset, uint32_t Len) {
    // Inline: the data plane adds every packet it receives this way.
    assert(Buffer && size_t(DataOffset) + Len <= BufferSize);
    Slots.push_back(0);
    push(Buffer, BufferSize, DataOffset, Len, 0);
  }
  /// Room for `N` packets, so that adding up to N allocates nothing
  /// (`Copies` false: room for N packets added in place, none for copies).
  void reserve(size_t N, bool Copies = true);
  /// Empties the batch and keeps its memory, for the next batch.
  void clear();
  /// clear(), then room for packets of up to `MaxLen` bytes (the stride
  /// follows): one batch reused for bursts of any size, its memory kept.
  void reset(uint32_t MaxLen);

  /// What programs read as ctx->ingress_ifindex and ctx->rx_queue_index for
  /// every packet of the batch (0 and 0 unless set: the one-shot runs).
  void setIngress(uint32_t Ifindex, uint32_t RxQueue) {
    IngressIfindex = Ifindex;
    RxQueueIndex = RxQueue;
  }
  uint32_t ingressIfindex() const { return IngressIfindex; }
  uint32_t rxQueueIndex() const { return RxQueueIndex; }
  /// Whether every packet's buffer starts with its struct ebpfgpu_rx_meta
  /// (XdpContext.h), written by the data plane that received it for a
  /// program that calls the XDP RX metadata kfuncs (BatchExecutor::
  /// readsRxMetadata). Off (one-shot runs over a pcap: no port), those
  /// kfuncs answer -EOPNOTSUPP. Kept by clear().
  void setRxMeta(bool On) { RxMeta = On; }
  bool rxMeta() const { return RxMeta; }
  /// The metadata of packet `I` (with rxMeta(): at its buffer's start).
  ebpfgpu_rx_meta &rxMetaOf(size_t I) {
    return *reinterpret_cast<ebpfgpu_rx_meta *>(buffer(I));
  }

  /// Sets up the XDP context of packet `I` (data, data_end, data_meta and
  /// the buffer bounds); the program may then move them.
  void prepareContext(size_t I, platform::XdpRuntimeContext &Ctx);
  /// Records where the program left the packet (after adjust_head/tail).
  void finish(size_t I, const platform::XdpRuntimeContext &Ctx, uint64_t Verdict);
  /// Replaces packet `I` by `Len` bytes an executor returned (the kernel's
  /// test run copies packets out). False when they do not fit the buffer.
  bool setResult(size_t I, const uint8_t *Data, uint32_t Len, uint64_t Verdict);

  /// Where executors find packet `I`'s buffer (headroom, packet, tailroom),
  /// and how long it is: a stride of the batch's own storage, or the
  /// caller's memory for packets added with addExternal.
  uint8_t *buffer(size_t I) {
    return External[I] ? External[I] : Storage.data() + Slots[I] * Stride;
  }
  const uint8_t *buffer(size_t I) const {
    return External[I] ? External[I] : Storage.data() + Slots[I] * Stride;
  }
  uint32_t bufferSize(size_t I) const {
    return External[I] || Sizes[I] ? Sizes[I] : uint32_t(Stride);
  }
  bool isExternal(size_t I) const { return External[I] != nullptr; }
  /// The copied packets' storage, `stride()` bytes a buffer; in a batch
  /// with no external packet, packet I's buffer is the I-th.
  uint8_t *frames() { return Storage.data(); }
  size_t stride() const { return Stride; }
  uint32_t offset(size_t I) const { return Offsets[I]; }
  /// Records an executor's outcome for packet `I`: the packet now starts at
  /// `Offset` in its buffer and has `Len` bytes. False when that leaves the
  /// buffer.
  bool setOutcome(size_t I, uint32_t Offset, uint32_t Len, uint64_t Verdict, uint64_t Redirect);

  const uint8_t *data(size_t I) const { return buffer(I) + Offsets[I]; }
  uint32_t length(size_t I) const { return Lengths[I]; }
  uint64_t verdict(size_t I) const { return Verdicts[I]; }
  uint64_t timestampNs(size_t I) const { return Timestamps[I]; }
  uint64_t redirectTarget(size_t I) const { return Redirects[I]; }

private:
  void push(uint8_t *Ext, uint32_t Size, uint32_t Offset, uint32_t Len, uint64_t TimestampNs) {
    External.push_back(Ext);
    Sizes.push_back(Size);
    Offsets.push_back(Offset);
    Lengths.push_back(Len);
    Verdicts.push_back(0);
    Timestamps.push_back(TimestampNs);
    Redirects.push_back(0);
  }

  uint32_t MaxLen;
  size_t Stride;
  uint32_t IngressIfindex = 0, RxQueueIndex = 0;
  bool RxMeta = false;
  std::vector<uint8_t> Storage; ///< the copied packets' buffers, a stride each
  size_t Copied = 0;            ///< strides of Storage in use
  std::vector<uint8_t *> External; ///< per packet: its own buffer, or null (a stride)
  std::vector<uint32_t> Sizes; ///< per packet: its external buffer's bytes, or a copy's (0: the stride)
  std::vector<size_t> Slots;       ///< per packet: its stride in Storage
  std::vector<uint32_t> Offsets, Lengths;
  std::vector<uint64_t> Verdicts, Timestamps, Redirects;
};

/// Packets and bytes per verdict.
struct ActionStats {
  std::array<uint64_t, NumXdpActions> Packets{};
  std::array<uint64_t, NumXdpActions> Bytes{};
  /// Verdicts outside 0..4 (the kernel treats them as XDP_ABORTED).
  uint64_t Invalid = 0;

  void count(uint64_t Verdict, uint32_t Len);
  uint64_t total() const;
};

/// Reads every packet of a pcap file (Ethernet link type).
Expected<PacketBatch> readPcap(const std::string &Path);

/// Writes the packets of `Batch` whose verdict is in `Actions` (bit per
/// XdpAction code) to a pcap file. Writes to a temporary name and renames,
/// so a failure leaves no partial file.
MaybeError writePcap(const std::string &Path, const PacketBatch &Batch, unsigned Actions);

} // namespace ebpfgpu::runtime

#endif // EBPF_GPU_RUNTIME_PACKETS_H

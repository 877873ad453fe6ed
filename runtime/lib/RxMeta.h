// SPDX-License-Identifier: Apache-2.0
//
// What a DPDK port received with a packet, as the XDP RX metadata kfuncs
// give it (XdpContext.h's struct ebpfgpu_rx_meta): the RSS hash when the
// mbuf carries one (RTE_MBUF_F_RX_RSS_HASH), the VLAN tag the port
// stripped (RTE_MBUF_F_RX_VLAN_STRIPPED), the rx timestamp where a driver
// registered DPDK's timestamp field and set its flag on the mbuf (net_pcap
// does: the pcap record's time). A field the mbuf lacks is left for the
// kfunc to answer -ENODATA, as the kernel's drivers answer for what their
// NIC did not give (mlx5e_xdp_rx_hash, veth_xdp_rx_vlan_tag).

#ifndef EBPF_GPU_RUNTIME_RXMETA_H
#define EBPF_GPU_RUNTIME_RXMETA_H

#include "ebpf-gpu/Platform/XdpContext.h"

#include <rte_byteorder.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

namespace ebpfgpu::runtime {

/// Where DPDK keeps rx timestamps, looked up once the ports are probed;
/// Offset < 0 when no driver registered the field.
struct RxTimestampField {
  int Offset = -1;
  uint64_t Flag = 0;

  static RxTimestampField lookup() {
    RxTimestampField F;
    int Bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, nullptr);
    F.Offset = Bit < 0 ? -1 : rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME, nullptr);
    F.Flag = Bit < 0 ? 0 : uint64_t(1) << Bit;
    return F;
  }
};

/// The kernel's enum xdp_rss_hash_type (include/net/xdp.h) of a hash over
/// the headers the mbuf's packet type names: the L3 bit (IPv4 or IPv6,
/// with DYNHDR for options or extension headers) and the L4 ones; none
/// (XDP_RSS_TYPE_L2) when the port did not classify the packet.
inline uint32_t xdpRssHashType(uint32_t PacketType) {
  enum : uint32_t { L3Ipv4 = 1, L3Ipv6 = 2, L3DynHdr = 4, L4 = 8, Tcp = 16, Udp = 32,
                    Sctp = 64, Icmp = 256 };
  uint32_t T = 0;
  switch (PacketType & RTE_PTYPE_L3_MASK) {
  case RTE_PTYPE_L3_IPV4:
    T = L3Ipv4;
    break;
  case RTE_PTYPE_L3_IPV4_EXT:
  case RTE_PTYPE_L3_IPV4_EXT_UNKNOWN:
    T = L3Ipv4 | L3DynHdr;
    break;
  case RTE_PTYPE_L3_IPV6:
    T = L3Ipv6;
    break;
  case RTE_PTYPE_L3_IPV6_EXT:
  case RTE_PTYPE_L3_IPV6_EXT_UNKNOWN:
    T = L3Ipv6 | L3DynHdr;
    break;
  default:
    return 0;
  }
  switch (PacketType & RTE_PTYPE_L4_MASK) {
  case RTE_PTYPE_L4_TCP:
    return T | L4 | Tcp;
  case RTE_PTYPE_L4_UDP:
    return T | L4 | Udp;
  case RTE_PTYPE_L4_SCTP:
    return T | L4 | Sctp;
  case RTE_PTYPE_L4_ICMP:
    return T | L4 | Icmp;
  default:
    return T;
  }
}

/// Fills `Out` from mbuf `M` (which the port just received).
inline void fillRxMeta(const rte_mbuf *M, const RxTimestampField &Ts, ebpfgpu_rx_meta &Out) {
  uint32_t Flags = 0;
  if (M->ol_flags & RTE_MBUF_F_RX_RSS_HASH) {
    Flags |= EBPFGPU_RX_META_HASH;
    Out.hash = M->hash.rss;
    Out.hash_type = xdpRssHashType(M->packet_type);
  }
  if (M->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) {
    // As mlx5's: the stripped tag's protocol is 802.1Q.
    Flags |= EBPFGPU_RX_META_VLAN;
    Out.vlan_proto = rte_cpu_to_be_16(0x8100);
    Out.vlan_tci = M->vlan_tci;
  }
  if (Ts.Offset >= 0 && (M->ol_flags & Ts.Flag)) {
    Flags |= EBPFGPU_RX_META_TIMESTAMP;
    Out.timestamp = *RTE_MBUF_DYNFIELD(M, Ts.Offset, const rte_mbuf_timestamp_t *);
  }
  Out.flags = Flags;
}

} // namespace ebpfgpu::runtime

#endif // EBPF_GPU_RUNTIME_RXMETA_H

# SPDX-License-Identifier: Apache-2.0
#
# Checks what xdp_l4lb sent back out (the --out pcap of a run) against its
# input, on their own (not against another back end): each input packet
# either went out unchanged (passed) or as IPIP to a real: the gateway's
# MAC from the MAC it came to, an outer IPv4 header (version 4, IHL 5, the
# inner TOS, no fragment bits, TTL 64, protocol 4, length 20 more than the
# inner's, a checksum that verifies) from the tunnel source to one of the
# reals, followed by the original IP packet byte for byte; and every
# packet of a 5-tuple went to the same real. Dropped packets are absent
# from the output; their count is the difference. Prints a summary; exits 1
# on the first bad packet.
#
# usage: check-l4lb.py IN.pcap OUT.pcap VERDICTS

import struct
import sys

from pcapcheck import Sent, sum16

GW_MAC = bytes.fromhex("0200000000fe")
TUNNEL_SRC = bytes([10, 0, 0, 100])


def main():
    sent = Sent(sys.argv[1], sys.argv[2], sys.argv[3])
    flows, reals = {}, set()
    tx = 0
    for n, pkt, out in sent:
        outer, inner = out[14:34], out[34:]
        ok = (out[:6] == GW_MAC and out[6:12] == pkt[:6] and out[12:14] == b"\x08\x00"
              and outer[0] == 0x45 and outer[1] == pkt[15] and outer[6:8] == b"\0\0"
              and outer[8] == 64 and outer[9] == 4 and sum16(outer) == 0xffff
              and struct.unpack("!H", outer[2:4])[0] == struct.unpack("!H", pkt[16:18])[0] + 20
              and outer[12:16] == TUNNEL_SRC and outer[16:18] == bytes([10, 1])
              and inner == pkt[14:])
        if not ok:
            print(f"packet {n}: bad encapsulation {out[:34].hex()}")
            return 1
        ihl = (pkt[14] & 15) * 4
        key = (pkt[26:34], pkt[14 + 9], pkt[14 + ihl:14 + ihl + 4])
        real = outer[16:20]
        if flows.setdefault(key, real) != real:
            print(f"packet {n}: its connection went to {flows[key].hex()} before, now {real.hex()}")
            return 1
        reals.add(real)
        tx += 1
    print(f"{tx} packets encapsulated to {len(reals)} reals over {len(flows)} connections, "
          f"{sent.passed} passed unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())

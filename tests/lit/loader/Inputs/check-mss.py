# SPDX-License-Identifier: Apache-2.0
#
# Checks what xdp_tcp_mss sent out (the --out pcap of a run) against its
# input, on their own (not against another back end): a passed packet is
# unchanged; a transmitted one is a TCP SYN whose only change is its MSS
# option lowered to the clamp (argument 4), in place, with a TCP checksum
# that verifies (over the pseudo-header). Prints a summary (and how many
# clamped options sat at an odd offset); exits 1 on the first bad packet.
#
# usage: check-mss.py IN.pcap OUT.pcap VERDICTS CLAMP

import struct
import sys

from pcapcheck import Sent, sum16


def main():
    sent = Sent(sys.argv[1], sys.argv[2], sys.argv[3])
    clamp = int(sys.argv[4])
    clamped = odd = 0
    for n, pkt, out in sent:
        l3 = 18 if pkt[12:14] == b"\x81\x00" else 14
        ip = out[l3:]
        ihl, total = (ip[0] & 15) * 4, struct.unpack("!H", ip[2:4])[0]
        tcp = ip[ihl:total]
        # The MSS option, walking the options as the program does.
        at, first = 20, None
        while at < (tcp[12] >> 4) * 4 and tcp[at] != 0:
            if tcp[at] == 1:
                at += 1
                continue
            if tcp[at] == 2:
                first = at + 2
            at += tcp[at + 1]
        if not (tcp[13] & 0x02) or first is None:
            print(f"packet {n}: transmitted, but not a SYN with an MSS option")
            return 1
        base = l3 + ihl
        same = [i for i in range(len(out))
                if out[i] != pkt[i] and i - base not in (16, 17, first, first + 1)]
        if same or struct.unpack("!H", tcp[first:first + 2])[0] != clamp:
            print(f"packet {n}: not only the MSS option lowered to {clamp} (bytes {same} changed)")
            return 1
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 6, len(tcp))
        if sum16(pseudo + tcp) != 0xffff:
            print(f"packet {n}: the TCP checksum does not verify")
            return 1
        clamped += 1
        odd += first % 2
    print(f"{clamped} SYNs clamped to {clamp} ({odd} at an odd offset) with valid checksums, "
          f"{sent.passed} passed unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())

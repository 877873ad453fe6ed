# SPDX-License-Identifier: Apache-2.0
#
# Checks the IPIP packets of a pcap written by xdp_ipip_encap, on their own
# (not against another back end): every outer IPv4 header has version 4,
# IHL 5, protocol 4, TTL 64, a total length 20 more than the inner's, the
# inner's TOS and DF bit, the tunnel's endpoints, and a header checksum
# that verifies. Prints a count per kind; exits 1 on the first bad packet.

import struct
import sys

from pcapcheck import sum16


def main():
    data = open(sys.argv[1], "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic not in (0xa1b2c3d4, 0xa1b23c4d):
        print("not a little-endian pcap")
        return 1
    at, ipip, other = 24, 0, 0
    while at < len(data):
        _, _, caplen, _ = struct.unpack("<IIII", data[at:at + 16])
        pkt = data[at + 16:at + 16 + caplen]
        at += 16 + caplen
        if len(pkt) < 54 or pkt[12:14] != b"\x08\x00" or pkt[14 + 9] != 4:
            other += 1
            continue
        outer, inner = pkt[14:34], pkt[34:54]
        n = ipip + other
        if outer[0] != 0x45 or outer[8] != 64:
            print(f"packet {n}: outer version/IHL {outer[0]:#x}, TTL {outer[8]}")
            return 1
        if sum16(outer) != 0xffff:
            print(f"packet {n}: outer header checksum does not verify")
            return 1
        olen, ilen = struct.unpack("!H", outer[2:4])[0], struct.unpack("!H", inner[2:4])[0]
        if olen != ilen + 20 or outer[1] != inner[1]:
            print(f"packet {n}: outer length {olen} / TOS {outer[1]} vs inner {ilen} / {inner[1]}")
            return 1
        if (outer[6] & 0x40) != (inner[6] & 0x40) or outer[6] & 0xbf or outer[7]:
            print(f"packet {n}: outer fragment field {outer[6:8].hex()} vs inner {inner[6:8].hex()}")
            return 1
        third = inner[18]  # the inner destination's third byte
        if outer[12:16] != bytes([10, 0, 0, 1]) or outer[16:20] != bytes([10, 0, 1, third % 16 + 1]):
            print(f"packet {n}: endpoints {outer[12:16].hex()} -> {outer[16:20].hex()}")
            return 1
        ipip += 1
    print(f"{ipip} IPIP packets with valid outer headers, {other} others")
    return 0


if __name__ == "__main__":
    sys.exit(main())

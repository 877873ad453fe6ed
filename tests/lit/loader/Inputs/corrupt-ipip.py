# SPDX-License-Identifier: Apache-2.0
#
# Copies a pcap, flipping a bit of the outer header checksum of every
# IPIP packet whose index is a multiple of 3 (for xdp_ipip_decap's drop
# of packets whose outer checksum fails). Prints how many it changed.

import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
at, n, changed = 24, 0, 0
while at < len(data):
    caplen = struct.unpack("<I", data[at + 8:at + 12])[0]
    p = at + 16
    if caplen >= 34 and data[p + 12:p + 14] == b"\x08\x00" and data[p + 23] == 4 and n % 3 == 0:
        data[p + 24] ^= 0x01
        changed += 1
    n += 1
    at = p + caplen
open(sys.argv[2], "wb").write(data)
print(f"{changed} outer checksums broken")

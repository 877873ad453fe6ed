# SPDX-License-Identifier: Apache-2.0
#
# What the output checkers of this folder (check-ipip.py, check-l4lb.py,
# check-mss.py) share: a pcap's packets, and the Internet checksum's sum.

import struct


def packets(path):
    """The captured bytes of each packet of a pcap file, in order."""
    data = open(path, "rb").read()
    at = 24
    while at < len(data):
        caplen = struct.unpack_from("<I", data, at + 8)[0]
        yield data[at + 16:at + 16 + caplen]
        at += 16 + caplen


def sum16(b):
    """The ones' complement sum of `b` as 16-bit big-endian words (0xffff
    over a header or segment whose checksum is right)."""
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s

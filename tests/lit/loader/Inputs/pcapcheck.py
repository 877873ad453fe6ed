# SPDX-License-Identifier: Apache-2.0
#
# What the output checkers of this folder (check-ipip.py, check-l4lb.py,
# check-mss.py) and its traffic generators share: a pcap's packets read and
# written, and the Internet checksum's sum.

import struct


def packets(path):
    """The captured bytes of each packet of a pcap file, in order."""
    data = open(path, "rb").read()
    at = 24
    while at < len(data):
        caplen = struct.unpack_from("<I", data, at + 8)[0]
        yield data[at + 16:at + 16 + caplen]
        at += 16 + caplen


def write_pcap(path, frames):
    """A pcap file (Ethernet, microseconds) of `frames`, frame i stamped at
    second i. `frames` may be a generator: it is drawn while writing."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)) + fr)


def sum16(b):
    """The ones' complement sum of `b` as 16-bit big-endian words (0xffff
    over a header or segment whose checksum is right)."""
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


class Sent:
    """The packets a run (`ebpf-gpu-loader run --out OUT --verdicts V`)
    sent back out, as (index, packet in, packet out), XDP_TX and redirects
    alike; dropped packets are not in OUT, passed ones must be there
    unchanged (`passed` counts them; a changed one ends the check)."""

    def __init__(self, in_path, out_path, verdicts_path):
        self.ins = list(packets(in_path))
        self.outs = packets(out_path)
        self.verdicts = [line.split()[1] for line in open(verdicts_path)]
        self.passed = 0

    def __iter__(self):
        for n, (pkt, v) in enumerate(zip(self.ins, self.verdicts)):
            if v in ("XDP_DROP", "XDP_ABORTED"):
                continue
            out = next(self.outs)
            if v == "XDP_PASS":
                if out != pkt:
                    print(f"packet {n}: passed but changed")
                    raise SystemExit(1)
                self.passed += 1
                continue
            yield n, pkt, out

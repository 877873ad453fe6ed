#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# An independent check of ebpf-gpu-trafgen's payload traffic (--payload,
# --frame-size, --rules, --match-rate): reads the pcap with its own code,
# finds each frame's TCP or UDP payload, and searches it for every rule
# (ids-traffic.py's own parser of the pattern file, a naive bytes.find).
#   trafgen-payload.py PCAP [--rules FILE] [--rate R --bound B]
# prints "N frames, sizes S, L4 {...}, dst ports P, http H of N, matched M
# of N (rate X)" and, with --rate, whether X is within B of R; exit 1 when
# a frame is not IPv4 TCP/UDP or a checksum is wrong.

import importlib.util
import os
import struct
import sys

spec = importlib.util.spec_from_file_location(
    "ids_traffic", os.path.join(os.path.dirname(__file__), "ids-traffic.py"))
ids = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ids)


def csum(b, start=0):
    if len(b) % 2:
        b += b"\0"
    s = start + sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def main(argv):
    pcap, args = argv[1], dict(zip(argv[2::2], argv[3::2]))
    rules = ids.parse_rules(args["--rules"]) if "--rules" in args else []
    frames = list(ids.packets(pcap))
    sizes, l4s, ports, http, matched = set(), {}, set(), 0, 0
    for n, f in enumerate(frames):
        if f[12:14] != b"\x08\x00" or f[14] != 0x45 or f[23] not in (6, 17):
            print("frame %d: not IPv4 TCP/UDP without options" % n)
            return 1
        ip, l4 = f[14:34], f[34:]
        if csum(ip) != 0xffff:
            print("frame %d: bad IPv4 checksum" % n)
            return 1
        pseudo = csum(ip[12:20] + struct.pack("!HH", f[23], len(l4)))
        if csum(l4, pseudo) != 0xffff:
            print("frame %d: bad TCP/UDP checksum" % n)
            return 1
        sizes.add(len(f))
        proto = {6: "tcp", 17: "udp"}[f[23]]
        l4s[proto] = l4s.get(proto, 0) + 1
        ports.add(struct.unpack_from("!H", l4, 2)[0])
        payload = l4[(l4[12] >> 4) * 4:] if proto == "tcp" else l4[8:]
        if payload.split(b" ")[0] in (b"GET", b"POST", b"HEAD") and b" HTTP/1.1\r\nHost: " in payload:
            http += 1
        if any(b in payload for _, b in rules):
            matched += 1
    rate = matched / len(frames)
    print("%d frames, sizes %s, L4 %s, %s, http %d of %d, matched %d of %d (rate %.4f)" % (
        len(frames), ",".join(map(str, sorted(sizes))),
        " ".join("%s %s" % (k, "all" if v == len(frames) else "some") for k, v in sorted(l4s.items())),
        "dst port 80 only" if ports == {80} else "%d dst ports" % len(ports),
        http, len(frames), matched, len(frames), rate))
    if "--rate" in args:
        want, bound = float(args["--rate"]), float(args["--bound"])
        print("match rate %s %s within %s" % ("is" if abs(rate - want) <= bound else "is NOT", want, bound))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

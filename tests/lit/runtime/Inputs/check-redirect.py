# SPDX-License-Identifier: Apache-2.0
#
# Checks a `forward` run of xdp_redirect.c over two net_pcap ports against
# what the program says for each packet of the input: IPv4 frames on port
# 2's tx pcap, frames neither IPv4 nor IPv6 back on port 1's, IPv6 ones
# counted as redirected to no port, short ones dropped; in order.
#
# usage: check-redirect.py IN.pcap FWD.json PORT1-TX.pcap PORT2-TX.pcap

import json
import struct
import sys


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    out, pos = [], 24
    while pos + 16 <= len(data):
        _, _, caplen, _ = struct.unpack_from(endian + "IIII", data, pos)
        out.append(data[pos + 16:pos + 16 + caplen])
        pos += 16 + caplen
    return out


def main():
    inp, fwd_json, tx1, tx2 = sys.argv[1:5]
    fwd = json.load(open(fwd_json))
    want1, want2, ipv6, short = [], [], 0, 0
    for p in packets(inp):
        if len(p) < 14:
            short += 1
        elif p[12:14] == b"\x08\x00":
            want2.append(p)
        elif p[12:14] == b"\x86\xdd":
            ipv6 += 1
        else:
            want1.append(p)
    ok = True
    for name, want, got in (("port 1", want1, packets(tx1)), ("port 2", want2, packets(tx2))):
        same = want == got
        ok &= same
        print(f"{name}: {len(got)} packets, {'as the program says' if same else 'DIFFERENT'}")
    unknown = fwd["errors"]["redirect_unknown"]
    print(f"redirected to no port: {unknown}, {'as' if unknown == ipv6 else 'NOT as'} the program says")
    ok &= unknown == ipv6 and fwd["actions"]["XDP_DROP"]["packets"] == short
    ok &= [p["tx_packets"] for p in fwd["ports"]] == [len(want1), len(want2)]
    sys.exit(0 if ok else 1)


main()

# SPDX-License-Identifier: Apache-2.0
#
# Checks a `forward --fib` run of the router sample against `run --fib` on
# the same packets: each packet `run` redirected is on the tx pcap of the
# port whose MAC it now carries as its source (the egress link the lookup
# chose), the XDP_PASS ones on the exception port's, all in order.
#
# usage: check-fib-forward.py RUN.verdicts RUN-OUT.pcap MAC1 TX1.pcap MAC2 TX2.pcap EXC.pcap

import struct
import sys


def packets(path):
    data = open(path, "rb").read()
    out, pos = [], 24
    while pos + 16 <= len(data):
        _, _, caplen, _ = struct.unpack_from("<IIII", data, pos)
        out.append(data[pos + 16:pos + 16 + caplen])
        pos += 16 + caplen
    return out


def main():
    verdicts_path, run_out, mac1, tx1, mac2, tx2, exc = sys.argv[1:8]
    verdicts = [l.split()[1] for l in open(verdicts_path)]
    sent = [v for v in verdicts if v in ("XDP_PASS", "XDP_TX", "XDP_REDIRECT")]
    out = packets(run_out)
    assert len(out) == len(sent), "run's output does not match its verdicts"
    redirected = [p for v, p in zip(sent, out) if v == "XDP_REDIRECT"]
    passed = [p for v, p in zip(sent, out) if v == "XDP_PASS"]
    ok = True
    for name, mac, tx in (("port 1", mac1, tx1), ("port 2", mac2, tx2)):
        want = [p for p in redirected if p[6:12] == bytes.fromhex(mac.replace(":", ""))]
        got = packets(tx)
        ok &= want == got
        print(f"{name}: {len(got)} packets, {'as run redirected them' if want == got else 'DIFFERENT'}")
    got = packets(exc)
    ok &= got == passed
    print(f"exception: {len(got)} packets, {'as run passed them' if got == passed else 'DIFFERENT'}")
    sys.exit(0 if ok else 1)


main()

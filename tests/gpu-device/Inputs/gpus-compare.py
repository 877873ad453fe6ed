# SPDX-License-Identifier: Apache-2.0
#
# forward --gpus (issue 22): two runs of one program over the same traffic,
# on one GPU and on a GPU list, must be the same program to the operator.
#   gpus-compare.py ONE.json MANY.json [ONE.pcap MANY.pcap]...
# Prints one line per check ending in "same" or "DIFFERENT ..." and exits 1
# on any difference: the actions (packets and bytes), each port's rx and tx
# counts, the maps when the runs dumped them (--dump-maps --json: per-CPU
# maps summed over every GPU's slices), and each pair of pcaps packet by
# packet (their bytes in order; the pcap's clock stamps are the runs').
import json
import struct
import sys


def packets(path):
    data = open(path, "rb").read()
    at, out = 24, []
    while at < len(data):
        caplen = struct.unpack_from("<I", data, at + 8)[0]
        out.append(data[at + 16:at + 16 + caplen])
        at += 16 + caplen
    return out


def main():
    one, many = (json.load(open(p)) for p in sys.argv[1:3])
    bad = False

    def report(what, a, b, detail):
        nonlocal bad
        if a == b:
            print(f"{what}: same{detail}")
        else:
            bad = True
            if isinstance(a, list) and isinstance(b, list) and a and isinstance(a[0], bytes):
                first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                print(f"{what}: DIFFERENT: {len(a)} against {len(b)} packets, first at {first}")
            else:
                print(f"{what}: DIFFERENT: {a!r} against {b!r}")

    report("actions", one["actions"], many["actions"], f" ({one['packets']} packets)")
    ports = lambda r: [(p["rx_packets"], p["tx_packets"]) for p in r["ports"]]
    report("ports", ports(one), ports(many), "")
    errors = lambda r: {k: v for k, v in r["errors"].items() if k != "exec_failed"}
    report("drops", errors(one), errors(many), "")
    report("back-end failures", one["errors"]["exec_failed"] + many["errors"]["exec_failed"], 0, "")
    if "maps" in one or "maps" in many:
        report("maps", one.get("maps"), many.get("maps"), "")
    pairs = sys.argv[3:]
    for i in range(0, len(pairs), 2):
        a, b = packets(pairs[i]), packets(pairs[i + 1])
        report(f"pcap {i // 2 + 1}", a, b, f" ({len(a)} packets)")
    sys.exit(1 if bad else 0)


main()

# SPDX-License-Identifier: Apache-2.0
#
# Compares a `forward` run over net_pcap ports with the one-shot `run` of
# the same program over the same pcap: the same packets and bytes per
# action, the XDP_TX (and XDP_REDIRECT) packets on the port's tx pcap and
# the XDP_PASS packets on the exception pcap, byte for byte and in order.
# Prints one line per comparison; exits 1 at the first difference.
#
# usage: compare-forward.py RUN.json RUN.verdicts RUN-OUT.pcap FWD.json FWD-TX.pcap FWD-EXC.pcap

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


def fail(msg):
    print("MISMATCH: " + msg)
    sys.exit(1)


def same(name, want, got):
    if len(want) != len(got):
        fail(f"{name}: run has {len(want)} packets, forward {len(got)}")
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            fail(f"{name}: packet {i} differs:\n  run     {w.hex()}\n  forward {g.hex()}")
    print(f"{name}: {len(want)} packets equal")


def main():
    run_json, run_verdicts, run_out, fwd_json, fwd_tx, fwd_exc = sys.argv[1:7]
    run = json.load(open(run_json))
    fwd = json.load(open(fwd_json))
    if run["actions"] != fwd["actions"]:
        fail(f"actions: run {run['actions']}, forward {fwd['actions']}")
    if run["packets"] != fwd["packets"]:
        fail(f"packets: run {run['packets']}, forward {fwd['packets']}")
    print(f"actions equal: {fwd['packets']} packets")

    verdicts = [line.split()[1] for line in open(run_verdicts)]
    sent = [v for v in verdicts if v in ("XDP_PASS", "XDP_TX", "XDP_REDIRECT")]
    out = packets(run_out)
    if len(out) != len(sent):
        fail(f"run's output has {len(out)} packets, its verdicts say {len(sent)}")
    same("tx", [p for p, v in zip(out, sent) if v in ("XDP_TX", "XDP_REDIRECT")],
         packets(fwd_tx))
    same("exception", [p for p, v in zip(out, sent) if v == "XDP_PASS"], packets(fwd_exc))

    # Every packet received is in one action; every one to be sent was sent
    # or counted as an error.
    errors = fwd["errors"]
    tx = sum(p["tx_packets"] + p["tx_full"] for p in fwd["ports"])
    a = fwd["actions"]
    to_send = (a["XDP_TX"]["packets"] + a["XDP_REDIRECT"]["packets"] + a["XDP_PASS"]["packets"]
               - errors["redirect_unknown"] - errors["pass_dropped"] - errors["oversized"])
    if tx != to_send:
        fail(f"accounting: {to_send} packets to send, {tx} sent or refused")
    print("accounting: every packet counted")


main()

# SPDX-License-Identifier: Apache-2.0
#
# Compares samples/dpdk_xdp_rx (a program as a DPDK application's rx
# callback, over net_pcap ports) with the one-shot `ebpf-gpu-loader run` of
# the same program over the same pcap: the callback's count per action
# equal to run's verdicts, no packet lost to an error, the XDP_TX packets
# on port 0's tx pcap and the XDP_PASS ones the application forwarded on
# port 1's, byte for byte and in order. With --redirect-ipv4-to-1 (the
# program of Inputs/redirect_2.c): the XDP_REDIRECT IPv4 packets on port
# 1's pcap, the others (to no port) counted as redirect_failed. Prints one
# line per comparison; exits 1 at the first difference.
#
# usage: compare-rx.py RUN.verdicts RUN-OUT.pcap SAMPLE.out TX.pcap PASS.pcap
#                      [--redirect-ipv4-to-1]

import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "loader", "Inputs"))
import pcapcheck  # noqa: E402  (the pcap reader the loader's tests share)

ACTIONS = ["XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT"]


def packets(path):
    return list(pcapcheck.packets(path))


def fail(msg):
    print("MISMATCH: " + msg)
    sys.exit(1)


def same(name, want, got):
    if len(want) != len(got):
        fail(f"{name}: run has {len(want)} packets, the callback {len(got)}")
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            fail(f"{name}: packet {i} differs:\n  run      {w.hex()}\n  callback {g.hex()}")
    print(f"{name}: {len(want)} packets equal")


def main():
    run_verdicts, run_out, sample_out, tx_pcap, pass_pcap = sys.argv[1:6]
    redirect = sys.argv[6:] == ["--redirect-ipv4-to-1"]
    verdicts = [line.split()[1] for line in open(run_verdicts)]
    counts = collections.Counter(verdicts)
    got = {}
    for line in open(sample_out):
        words = line.split()
        if len(words) == 2 and words[1].isdigit():
            got[words[0]] = int(words[1])
    for a in ACTIONS:
        if got.get(a) != counts.get(a, 0):
            fail(f"{a}: run {counts.get(a, 0)}, callback {got.get(a)}")
    print(f"actions equal: {len(verdicts)} packets, " +
          ", ".join(f"{a} {counts[a]}" for a in ACTIONS if counts[a]))
    sent = [v for v in verdicts if v in ("XDP_PASS", "XDP_TX", "XDP_REDIRECT")]
    out = packets(run_out)
    if len(out) != len(sent):
        fail(f"run's output has {len(out)} packets, its verdicts say {len(sent)}")
    to_1 = [p for p, v in zip(out, sent) if v == "XDP_REDIRECT" and p[12:14] == b"\x08\x00"]
    lost = sum(v == "XDP_REDIRECT" for v in sent) - len(to_1) if redirect else 0
    if got.get("redirect_failed") != lost:
        fail(f"redirect_failed: {got.get('redirect_failed')}, not {lost}")
    for e in ("invalid", "tx_failed", "run_failed", "multi_seg", "pass_failed"):
        if got.get(e) != 0:
            fail(f"{e}: {got.get(e)}")
    if got.get("passed") != counts.get("XDP_PASS", 0):
        fail(f"the application got {got.get('passed')} packets, run passed {counts['XDP_PASS']}")
    print(f"errors: {lost} redirects to no port; the application got every XDP_PASS")

    same("tx", [p for p, v in zip(out, sent) if v == "XDP_TX"], packets(tx_pcap))
    if redirect:
        if "XDP_PASS" in sent:
            fail("a redirect test's program passed packets")
        same("redirect to port 1", to_1, packets(pass_pcap))
    else:
        same("pass", [p for p, v in zip(out, sent) if v == "XDP_PASS"], packets(pass_pcap))


main()

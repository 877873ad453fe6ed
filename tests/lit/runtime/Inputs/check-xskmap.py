# SPDX-License-Identifier: Apache-2.0
#
# Checks a `forward` run of tests/lit/loader/xskmap.c's xsk_proto against
# `run` of it on the same packets, with consumer 1 bound to the ingress
# port's queue 0 and consumer 2 bound elsewhere (tests/lit/runtime/
# xskmap.test): the consumer's port got exactly the IPv4 packets run
# redirected (to consumer 1), in order; those redirected to consumer 2 were
# dropped and counted; the ingress port sent nothing; every redirect is
# counted once.
#
# usage: check-xskmap.py RUN.verdicts RUN-OUT.pcap FWD.json TX.pcap XSK.pcap

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "loader", "Inputs"))
from pcapcheck import packets  # noqa: E402


def main():
    verdicts, run_out, fwd_json, tx, xsk = sys.argv[1:6]
    fwd = json.load(open(fwd_json))
    kept = [line.split()[1] for line in open(verdicts)]
    kept = [v for v in kept if v in ("XDP_PASS", "XDP_TX", "XDP_REDIRECT")]
    outs = list(packets(run_out))
    redirected = [p for p, v in zip(outs, kept) if v == "XDP_REDIRECT"]
    want = [p for p in redirected if p[12:14] == b"\x08\x00"]
    got = list(packets(xsk))
    print(f"consumer port: {len(got)} packets, " +
          ("every IPv4 packet in order" if got == want and want else "DIFFERENT"))
    print(f"ingress port: {len(list(packets(tx)))} packets")
    r = fwd["actions"]["XDP_REDIRECT"]["packets"]
    ok = (fwd["redirect_xsk"] == len(want) and
          fwd["xsk_refused"] == len(redirected) - len(want) and
          fwd["redirect_xsk"] + fwd["xsk_refused"] == r)
    print(f"redirect_xsk {fwd['redirect_xsk']} + xsk_refused {fwd['xsk_refused']} "
          f"{'=' if fwd['redirect_xsk'] + fwd['xsk_refused'] == r else '!='} XDP_REDIRECT {r}"
          f" ({'as run' if ok else 'NOT as run'})")


main()

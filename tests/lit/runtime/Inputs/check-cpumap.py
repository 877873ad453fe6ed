# SPDX-License-Identifier: Apache-2.0
#
# Checks a `forward` run of a program that redirects into a cpumap against
# `run` of the same program on the same packets: the exception port got
# exactly the packets run redirected, in order (the program redirects
# nothing else), the port itself nothing, and the counters say so.
#
# usage: check-cpumap.py RUN.verdicts RUN-OUT.pcap FWD.json TX.pcap EXC.pcap

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "loader", "Inputs"))
from pcapcheck import packets  # noqa: E402


def main():
    verdicts, run_out, fwd_json, tx, exc = sys.argv[1:6]
    fwd = json.load(open(fwd_json))
    kept = [line.split()[1] for line in open(verdicts)]
    kept = [v for v in kept if v in ("XDP_PASS", "XDP_TX", "XDP_REDIRECT")]
    outs = list(packets(run_out))
    want = [p for p, v in zip(outs, kept) if v == "XDP_REDIRECT"]
    got = list(packets(exc))
    print(f"exception port: {len(got)} packets, " +
          ("every redirect into the cpumap in order" if got == want else "DIFFERENT"))
    print(f"port: {len(list(packets(tx)))} packets")
    r = fwd["actions"]["XDP_REDIRECT"]["packets"]
    print(f"redirect_cpu {fwd['redirect_cpu']} {'=' if fwd['redirect_cpu'] == r else '!='} "
          f"XDP_REDIRECT, pass_dropped {fwd['errors']['pass_dropped']}")


main()

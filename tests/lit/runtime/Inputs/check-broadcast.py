# SPDX-License-Identifier: Apache-2.0
#
# Checks a `forward` run of a broadcasting program (tests/lit/loader/
# broadcast.c, which sends every packet unchanged): which ports' tx pcaps
# got every input packet in order and which got none, the broadcast
# counters, and that every packet and copy is counted: each frame handed
# to a port (sent or refused by its ring) is a TX or REDIRECT verdict not
# counted as an error, or a broadcast's copy.
#
# usage: check-broadcast.py IN.pcap FWD.json PORT1-TX.pcap [PORT2-TX.pcap...]

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "loader", "Inputs"))
from pcapcheck import packets  # noqa: E402


def main():
    inp, fwd_json, txs = sys.argv[1], sys.argv[2], sys.argv[3:]
    fwd = json.load(open(fwd_json))
    ins = list(packets(inp))
    for i, tx in enumerate(txs):
        got = list(packets(tx))
        what = ("every packet, in order" if got == ins else
                "none" if not got else f"{len(got)} packets, DIFFERENT")
        print(f"port {i + 1}: {what}")
    e = fwd["errors"]
    print(f"received {fwd['packets']}, copies {fwd['broadcast_copies']}, "
          f"copies failed {e['broadcast_failed']}, redirected to no port {e['redirect_unknown']}")
    a = fwd["actions"]
    handed = sum(p["tx_packets"] + p["tx_full"] for p in fwd["ports"])
    to_send = (a["XDP_TX"]["packets"] + a["XDP_REDIRECT"]["packets"] - e["redirect_unknown"]
               - e["oversized"] + fwd["broadcast_copies"])
    print("accounting: every packet and copy counted" if handed == to_send else
          f"accounting: {to_send} frames to send, {handed} sent or refused")


main()

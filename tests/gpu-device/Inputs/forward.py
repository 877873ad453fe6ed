# SPDX-License-Identifier: Apache-2.0
#
# Checks of `ebpf-gpu-loader forward --json` summaries from the GPU; each
# prints one line ending in ok or WRONG and exits 1 on WRONG.
#   forward.py reflected JSON COUNT LABEL
#       COUNT packets, every one XDP_TX, and the port sent or found its tx
#       ring full for each (xdp_mac_swap through the generator port)
#   forward.py zeroed JSON COUNT LABEL
#       tests/lit/loader/headroom-zeroed.c: COUNT packets, every one XDP_TX
#       (the headroom its adjustments exposed held only zeros; XDP_DROP:
#       another packet's bytes)
#   forward.py exclusive JSON COUNT LABEL
#       tests/stress/percpu_exclusive.c: COUNT packets, the summed per-CPU
#       slice {no mark, every packet}, totals {CPU 0: every packet} (no
#       clash: two packets at once on one slice; no slice reached under
#       another CPU's number)
#   forward.py as-host JSON HOST_JSON MIN_RECLAIMS LABEL
#       the actions' packet counts and the maps are HOST_JSON's (the host
#       back end's, made by scripts/gpu-check.sh prepare), after at least
#       MIN_RECLAIMS reclaims on the device
#   forward.py reclaims JSON COUNT MIN_RECLAIMS strict|lax LABEL
#       COUNT packets, all of them in the actions, at least MIN_RECLAIMS
#       reclaims on the device, and with strict none XDP_ABORTED (the hash
#       stress's verdict for a torn value or a failed update)
import argparse
import json
import re
import sys


def reflected(r, a):
    p = r["ports"][0]
    ok = (r["packets"] == a.count and r["actions"]["XDP_TX"]["packets"] == a.count
          and p["tx_packets"] + p["tx_full"] == a.count)
    return ok, (f"{a.count} frames reflected (XDP_TX), {p['tx_packets']} sent, "
                f"{p['tx_full']} tx-full")


def zeroed(r, a):
    act = r["actions"]
    ok = r["packets"] == a.count and act["XDP_TX"]["packets"] == a.count
    return ok, (f"{act['XDP_TX']['packets']} of {a.count} frames found only zeros (XDP_TX), "
                f"{act['XDP_DROP']['packets']} another packet's bytes (XDP_DROP)")


def exclusive(r, a):
    text = r["maps"] if isinstance(r["maps"], str) else json.dumps(r["maps"])
    slot = re.search(r"slots\[0\] = ([0-9a-f]{48})", text).group(1)
    mark, counted = (int.from_bytes(bytes.fromhex(slot[i:i + 16]), "little") for i in (0, 16))
    totals = {int(k): int(v) for k, v in re.findall(r"totals\[(\d+)\] = (\d+)", text)}
    n = r["packets"]
    # Zero entries are not dumped.
    ok = n == a.count and mark == 0 and counted == n and totals == {0: n}
    return ok, f"{n} packets, slices {counted}, mark {mark}, totals {totals}"


def as_host(r, a):
    with open(a.host_json) as f:
        want = json.load(f)
    got = {"actions": {k: v["packets"] for k, v in r["actions"].items()}, "maps": r["maps"]}
    reclaims = r.get("gpu_reclaims", -1)
    ok = got == want and reclaims >= a.min_reclaims
    return ok, (f"{reclaims} reclaims, {r['packets']} packets, verdicts and maps "
                f"{'as the host back end' if got == want else 'DIFFER from the host back end'}")


def reclaims(r, a):
    n = sum(v["packets"] for v in r["actions"].values())
    bad = r["actions"]["XDP_ABORTED"]["packets"]
    done = r.get("gpu_reclaims", -1)
    ok = (r["packets"] == a.count and n == a.count and done >= a.min_reclaims
          and (bad == 0 or a.mode == "lax"))
    return ok, (f"{done} reclaims: {r['packets']} packets, {n} in actions, {bad} aborted, "
                f"map structure checked")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="check", required=True)
    for name, fn in (("reflected", reflected), ("zeroed", zeroed), ("exclusive", exclusive)):
        p = sub.add_parser(name)
        p.add_argument("json")
        p.add_argument("count", type=int)
        p.set_defaults(fn=fn)
    p = sub.add_parser("as-host")
    p.add_argument("json")
    p.add_argument("host_json")
    p.add_argument("min_reclaims", type=int)
    p.set_defaults(fn=as_host)
    p = sub.add_parser("reclaims")
    p.add_argument("json")
    p.add_argument("count", type=int)
    p.add_argument("min_reclaims", type=int)
    p.add_argument("mode", choices=("strict", "lax"))
    p.set_defaults(fn=reclaims)
    for p in sub.choices.values():
        p.add_argument("label")
    a = ap.parse_args()
    with open(a.json) as f:
        r = json.load(f)
    ok, what = a.fn(r, a)
    print(f"forward {a.label}: {what}: {'ok' if ok else 'WRONG'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

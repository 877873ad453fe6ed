#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# The end-to-end tables of docs/PERFORMANCE.md from the JSON lines
# scripts/bench-forward.sh writes (one `forward --json` summary a run, with
# the run's name, back end, program, workers, batch and extra arguments).
# usage: forward-report.py forward-scaling.jsonl [--title TEXT] > forward-scaling.md

import argparse
import json
import sys


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def mpps(r):
    return r["packets"] / r["busy_seconds"] / 1e6 if r.get("busy_seconds") else 0.0


def find(runs, **want):
    for r in runs:
        if all(r.get(k) == v for k, v in want.items()):
            return r
    return None


def cell(r):
    return "%.1f" % mpps(r) if r else "-"


def scaling_table(runs, name, backend, args, batches, workers, gen=6):
    out = ["| batch \\ workers | " + " | ".join(str(w) for w in workers) + " |",
           "|---|" + "---|" * len(workers)]
    for b in batches:
        row = [cell(find(runs, name=name, backend=backend, batch=b, workers=w, args=args,
                         gen_lcores=gen))
               for w in workers]
        if any(c != "-" for c in row):
            out.append("| %d | %s |" % (b, " | ".join(row)))
    return out


def run_table(runs):
    out = ["| run | back end | program | generator lcores | workers | batch | options | Mpps "
           "| batch p50 / p99 (us) | worker ns/packet: rx + submit + wait + act | generated Mpps |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in runs:
        l = r.get("batch_latency_us", {})
        n = r.get("ns_per_packet", {})
        out.append("| %s | %s | %s | %d | %d | %d | `%s` | %.1f | %.1f / %.1f | %.1f = %.1f + %.1f + %.1f + %.1f | %.1f |" % (
            r["name"], r["backend"], r["prog"], r.get("gen_lcores", 6), r["workers"], r["batch"],
            r["args"] or "-",
            mpps(r), l.get("p50", -1), l.get("p99", -1), n.get("total", 0), n.get("rx", 0),
            n.get("submit", 0), n.get("wait", 0), n.get("act", 0),
            r.get("generated", 0) / r["seconds"] / 1e6 if r.get("seconds") else 0))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl")
    ap.add_argument("--title", default="End to end through `forward`")
    a = ap.parse_args()
    runs = load(a.jsonl)
    if not runs:
        sys.exit("forward-report: no runs in " + a.jsonl)
    workers = sorted({r["workers"] for r in runs})
    batches = sorted({r["batch"] for r in runs})
    zc = "--gpu-mode launch --gpu-data mapped --zero-copy"
    lines = ["## " + a.title, ""]
    lines += ["GPU (launch mode, mapped, packets in place), port filter, Mpps by batch and workers:", ""]
    lines += scaling_table(runs, "gpu", "gpu", zc, batches, workers) + [""]
    lines += ["The same with mbufs sized for 64-byte frames (`--max-frame 128`):", ""]
    lines += scaling_table(runs, "gpu", "gpu", zc + " --max-frame 128", batches, workers) + [""]
    lines += ["Host back end (the JIT on the same worker cores), port filter, batch 4096:", ""]
    lines += scaling_table(runs, "host", "host", "--zero-copy", batches, workers) + [""]
    lines += ["Ceiling: the generator and the data plane with the null back end (no program):", ""]
    lines += scaling_table(runs, "ceiling", "null", "--zero-copy", batches, workers) + [""]
    lines += scaling_table(runs, "ceiling", "null", "--zero-copy --max-frame 128", batches, workers)
    lines += ["", "Every run:", ""] + run_table(runs)
    print("\n".join(lines))


if __name__ == "__main__":
    main()

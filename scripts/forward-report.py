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


def svg_plot(series, workers, lines, title):
    """Mpps against workers as an SVG (no plotting library needed): one
    polyline per series, dashed horizontal lines at the line rates."""
    W, H, L, R, T, B = 640, 400, 60, 190, 30, 50
    top = max([v for _, pts in series for _, v in pts] + [v for _, v in lines]) * 1.1
    xs = {w: L + (W - L - R) * i / max(len(workers) - 1, 1) for i, w in enumerate(workers)}
    y = lambda v: H - B - (H - T - B) * v / top
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="12">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="18" font-size="14">%s</text>' % (L, title),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, H - B, W - R, H - B),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (L, T, L, H - B),
           '<text x="%d" y="%d">worker lcores</text>' % ((L + W - R) // 2 - 40, H - 12),
           '<text x="14" y="%d" transform="rotate(-90 14 %d)">Mpps</text>' % (H // 2, H // 2)]
    for w, x in xs.items():
        out.append('<text x="%.0f" y="%d" text-anchor="middle">%d</text>' % (x, H - B + 16, w))
    step = 50 if top > 200 else 25
    for v in range(0, int(top) + 1, step):
        out.append('<text x="%d" y="%.0f" text-anchor="end">%d</text>' % (L - 6, y(v) + 4, v))
    colours = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#ff7f0e"]
    for i, (name, pts) in enumerate(series):
        c = colours[i % len(colours)]
        path = " ".join("%.0f,%.0f" % (xs[w], y(v)) for w, v in pts)
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (c, path))
        for w, v in pts:
            out.append('<circle cx="%.0f" cy="%.0f" r="3" fill="%s"/>' % (xs[w], y(v), c))
        out.append('<text x="%d" y="%d" fill="%s">%s</text>' % (W - R + 10, T + 16 * i + 10, c, name))
    for name, v in lines:
        out.append('<line x1="%d" y1="%.0f" x2="%d" y2="%.0f" stroke="grey" stroke-dasharray="6,4"/>'
                   % (L, y(v), W - R, y(v)))
        out.append('<text x="%d" y="%.0f" fill="grey">%s</text>' % (W - R + 10, y(v) + 4, name))
    out.append("</svg>")
    return "\n".join(out)


def series_of(runs, name, backend, args, batch, workers, gen=6):
    pts = []
    for w in workers:
        r = find(runs, name=name, backend=backend, batch=batch, workers=w, args=args, gen_lcores=gen)
        if r:
            pts.append((w, mpps(r)))
    return pts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl")
    ap.add_argument("--title", default="End to end through `forward`")
    ap.add_argument("--svg", help="also draw Mpps against workers into this SVG file")
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
    lines += ["The same, the generator replaying its frames on 4 lcores (`--gen-replay`):", ""]
    lines += scaling_table(runs, "replay", "gpu", zc + " --gen-replay", batches, workers, gen=4)
    lines += [""]
    lines += ["Host back end (the JIT on the same worker cores), port filter, batch 4096:", ""]
    lines += scaling_table(runs, "host", "host", "--zero-copy", batches, workers) + [""]
    lines += ["Ceiling: the generator and the data plane with the null back end (no program):", ""]
    lines += scaling_table(runs, "ceiling", "null", "--zero-copy", batches, workers) + [""]
    lines += scaling_table(runs, "ceiling", "null", "--zero-copy --max-frame 128", batches, workers)
    lat = [r for r in runs if r["name"] == "latency"]
    if lat:
        lines += ["", "Batch latency (first packet in to last out) and, for runs through the "
                  "executor's runner, its GPU round trip (a batch staged to its verdicts back), "
                  "one worker unless named:", "",
                  "| mode and options | workers | batch | Mpps | batch p50 / p99 (us) | GPU round trip p50 / p99 (us) |",
                  "|---|---|---|---|---|---|"]
        for r in lat:
            l, g = r.get("batch_latency_us", {}), r.get("gpu_round_trip_us")
            lines.append("| `%s` | %d | %d | %.2f | %.1f / %.1f | %s |" % (
                r["args"], r["workers"], r["batch"], mpps(r), l.get("p50", -1), l.get("p99", -1),
                "%.1f / %.1f" % (g["p50"], g["p99"]) if g else "-"))
    lines += ["", "Every run:", ""] + run_table(runs)
    print("\n".join(lines))
    if a.svg:
        series = [(label, pts) for label, pts in [
            ("GPU, 2 KiB mbufs", series_of(runs, "gpu", "gpu", zc, 4096, workers)),
            ("GPU, mbufs for 64 B", series_of(runs, "gpu", "gpu", zc + " --max-frame 128", 4096,
                                              workers)),
            ("GPU, replaying generator", series_of(runs, "replay", "gpu", zc + " --gen-replay",
                                                   4096, workers, gen=4)),
            ("host JIT", series_of(runs, "host", "host", "--zero-copy", 4096, workers)),
            ("null (ceiling), 64 B", series_of(runs, "ceiling", "null",
                                               "--zero-copy --max-frame 128", 4096, workers)),
        ] if pts]
        with open(a.svg, "w") as f:
            f.write(svg_plot(series, workers, [("100GbE 148.8", 148.8), ("400GbE 595.2", 595.2)],
                             "forward, port filter, 64-byte frames, batch 4096"))


if __name__ == "__main__":
    main()

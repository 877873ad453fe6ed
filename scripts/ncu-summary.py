#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Summarises an Nsight Compute profile of one benchmark pair (what
`scripts/bench.sh profile` writes: the details page and the per-instruction
SASS page as text) into JSON for scripts/bench-report.py: per kernel (the
last launch of each name: a converging program's settled pass), its
duration, registers, occupancy, memory throughput, warp stall reasons as
shares of all samples, and the SASS instructions with the most samples.

usage: ncu-summary.py PROFILE_DIR > summary.json"""

import csv
import json
import os
import re
import sys

METRICS = {
    "Duration": "duration",
    "Registers Per Thread": "registers",
    "Achieved Occupancy": "occupancy_pct",
    "Theoretical Occupancy": "theoretical_occupancy_pct",
    "Memory Throughput": "memory_throughput",
    "L2 Cache Throughput": "l2_pct",
    "DRAM Throughput": "dram_pct",
}


def details(path):
    """Kernel name -> metrics of its last launch in the details page."""
    out, cur = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^  (\S+) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
        if m:
            cur = {}
            out[m.group(1)] = cur
            continue
        if cur is None:
            continue
        m = re.match(r"^\s{4}(\S.*?\S)\s{2,}(\S+)?\s+([\d,.]+)\s*$", line)
        if m and m.group(1) in METRICS:
            key, unit, value = METRICS[m.group(1)], m.group(2) or "", float(m.group(3).replace(",", ""))
            if key == "duration":
                value *= {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}.get(unit, 1.0)
                key = "duration_us"
            elif key == "memory_throughput":
                if unit != "%":
                    continue
                key = "memory_pct"
            cur.setdefault(key, value)
    return out


def sass(path, top=6):
    """Kernel name -> stall shares and hottest instructions of its last launch."""
    rows = list(csv.reader(open(path, errors="replace")))
    blocks, cur = {}, None
    for r in rows:
        if not r:
            continue
        if r[0] == "Kernel Name":
            cur = {"rows": []}
            blocks[r[1]] = cur
        elif r[0] == "Address" and cur is not None:
            cur["hdr"] = {c: i for i, c in enumerate(r)}
        elif cur is not None and "hdr" in cur:
            cur["rows"].append(r)
    out = {}
    for name, b in blocks.items():
        h = b["hdr"]
        samples_col = h.get("Warp Stall Sampling (All Samples)")
        if samples_col is None:
            continue
        stall_cols = [c for c in h if c.startswith("stall_") and "Not Issued" not in c]
        num = lambda r, c: int(float(r[h[c]] or 0)) if h[c] < len(r) else 0
        total = sum(int(float(r[samples_col] or 0)) for r in b["rows"]) or 1
        stalls = {c[6:]: 0 for c in stall_cols}
        for r in b["rows"]:
            for c in stall_cols:
                stalls[c[6:]] += num(r, c)
        hot = sorted(b["rows"], key=lambda r: -int(float(r[samples_col] or 0)))[:top]
        out[name] = {
            "samples": total,
            "instructions": len(b["rows"]),
            "stalls": {k: round(v / total, 4) for k, v in sorted(stalls.items(), key=lambda x: -x[1]) if v},
            "hot": [{"share": round(int(float(r[samples_col] or 0)) / total, 4),
                     "reason": max(stall_cols, key=lambda c: num(r, c))[6:],
                     "sass": r[1].strip(),
                     "executed": int(float(r[h["Instructions Executed"]] or 0))} for r in hot],
        }
    return out


def main():
    d = sys.argv[1]
    det = details(os.path.join(d, "details.txt"))
    ins = sass(os.path.join(d, "sass.csv")) if os.path.exists(os.path.join(d, "sass.csv")) else {}
    kernels = {}
    for name in det:
        kernels[name] = dict(det[name], **ins.get(name, {}))
    json.dump({"kernels": kernels}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

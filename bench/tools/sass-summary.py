#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Static instruction counts of GPU kernels from nvdisasm's output (`nvdisasm
# -c file.cubin`): per kernel, the SASS instructions (NOPs left out), branch
# and barrier-like control instructions, and each memory instruction kind
# (LDG/STG global, LD/ST generic, LDL/STL local, ATOM/RED atomics, CCTL cache
# invalidations that acquire loads bring). Used to compare compiled programs
# with their CUDA twins without a GPU (bench/NOTES.md):
#   ptxas -arch=sm_90 prog.ptx -o prog.cubin && nvdisasm -c prog.cubin > prog.sass
#   bench/tools/sass-summary.py prog.sass twin.sass
import collections
import re
import sys

MEMORY = ("LDG", "STG", "LDL", "STL", "LDS", "STS", "LDC", "ATOM", "ATOMG", "ATOMS", "RED",
          "LD", "ST", "CCTL", "MEMBAR", "BAR", "ERRBAR", "FENCE")
CONTROL = ("BRA", "BSSY", "BSYNC", "WARPSYNC", "CALL", "RET", "EXIT", "BREAK", "YIELD")


def kernels(path):
    out, cur = collections.OrderedDict(), None
    for line in open(path):
        m = re.match(r"\s*\.section\s+\.text\.(\w+)", line)
        if m:
            cur = m.group(1)
            out[cur] = []
            continue
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if m and cur:
            out[cur].append(m.group(1))
    return out


def summary(insns):
    c = collections.Counter()
    for i in insns:
        op = re.sub(r"^@!?U?P\w+\s+", "", i).split()[0]
        base = op.split(".")[0]
        if base == "NOP":
            continue
        c["total"] += 1
        if base in CONTROL:
            c["control"] += 1
        elif base in MEMORY:
            c[op if base in ("LDG", "STG", "LD", "ST", "ATOM", "ATOMG", "RED") else base] += 1
    return c


def main(paths):
    if not paths:
        print("usage: sass-summary.py FILE.sass...", file=sys.stderr)
        return 2
    for p in paths:
        try:
            ks = kernels(p)
        except OSError as e:
            print(f"sass-summary: {p}: {e.strerror}", file=sys.stderr)
            return 1
        for name, insns in ks.items():
            c = summary(insns)
            mem = " ".join(f"{k}={v}" for k, v in sorted(c.items()) if k not in ("total", "control"))
            print(f"{p}: {name}: instructions={c['total']} control={c['control']} {mem}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Asks our verifier and (with --kernel) the running kernel's about every
# program of the given objects and prints one line per program and a
# summary: how many of the programs the kernel accepts are accepted here.
# Fails when we accept a program the kernel refuses (a soundness bug), or
# refuse more programs it accepts than --known-gaps (precision gaps).

import argparse
import os
import re
import subprocess
import sys
import tempfile


def programs(cc, obj):
    out = subprocess.run([cc, obj, "--emit=insns"], capture_output=True, text=True, check=True)
    return re.findall(r"^program (\S+) \(section", out.stdout, re.M)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", default="ebpf-gpu-cc")
    ap.add_argument("--loader", default="ebpf-gpu-loader")
    ap.add_argument("--trafgen", default="ebpf-gpu-trafgen")
    ap.add_argument("--kernel", action="store_true", help="ask the running kernel too")
    ap.add_argument("--known-gaps", type=int, default=0,
                    help="programs the kernel accepts and we are known to refuse")
    ap.add_argument("objects", nargs="+")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        pcap = os.path.join(work, "one.pcap")
        subprocess.run([args.trafgen, "-o", pcap, "--count", "1"], check=True, capture_output=True)
        total = ours_ok = kernel_ok = both = gaps = unsound = 0
        for obj in args.objects:
            for name in programs(args.cc, obj):
                total += 1
                r = subprocess.run([args.cc, obj, "--section", name, "--emit=verifier-log"],
                                   capture_output=True, text=True)
                last = (r.stdout.strip().splitlines() or [""])[-1]
                ours = last.startswith("verified:")
                ours_ok += ours
                line = f"{os.path.basename(obj)}:{name}: ours " + (
                    "accepts (" + last.split(":")[1].split(",")[0].strip() + ")" if ours
                    else "refuses: " + last)
                if args.kernel:
                    k = subprocess.run([args.loader, "run", obj, "--section", name, "--pcap", pcap,
                                        "--backend", "kernel"], capture_output=True, text=True)
                    if k.returncode != 0 and "the kernel refused" not in k.stderr:
                        print(f"{obj}:{name}: the kernel was not asked: {k.stderr.strip()[:300]}")
                        return 2
                    theirs = k.returncode == 0
                    kernel_ok += theirs
                    both += ours and theirs
                    line += ", kernel " + ("accepts" if theirs else "refuses")
                    if theirs and not ours:
                        gaps += 1
                        line += "  <-- PRECISION GAP"
                    if ours and not theirs:
                        unsound += 1
                        line += "  <-- SOUNDNESS: only ours accepts"
                print(line)
        if args.kernel:
            print(f"{total} programs: the kernel accepts {kernel_ok}, ours accepts {both} of them "
                  f"({100.0 * both / max(kernel_ok, 1):.1f}%); only ours accepts {unsound}")
        else:
            print(f"{total} programs: ours accepts {ours_ok}")
        return 1 if gaps > args.known_gaps or unsound else 0


if __name__ == "__main__":
    sys.exit(main())

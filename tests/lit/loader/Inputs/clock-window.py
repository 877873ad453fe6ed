#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Checks that time helpers read the right clock: runs a command (a loader
# run that dumps maps), reading the host's clocks just before and just after
# it, then checks that each named entry of the dump lies in its clock's
# window. Prints one line per entry; exits 1 when one lies outside.
#
# usage: clock-window.py MAPS_FILE MAP[KEY]=CLOCK... -- COMMAND...
# CLOCK: mono, coarse, boot, tai (CLOCK_MONOTONIC, _COARSE, CLOCK_BOOTTIME,
# CLOCK_TAI).

import re
import subprocess
import sys
import time

CLOCKS = {
    "mono": time.CLOCK_MONOTONIC,
    "coarse": getattr(time, "CLOCK_MONOTONIC_COARSE", 6),
    "boot": time.CLOCK_BOOTTIME,
    "tai": time.CLOCK_TAI,
}


def main(argv):
    if "--" not in argv or len(argv) < 4:
        print("usage: clock-window.py MAPS_FILE MAP[KEY]=CLOCK... -- COMMAND...",
              file=sys.stderr)
        return 2
    sep = argv.index("--")
    maps_file, specs, cmd = argv[1], argv[2:sep], argv[sep + 1:]
    before = {name: time.clock_gettime_ns(c) for name, c in CLOCKS.items()}
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL)
    after = {name: time.clock_gettime_ns(c) for name, c in CLOCKS.items()}
    if r.returncode != 0:
        print(f"command failed with exit status {r.returncode}: {' '.join(cmd)}")
        return 1
    values = {}
    for line in open(maps_file):
        m = re.match(r"\s*(\w+\[\d+\]) = (\d+)\s*$", line)
        if m:
            values[m.group(1)] = int(m.group(2))
    bad = 0
    for spec in specs:
        entry, _, clock = spec.partition("=")
        if clock not in CLOCKS:
            print(f"unknown clock '{clock}' in '{spec}'")
            return 2
        if entry not in values:
            print(f"{entry}: not in {maps_file}")
            bad += 1
            continue
        lo, hi = before[clock], after[clock]
        v = values[entry]
        if lo <= v <= hi:
            print(f"{entry}: within {clock}'s window")
        else:
            print(f"{entry}: {v} outside {clock}'s window [{lo}, {hi}]")
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

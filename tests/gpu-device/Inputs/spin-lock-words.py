# SPDX-License-Identifier: Apache-2.0
#
# Checks a map dump of tests/lit/loader/spin-lock-update.c's program after a
# GPU run: every value of `flows` and `slots` has its lock word (bytes 8-11)
# at zero, whatever the program's updates wrote there, and no read under a
# lock saw a value half written (`torn`). Exits 1 naming the first value
# that differs.

import re
import sys

values, torn = 0, 0  # a dump leaves a zero count out
with open(sys.argv[1]) as f:
    for line in f:
        line = line.strip()
        m = re.match(r"(flows\{[0-9a-f]+\}|slots\[\d+\]) = ([0-9a-f]{48})$", line)
        if m:
            raw = bytes.fromhex(m.group(2))
            if raw[8:12] != b"\0\0\0\0":
                sys.exit(f"{m.group(1)}: the lock word reads {raw[8:12].hex()}")
            values += 1
        m = re.match(r"torn\[0\] = (\d+)$", line)
        if m:
            torn = int(m.group(1))
if values == 0:
    sys.exit("no values of flows or slots in the dump")
if torn:
    sys.exit(f"{torn} reads under a lock saw a value half written")
print(f"{values} values unlocked after the run, no read under a lock saw a half-written value")

# SPDX-License-Identifier: Apache-2.0
# percpu-block-adds.c's counters, summed over both keys (per-CPU values are
# dumped as the sum of every CPU's slice): COUNT packets, 3 * COUNT in
# `small`, and `pad` still 0. Prints what it found; exits 1 on a mismatch.
import re
import sys

text = open(sys.argv[1]).read()
count = int(sys.argv[2])
packets = small = pad = 0
for value in re.findall(r"^stats\[\d\] = ([0-9a-f]{48})$", text, re.M):
    raw = bytes.fromhex(value)
    packets += int.from_bytes(raw[0:8], "little")
    small += int.from_bytes(raw[16:20], "little")
    pad += int.from_bytes(raw[20:24], "little")
print(f"packets {packets}, small {small}, pad {pad}")
sys.exit(0 if (packets, small, pad) == (count, 3 * count, 0) else 1)

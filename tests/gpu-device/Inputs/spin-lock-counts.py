# SPDX-License-Identifier: Apache-2.0
#
# Checks a map dump of tests/lit/loader/spin-lock.c's program: each slot's
# count, kept under the value's bpf_spin_lock, equals the atomic count of
# the same slot, and the lock word (bytes 8-11 of the value) reads zero.
# Exits 1 naming the first slot that differs.

import re
import sys

counts, checks = {}, {}
with open(sys.argv[1]) as f:
    for line in f:
        m = re.match(r"counters\[(\d+)\] = ([0-9a-f]{48})$", line.strip())
        if m:
            raw = bytes.fromhex(m.group(2))
            if raw[8:12] != b"\0\0\0\0":
                sys.exit(f"counters[{m.group(1)}]: the lock word reads {raw[8:12].hex()}")
            counts[int(m.group(1))] = int.from_bytes(raw[0:8], "little")
        m = re.match(r"checks\[(\d+)\] = (\d+)$", line.strip())
        if m:
            checks[int(m.group(1))] = int(m.group(2))
if not checks:
    sys.exit("no counts in the dump")
for slot, n in sorted(checks.items()):
    if counts.get(slot, 0) != n:
        sys.exit(f"slot {slot}: {counts.get(slot, 0)} counted under the lock, {n} atomically")
print(f"{sum(checks.values())} packets counted under the lock, none lost")

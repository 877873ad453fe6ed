# SPDX-License-Identifier: Apache-2.0
#
# Checks a map dump of tests/stress/queue_stress.c: no push or pop refused,
# every ticket handed out either popped exactly once or still in the map
# exactly once, for the queue and the stack alike. Prints one line; exits
# 1 on a fault.
import re
import sys

text = open(sys.argv[1]).read()
counters = {int(i): int(v) for i, v in re.findall(r"^counters\[(\d+)\] = (\d+)$", text, re.M)}
tickets = counters.get(0, 0)
if counters.get(1, 0) or counters.get(2, 0):
    print(f"{counters.get(1, 0)} pushes and {counters.get(2, 0)} pops refused")
    sys.exit(1)
for name in ("q", "st"):
    seen = {}
    for i, v in re.findall(rf"^{name}_seen\[(\d+)\] = ([0-9a-f ]+)$", text, re.M):
        seen[int(i)] = int.from_bytes(bytes.fromhex(v.replace(" ", "")), "little")
    left = [int(v) for v in re.findall(rf"^{name}<\d+> = (\d+)$", text, re.M)]
    twice = [t for t, n in seen.items() if n != 1]
    if twice:
        print(f"{name}: ticket {twice[0]} popped {seen[twice[0]]} times")
        sys.exit(1)
    if len(set(left)) != len(left):
        print(f"{name}: a ticket is in the map twice")
        sys.exit(1)
    both = set(left) & set(seen)
    if both:
        print(f"{name}: ticket {min(both)} popped and still in the map")
        sys.exit(1)
    missing = set(range(tickets)) - set(left) - set(seen)
    if missing or len(left) + len(seen) != tickets:
        print(f"{name}: {len(missing)} tickets lost (first {min(missing) if missing else '-'}), "
              f"{len(left) + len(seen)} accounted for of {tickets}")
        sys.exit(1)
    if len(seen) != tickets // 2:
        print(f"{name}: {len(seen)} pops, {tickets // 2} expected")
        sys.exit(1)
print(f"{tickets} tickets: each popped once or left once, queue and stack")

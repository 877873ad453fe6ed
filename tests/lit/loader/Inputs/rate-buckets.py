# SPDX-License-Identifier: Apache-2.0
#
# Reads xdp_rate_limit's map dump. Without --masked: checks every bucket
# (tokens left 0..4, a refill time set) and prints the number of sources
# and the tokens they took (5 per source less what is left, the first
# packet's included). With --masked: prints the dump with each bucket's
# refill time (the clock's) replaced by "T", for comparisons.

import re
import sys

BURST = 5
masked = sys.argv[1] == "--masked"
lines = open(sys.argv[-1]).read().splitlines()
bucket = re.compile(r"^rate_buckets\{([0-9a-f]{8})\} = ([0-9a-f]{16})([0-9a-f]{16})$")
sources = taken = 0
for line in lines:
    m = bucket.match(line)
    if masked:
        print(f"rate_buckets{{{m.group(1)}}} = {m.group(2)}T" if m else line)
        continue
    if not m:
        continue
    tokens = int.from_bytes(bytes.fromhex(m.group(2)), "little")
    refilled = int.from_bytes(bytes.fromhex(m.group(3)), "little")
    if tokens >= BURST or refilled == 0:
        print(f"bad bucket: {line}")
        sys.exit(1)
    sources += 1
    taken += BURST - tokens
if not masked:
    print(f"{sources} sources, {taken} tokens taken, every refill time set")

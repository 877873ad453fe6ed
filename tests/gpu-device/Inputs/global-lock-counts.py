# SPDX-License-Identifier: Apache-2.0
#
# Reads a map dump of tests/lit/loader/spin-lock-global.c's program: the
# .bss section's lock word (bytes 0-3), the count kept under the lock
# (bytes 8-15) and the atomic count (bytes 24-31), printed for FileCheck.

import re
import sys

m = re.search(r"^\.bss\[0\] = ([0-9a-f]+)$", open(sys.argv[1]).read(), re.M)
if not m:
    sys.exit("no .bss in the dump")
b = bytes.fromhex(m.group(1))
n = lambda o: int.from_bytes(b[o:o + 8], "little")
print("lock", b[0:4].hex(), "under the lock", n(8), "atomic", n(24))

# SPDX-License-Identifier: Apache-2.0
#
# Checks a map dump of tests/stress/hash_stress.c against the host back
# end's: every value self-consistent, and the insert-only keys (class 0)
# exactly as the host has them. Prints one line; exits 1 on a fault.
import re
import sys

K1, K2, MASK = 0x9e3779b97f4a7c15, 0x5555aaaa5555aaaa, (1 << 64) - 1


def load(path):
    out = {}
    for key, value in re.findall(r"table\{([0-9a-f]+)\} = ([0-9a-f]+)", open(path).read()):
        k = int.from_bytes(bytes.fromhex(key), "little")
        a, b, c = (int.from_bytes(bytes.fromhex(value[i:i + 16]), "little") for i in (0, 16, 32))
        if b != (a * K1) & MASK or c != a ^ K2:
            print(f"torn value for key {k}: {a:#x} {b:#x} {c:#x}")
            sys.exit(1)
        out[k] = a
    return out


got, want = load(sys.argv[1]), load(sys.argv[2])
class0 = lambda m: {k: v for k, v in m.items() if k & 3 == 0}
if class0(got) != class0(want):
    print(f"insert-only keys differ: {len(class0(got))} here, {len(class0(want))} on the host")
    sys.exit(1)
print(f"{len(got)} keys, all values consistent, {len(class0(got))} insert-only keys as on the host")

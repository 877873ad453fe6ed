# SPDX-License-Identifier: Apache-2.0
#
# The GPU's results against the host back end's: `digest.py EXPECTED FILE...`
# hashes the files one after the other (as `cat FILE... | sha256sum` does)
# and compares with the digest `scripts/gpu-check.sh prepare` wrote into
# EXPECTED from the host's run on the same traffic. Exit 1 if they differ.
import hashlib
import sys

expected_file, files = sys.argv[1], sys.argv[2:]
h = hashlib.sha256()
for name in files:
    with open(name, "rb") as f:
        h.update(f.read())
expected = open(expected_file).read().strip()
if h.hexdigest() == expected:
    print(f"same as the host's ({expected_file}: {expected})")
    sys.exit(0)
print(f"DIFFERS from the host's: {h.hexdigest()} over {' '.join(files)}, "
      f"host {expected} ({expected_file})")
sys.exit(1)

# SPDX-License-Identifier: Apache-2.0
#
# `each-listed.py LIST DIR`: every program LIST names (one a line: the
# carry's samples/list, the samples prepare compiles and runs on the host)
# has its test DIR/PROGRAM.test. Exit 1 naming those that have none.
import os
import sys

listed, tests = sys.argv[1], sys.argv[2]
with open(listed) as f:
    names = [line.strip() for line in f if line.strip()]
missing = [n for n in names if not os.path.exists(os.path.join(tests, n + ".test"))]
if missing:
    print(f"no test in {tests} for: {' '.join(missing)}")
    sys.exit(1)
print(f"{len(names)} samples listed, each with its test")

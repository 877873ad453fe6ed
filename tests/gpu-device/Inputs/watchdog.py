# SPDX-License-Identifier: Apache-2.0
#
# The watchdog's check: `watchdog.py SECONDS -- COMMAND...` runs COMMAND
# (a loader run of a program that never returns, killed after 60 s) and
# passes if it exits 1 within SECONDS, saying the GPU kernel did not
# finish. Prints the command's output and how long it took.
import re
import subprocess
import sys
import time

limit, argv = float(sys.argv[1]), sys.argv[sys.argv.index("--") + 1:]
start = time.monotonic()
try:
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    rc, out = r.returncode, r.stdout + r.stderr
except subprocess.TimeoutExpired as e:
    rc, out = "timeout", (e.stdout or b"").decode() + (e.stderr or b"").decode()
took = time.monotonic() - start
print(out, end="")
seen = re.search(r"watchdog: the (persistent )?GPU (batch )?kernel did not finish", out)
if rc == 1 and seen and took < limit:
    print(f"watchdog: detected, exit 1 after {took:.2f} s")
    sys.exit(0)
print(f"watchdog: FAILED (exit {rc} after {took:.2f} s, "
      f"{'with' if seen else 'without'} the watchdog's message)")
sys.exit(1)

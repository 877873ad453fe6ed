# Runs a command and prints its exit status after its output, so lit tests
# can check exact exit codes ("exit 2" for usage errors).
import subprocess
import sys

r = subprocess.run(sys.argv[1:])
sys.stdout.flush()
print(f"exit {r.returncode}", flush=True)

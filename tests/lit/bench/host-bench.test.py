# SPDX-License-Identifier: Apache-2.0
# host-bench.test's checker: ebpf-gpu-host-bench's JSON against the verdict
# counts the loader printed for the same packets (NAME=FILE arguments), and
# every program timed at each thread count with a positive rate.
import json
import re
import sys

doc = json.load(open(sys.argv[1]))
progs = {p["name"]: p for p in doc["programs"]}
for arg in sys.argv[2:]:
    name, path = arg.split("=", 1)
    counts = [int(m) for m in re.findall(r"XDP_[A-Z]+ +(\d+)", open(path).read())]
    if counts != progs[name]["actions"]:
        sys.exit(f"{name}: the loader counted {counts}, the bench {progs[name]['actions']}")
    print(f"{name}: the loader's verdict counts")
runs = sorted({(t["threads"], t["prefetch"]) for p in doc["programs"] for t in p["host"]})
for p in doc["programs"]:
    if sorted((t["threads"], t["prefetch"]) for t in p["host"]) != runs or any(t["mpps"] <= 0 for t in p["host"]):
        sys.exit(f"{p['name']}: not timed at every thread count and prefetch distance")
threads = sorted({r[0] for r in runs})
prefetch = sorted({r[1] for r in runs})
print(f"{len(progs)} programs, {' and '.join(map(str, threads))} threads timed, "
      f"prefetch {' and '.join(map(str, prefetch))}")

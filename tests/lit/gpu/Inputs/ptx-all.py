# SPDX-License-Identifier: Apache-2.0
# Compiles every .hex program in a folder to PTX (raw platform) and
# assembles it with ptxas for sm_90; prints a count, and each failure.
import argparse
import concurrent.futures
import os
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--cc", required=True)
ap.add_argument("--ptxas", required=True)
ap.add_argument("--work", required=True)
ap.add_argument("folder")
args = ap.parse_args()
os.makedirs(args.work, exist_ok=True)
names = sorted(f[:-4] for f in os.listdir(args.folder) if f.endswith(".hex"))


def one(name):
    ptx = os.path.join(args.work, name + ".ptx")
    r = subprocess.run([args.cc, "--input=hex", "--platform=raw", "--emit=ptx", "--no-verify",
                        os.path.join(args.folder, name + ".hex"), "-o", ptx],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f"{name}: ebpf-gpu-cc: {r.stderr.strip()}"
    r = subprocess.run([args.ptxas, "-arch=sm_90", ptx, "-o", ptx + ".cubin"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f"{name}: ptxas: {r.stderr.strip()}"
    return None


with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
    failures = [f for f in pool.map(one, names) if f]
for f in failures:
    print("FAIL", f)
print(f"{len(names)} programs, {len(names) - len(failures)} accepted by ptxas")
sys.exit(1 if failures else 0)

# SPDX-License-Identifier: Apache-2.0
#
# lit configuration of the checks that run on the lent GPU machine
# (`scripts/gpu-check.sh device`). That machine has no LLVM, clang, lit or
# FileCheck: everything the tests run comes from the carry that
# `scripts/gpu-check.sh prepare` stages here (.gpu-carry: the LLVM-free
# loader, the traffic generator, the programs compiled to .gpu.o, the host
# back end's results as digests, lit itself, FileCheck and its libraries,
# the DPDK loader). Parameters (--param NAME=VALUE):
#   carry=DIR      the carry (default: .gpu-carry beside tests/)
#   exec_root=DIR  where the tests' files go (default: a folder in /tmp)
#   dpdk=DIR       the DPDK loader unpacked from the carry's dpdk.tar.xz
#                  (default: unpacked into exec_root)
#   filecheck=DIR  FileCheck and its libraries unpacked from the carry's
#                  filecheck.tar.xz (default: unpacked into exec_root)
#   on_device=1    on the GPU machine: a feature that does not probe is an
#                  error, so a broken driver fails the run, not skips it
# Features, each enabled only after a probe:
#   cuda-gpu  the carried loader runs a program on the GPU here
#   dpdk      the carried DPDK loader forwards a packet through the GPU here
#   multi-gpu nvidia-smi -L lists two GPUs or more (multigpu/: tests of two
#             distinct GPUs, UNSUPPORTED on one)
# Substitutions: %loader (LLVM-free), %dpdk-loader (a command line) and
# %dpdk-wrapper (one executable) for the DPDK one, %trafgen, %carry, %src,
# %inputs, %daemon-inputs (tests/lit/daemon/Inputs: daemon.py, check.py),
# %python.

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

import lit.formats

config.name = "ebpf-gpu-device"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
# api/ is a suite of its own, run from the C API's carry (its lit.cfg.py).
config.excludes = ["Inputs", "api"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.abspath(
    lit_config.params.get("exec_root")
    or os.path.join(tempfile.gettempdir(), "ebpf-gpu-device-tests"))
# One test at a time, as the GPU machine's checks always ran: the timings
# inside them (watchdogs, forward's lanes) assume the GPU to themselves.
lit_config.parallelism_groups["gpu"] = 1
config.parallelism_group = "gpu"

src = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
carry = os.path.abspath(lit_config.params.get("carry") or os.path.join(src, ".gpu-carry"))
on_device = lit_config.params.get("on_device", "0") == "1"
if not os.path.isdir(os.path.join(carry, "samples")):
    lit_config.fatal(f"no carry at {carry}: run scripts/gpu-check.sh prepare (or pass --param carry=DIR)")
bin_dir = os.path.join(carry, "bin")
loader = os.path.join(bin_dir, "ebpf-gpu-loader")
trafgen = os.path.join(bin_dir, "ebpf-gpu-trafgen")

config.substitutions.append(("%loader", loader))
config.substitutions.append(("%trafgen", trafgen))
config.substitutions.append(("%carry", carry))
config.substitutions.append(("%src", src))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%python", sys.executable))


def unpacked(param, tarball):
    """The folder PARAM names, else TARBALL of the carry unpacked afresh
    into the exec root (a carry prepared again replaces what is there)."""
    if lit_config.params.get(param):
        return os.path.abspath(lit_config.params[param])
    path = os.path.join(config.test_exec_root, param)
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(os.path.join(carry, tarball)):
        with tarfile.open(os.path.join(carry, tarball)) as t:
            # Plain files of our own making (older Pythons have no filters).
            t.extractall(path, **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))
    return path


os.makedirs(config.test_exec_root, exist_ok=True)
# FileCheck is the carried one (its libraries beside it in lib/, found
# through its $ORIGIN/../lib run path); nothing else of the machine is
# shadowed.
filecheck = unpacked("filecheck", "filecheck.tar.xz")
if not os.access(os.path.join(filecheck, "bin", "FileCheck"), os.X_OK):
    lit_config.fatal(f"no FileCheck in {filecheck}/bin: run scripts/gpu-check.sh prepare")
config.environment["PATH"] = os.pathsep.join([os.path.join(filecheck, "bin"), os.environ["PATH"]])
dpdk = unpacked("dpdk", "dpdk.tar.xz")
dpdk_loader = os.path.join(dpdk, "ebpf-gpu-loader")
# The same as one executable, for helpers that take a loader's path (the
# daemon tests' check.py and daemon.py).
dpdk_wrapper = os.path.join(config.test_exec_root, "dpdk-loader.sh")
with open(dpdk_wrapper, "w") as f:
    f.write(f"#!/bin/sh\nLD_LIBRARY_PATH={os.path.join(dpdk, 'lib')} exec {dpdk_loader} \"$@\"\n")
os.chmod(dpdk_wrapper, 0o755)
config.substitutions.append(("%dpdk-wrapper", dpdk_wrapper))
config.substitutions.append(
    ("%dpdk-loader", f"env LD_LIBRARY_PATH={os.path.join(dpdk, 'lib')} {dpdk_loader}"))
config.substitutions.append(("%daemon-inputs", os.path.join(src, "tests", "lit", "daemon", "Inputs")))


def probe(what, argv):
    """Runs argv; None if it succeeds, else why not (for the notes)."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as e:
        return f"{what}: {e}"
    if r.returncode != 0:
        return f"{what}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-2000:]}"
    return None


def probe_features():
    # The pass-all sample's .gpu.o on the GPU: one packet through the
    # LLVM-free loader, 64 through the DPDK loader's generator port.
    missing = {}
    with tempfile.TemporaryDirectory() as d:
        pcap = os.path.join(d, "one.pcap")
        pass_all = os.path.join(carry, "samples", "xdp_pass_all.gpu.o")
        why = (probe("nvidia-smi -L", ["nvidia-smi", "-L"])
               or probe("ebpf-gpu-trafgen", [trafgen, "-o", pcap, "--count", "1"])
               or probe("ebpf-gpu-loader run on the GPU", [loader, "run", pass_all, "--pcap", pcap]))
        if why:
            missing["cuda-gpu"] = why
        else:
            config.available_features.add("cuda-gpu")
            gpus = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
            count = sum(1 for l in gpus.stdout.splitlines() if l.startswith("GPU "))
            if count >= 2:
                config.available_features.add("multi-gpu")
            else:
                lit_config.note(f"multi-gpu tests unsupported: nvidia-smi -L lists {count} GPU(s)")
            why = probe("the DPDK loader's forward on the GPU",
                        ["env", f"LD_LIBRARY_PATH={os.path.join(dpdk, 'lib')}", dpdk_loader, "forward",
                         pass_all, "--port", "gen", "--gen-pcap", pcap, "--count", "64"])
            if why:
                missing["dpdk"] = why
            else:
                config.available_features.add("dpdk")
    return missing


missing = probe_features()
for feature, why in missing.items():
    if on_device:
        lit_config.fatal(f"{feature} is missing on the GPU machine (on_device=1): {why}")
    lit_config.note(f"{feature} tests skipped: {why}")

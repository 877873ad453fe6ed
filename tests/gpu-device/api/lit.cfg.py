# SPDX-License-Identifier: Apache-2.0
#
# lit configuration of the C API's checks on the lent GPU machine
# (`scripts/gpu-check.sh device-api`), a suite of its own (the main suite,
# one folder up, leaves this folder out) because it runs from a carry of its
# own: .gpu-carry-api, which `scripts/gpu-check.sh prepare-api` stages here
# (libebpf-gpu built without the compiler, the tests/api programs linked
# against it, the .gpu.o files they run, the traffic and digests of the
# host back end's results on it, lit itself). No FileCheck: the checks are
# the programs' own, grep and sha256sum. Parameters (--param NAME=VALUE):
#   carry=DIR      the carry (default: .gpu-carry-api beside tests/)
#   exec_root=DIR  where the tests' files go (default: a folder in /tmp)
#   on_device=1    on the GPU machine: a GPU that does not probe is an
#                  error, not a reason to skip
# Features, each enabled only after a probe:
#   cuda-gpu  the carried library runs a .gpu.o on the GPU here
#   dpdk-rx   the carry has samples/dpdk_xdp_rx (rx.tar.xz: prepare-api
#             makes it where DPDK is installed)
# Substitutions: %carry, %consumer, %pcap-burst, %dpdk-xdp-rx (a command
# line: the sample with its DPDK libraries), %src, %python.

import os
import subprocess
import sys
import tarfile
import tempfile

import lit.formats

config.name = "ebpf-gpu-device-api"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.abspath(
    lit_config.params.get("exec_root")
    or os.path.join(tempfile.gettempdir(), "ebpf-gpu-device-api-tests"))
lit_config.parallelism_groups["gpu"] = 1
config.parallelism_group = "gpu"

src = os.path.abspath(os.path.join(config.test_source_root, "..", "..", ".."))
carry = os.path.abspath(lit_config.params.get("carry") or os.path.join(src, ".gpu-carry-api"))
on_device = lit_config.params.get("on_device", "0") == "1"
consumer = os.path.join(carry, "bin", "consumer")
pcap_burst = os.path.join(carry, "bin", "pcap_burst")
if not os.access(pcap_burst, os.X_OK):
    lit_config.fatal(f"no C API carry at {carry}: run scripts/gpu-check.sh prepare-api "
                     "(or pass --param carry=DIR)")
config.substitutions.append(("%carry", carry))
config.substitutions.append(("%consumer", consumer))
config.substitutions.append(("%pcap-burst", pcap_burst))
os.makedirs(config.test_exec_root, exist_ok=True)
config.substitutions.append(("%src", src))
config.substitutions.append(("%python", sys.executable))

# The DPDK sample, unpacked afresh (a carry prepared again replaces it).
rx = os.path.join(config.test_exec_root, "rx")
subprocess.run(["rm", "-rf", rx], check=True)
if os.path.exists(os.path.join(carry, "rx.tar.xz")):
    with tarfile.open(os.path.join(carry, "rx.tar.xz")) as t:
        # Plain files of our own making (older Pythons have no filters).
        t.extractall(rx, **({"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}))
    config.available_features.add("dpdk-rx")
config.substitutions.append(
    ("%dpdk-xdp-rx", f"env LD_LIBRARY_PATH={rx}/lib:{carry}/lib {rx}/bin/dpdk_xdp_rx"))


def probe():
    """None when the carried library runs the port filter's .gpu.o on the
    GPU here, else why not."""
    for argv in (["nvidia-smi", "-L"],
                 [pcap_burst, os.path.join(carry, "gpu", "xdp_port_filter.gpu.o"),
                  os.path.join(carry, "traffic.pcap"), os.path.join(config.test_exec_root, "probe")]):
        try:
            r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.SubprocessError) as e:
            return f"{argv[0]}: {e}"
        if r.returncode != 0:
            return f"{argv[0]}: exit {r.returncode}: {(r.stderr or r.stdout).strip()[-2000:]}"
    return None


why = probe()
if why is None:
    config.available_features.add("cuda-gpu")
elif on_device:
    lit_config.fatal(f"cuda-gpu is missing on the GPU machine (on_device=1): {why}")
else:
    lit_config.note(f"cuda-gpu tests skipped: {why}")

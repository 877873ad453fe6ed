# SPDX-License-Identifier: Apache-2.0
#
# lit configuration of ebpf-gpu's regression tests. Tests run the real
# tools. Optional features are enabled only after a probe:
#   kernel-bpf  the running kernel loads and test-runs XDP programs (root)
#   kernel-adjust-meta  and lets them call bpf_xdp_adjust_meta (a Linux
#               6.18.44 build machine's kernel refuses it to every XDP
#               program; the comparisons of programs that call it need it)
#   cuda-gpu    an NVIDIA GPU and driver are present
#   ptxas       the CUDA toolkit's ptxas is installed
#   dpdk        the loader has the DPDK runtime and its EAL starts here
#   dpdk-rx-sample  samples/dpdk_xdp_rx was built (DPDK and libebpf-gpu)
#   netns       root, and ip(8) makes network namespaces (veth tests)
#   sklearn     scikit-learn imports (Debian's python3-sklearn, which
#               scripts/setup.sh installs; %sklearn-python runs it)

import os
import shutil
import subprocess
import tempfile

import lit.formats

config.name = "ebpf-gpu"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".s", ".c", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ebpf_gpu_bin_root, "tests", "lit")

tools = os.path.join(config.ebpf_gpu_bin_root, "tools")
config.environment["PATH"] = os.pathsep.join(
    [tools, os.path.join(config.ebpf_gpu_bin_root, "bench"), config.llvm_bin_dir,
     config.environment.get("PATH", os.environ["PATH"])])

bpf_cflags = f"-O2 -g -target bpf -I/usr/include/{config.multiarch}"
config.substitutions.append(("%clang-bpf", f"{config.clang} {bpf_cflags}"))
config.substitutions.append(("%llvm-mc-bpf", "llvm-mc -triple=bpfel -filetype=obj"))
config.substitutions.append(("%samples", os.path.join(config.ebpf_gpu_bin_root, "samples")))
config.substitutions.append(("%src", config.ebpf_gpu_src_root))
config.substitutions.append(("%conformance-hex", config.conformance_hex))
config.substitutions.append(
    ("%tohex", f"{config.python} -c \"import sys; print(open(sys.argv[1],'rb').read().hex())\""))
config.substitutions.append(("%python", config.python))
# libebpf-gpu of this build (api/), for the C and C++ programs tests build
# on it (skeletons); builds without it (sanitizers, fuzzers) skip them.
api_lib = os.path.join(config.ebpf_gpu_bin_root, "api")
config.substitutions.append(("%api-cflags", f"-I{config.ebpf_gpu_src_root}/api/include"))
config.substitutions.append(("%api-libs", f"-L{api_lib} -lebpf-gpu -Wl,-rpath,{api_lib}"))
if os.path.exists(os.path.join(api_lib, "libebpf-gpu.so")):
    config.available_features.add("libebpf-gpu")
else:
    lit_config.note("libebpf-gpu tests skipped: this build has no C API library")

# The GPU benchmark harnesses are built where the CUDA toolkit is (their
# command lines are checked without a GPU).
if os.access(os.path.join(config.ebpf_gpu_bin_root, "bench", "ebpf-gpu-bench"), os.X_OK):
    config.available_features.add("gpu-bench")


def probe_kernel_bpf():
    # Root, a bpffs to pin test programs in, and a kernel that test-runs XDP.
    if os.geteuid() != 0 or not os.path.ismount("/sys/fs/bpf") or not shutil.which("bpftool"):
        return False
    loader = os.path.join(tools, "ebpf-gpu-loader")
    trafgen = os.path.join(tools, "ebpf-gpu-trafgen")
    sample = os.path.join(config.ebpf_gpu_bin_root, "samples", "xdp_pass_drop.o")
    with tempfile.TemporaryDirectory() as d:
        pcap = os.path.join(d, "p.pcap")
        try:
            subprocess.run([trafgen, "-o", pcap, "--count", "1"], check=True,
                           capture_output=True, timeout=30)
            r = subprocess.run([loader, "run", sample, "--section", "xdp_pass_all",
                                "--pcap", pcap, "--backend", "kernel"],
                               capture_output=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return False
        return r.returncode == 0


def probe_kernel_adjust_meta():
    # The kernel's verifier lets XDP programs call bpf_xdp_adjust_meta
    # (Inputs/probe-adjust-meta.c, built here and test-run by the kernel).
    loader = os.path.join(tools, "ebpf-gpu-loader")
    trafgen = os.path.join(tools, "ebpf-gpu-trafgen")
    src = os.path.join(config.test_source_root, "Inputs", "probe-adjust-meta.c")
    with tempfile.TemporaryDirectory() as d:
        obj, pcap = os.path.join(d, "probe.o"), os.path.join(d, "p.pcap")
        try:
            subprocess.run([config.clang, "-O2", "-g", "-target", "bpf",
                            "-I/usr/include/" + config.multiarch, "-c", src, "-o", obj],
                           check=True, capture_output=True, timeout=60)
            subprocess.run([trafgen, "-o", pcap, "--count", "1"], check=True,
                           capture_output=True, timeout=30)
            r = subprocess.run([loader, "run", obj, "--pcap", pcap, "--backend", "kernel"],
                               capture_output=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return False
        return r.returncode == 0


def probe_kernel_neg_bswap():
    # The kernel's verifier tracks BPF_NEG and byte swaps (verifier/
    # neg-bswap.s: its cases 1, 2 and 7 loaded here).
    src = os.path.join(config.test_source_root, "verifier", "neg-bswap.s")
    mc = os.path.join(config.llvm_bin_dir, "llvm-mc")
    with tempfile.TemporaryDirectory() as d:
        for case in (1, 2, 7):
            obj, pin = os.path.join(d, "p%d.o" % case), "/sys/fs/bpf/ebpf_gpu_lit_probe_neg"
            try:
                subprocess.run([mc, "-triple=bpfel", "-filetype=obj", "-mcpu=v4",
                                "--defsym=CASE=%d" % case, src, "-o", obj],
                               check=True, capture_output=True, timeout=30)
                r = subprocess.run(["bpftool", "prog", "load", obj, pin, "type", "xdp"],
                                   capture_output=True, timeout=30)
            except (OSError, subprocess.SubprocessError):
                return False
            if os.path.exists(pin):
                os.unlink(pin)
            if r.returncode != 0:
                return False
    return True


if probe_kernel_bpf():
    config.available_features.add("kernel-bpf")
    if probe_kernel_neg_bswap():
        config.available_features.add("kernel-neg-bswap")
    else:
        lit_config.note("kernel-neg-bswap tests skipped: this kernel's verifier does not track "
                        "BPF_NEG and byte swaps (verifier/neg-bswap.s)")
    if probe_kernel_adjust_meta():
        config.available_features.add("kernel-adjust-meta")
    else:
        lit_config.note("kernel-adjust-meta tests skipped: this kernel refuses "
                        "bpf_xdp_adjust_meta to XDP programs (Inputs/probe-adjust-meta.c)")
else:
    lit_config.note("kernel-bpf tests skipped: the kernel does not test-run XDP programs here "
                    "(needs root, bpftool, bpffs at /sys/fs/bpf and a kernel with BPF)")

try:
    if subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=30).returncode == 0:
        config.available_features.add("cuda-gpu")
except (OSError, subprocess.SubprocessError):
    pass
if "cuda-gpu" not in config.available_features:
    lit_config.note("cuda-gpu tests skipped: no NVIDIA GPU or driver")

def probe_dpdk():
    # The loader was built with DPDK and forwards one packet of a net_null
    # port (the EAL starts without hugepages or NICs).
    loader = os.path.join(tools, "ebpf-gpu-loader")
    sample = os.path.join(config.ebpf_gpu_bin_root, "samples", "xdp_pass_drop.o")
    try:
        r = subprocess.run([loader, "forward", sample, "--section", "xdp_pass_all",
                            "--port", "net_null0", "--count", "1"],
                           capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return r.returncode == 0


if probe_dpdk():
    config.available_features.add("dpdk")
else:
    lit_config.note("dpdk tests skipped: the loader was built without DPDK, or its EAL does "
                    "not start here")

if os.access(os.path.join(config.ebpf_gpu_bin_root, "samples", "dpdk_xdp_rx"), os.X_OK):
    config.available_features.add("dpdk-rx-sample")
else:
    lit_config.note("rx callback tests skipped: samples/dpdk_xdp_rx is built only with DPDK "
                    "and libebpf-gpu")

def probe_netns():
    if os.geteuid() != 0 or not shutil.which("ip"):
        return False
    name = f"ebpfgpu-probe-{os.getpid()}"
    try:
        if subprocess.run(["ip", "netns", "add", name], capture_output=True,
                          timeout=30).returncode != 0:
            return False
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


if probe_netns():
    config.available_features.add("netns")
else:
    lit_config.note("netns tests skipped: they need root and ip(8) to make network namespaces")


# scripts/model-from-sklearn.py's test trains scikit-learn models: with the
# Python running the tests when it has scikit-learn, else Debian's
# /usr/bin/python3 (python3-sklearn installs for it), as %sklearn-python.
for py in (config.python, "/usr/bin/python3"):
    try:
        if subprocess.run([py, "-c", "import sklearn"], capture_output=True,
                          timeout=120).returncode == 0:
            config.available_features.add("sklearn")
            config.substitutions.append(("%sklearn-python", py))
            break
    except (OSError, subprocess.SubprocessError):
        pass
if "sklearn" not in config.available_features:
    lit_config.note("sklearn tests skipped: python3-sklearn is not installed (scripts/setup.sh "
                    "installs it)")

# CUDA 13's ptxas has no sm_70 target; scripts/setup.sh fetches CUDA 11.8's
# (Debian non-free) for the sm_70 checks. Either one serves the others.
# (%ptxas-sm70 is substituted before %ptxas, its prefix.)
legacy_ptxas = os.path.join(
    os.environ.get("EBPF_GPU_LEGACY_PTXAS_DIR", "/opt/ebpf-gpu-deps/cuda-11.8"), "bin", "ptxas")
ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
if not os.access(ptxas, os.X_OK):
    ptxas = legacy_ptxas
config.substitutions.append(("%ptxas-sm70", legacy_ptxas))
config.substitutions.append(("%ptxas", ptxas))
if os.access(ptxas, os.X_OK):
    config.available_features.add("ptxas")
if os.access(legacy_ptxas, os.X_OK):
    config.available_features.add("ptxas-sm70")
else:
    lit_config.note("sm_70 ptxas tests skipped: no CUDA 11.8 ptxas (scripts/setup.sh fetches it)")

# The suite's programs (built before the tests run); without them the
# conformance ctest entries fail saying how to get the suite.
if os.path.isdir(config.conformance_hex):
    config.available_features.add("conformance-data")

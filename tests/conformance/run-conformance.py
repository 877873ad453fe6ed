#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Runs the bpf_conformance suite (tests/NAME.data with the programs assembled
# in hex/NAME.hex, or in --hex DIR) through a plugin that follows the suite's
# plugin contract: program hex on stdin, input memory hex as the first
# argument, r0 in hex on stdout. Checks every test's result and that every raw
# negative program is refused (non-zero exit, no crash).
# Exit status: 0 all passed, 1 some failed or the suite is absent.

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys


def sections(path):
    out, name = {}, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.match(r"^-- (\S+)", line)
            if m:
                name = m.group(1)
                out.setdefault(name, [])
            elif name is not None:
                out[name].append(line.split("#", 1)[0].strip())
    return out


def hex_bytes(lines):
    return "".join("".join(l.split()) for l in lines if l)


def parse_result(text):
    text = text.strip()
    value = int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    return value & 0xFFFFFFFFFFFFFFFF


def spaced(hex_text):
    """The upstream runner's encoding: each byte as two hex digits and spaces."""
    return "".join(hex_text[i:i + 2] + "  " for i in range(0, len(hex_text), 2))


def run_plugin(plugin, program_hex, mem_hex, timeout, options=""):
    # As the upstream runner: memory as argv[1], plugin options as argv[2],
    # the program on standard input, r0 read back as hex from standard output.
    try:
        p = subprocess.run([plugin, spaced(mem_hex), options], input=spaced(program_hex) + "\n",
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return p.returncode, p.stdout, p.stderr


def run_gpu_object(loader, obj, mem_hex, timeout):
    """GPU mode: a program compiled beforehand to NAME.gpu.o, run once by the loader."""
    try:
        p = subprocess.run([loader, "test-run", obj, "--mem", mem_hex, "--allow-unverified"],
                           capture_output=True,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "", "timed out"
    return p.returncode, p.stdout, p.stderr


def check_test(plugin, suite, hex_dir, name, timeout, gpu_objects=None, options=""):
    data = sections(os.path.join(suite, "tests", name + ".data"))
    with open(os.path.join(hex_dir, name + ".hex")) as f:
        program = "".join(f.read().split())
    mem = hex_bytes(data.get("mem", []))
    if gpu_objects:
        rc, out, err = run_gpu_object(plugin, os.path.join(gpu_objects, name + ".gpu.o"), mem,
                                      timeout)
    else:
        rc, out, err = run_plugin(plugin, program, mem, timeout, options)
    expected_lines = [l for l in data.get("result", []) if l]
    if "error" in data and not expected_lines:
        ok = rc not in (0, None) and rc > 0
        return ok, f"expected refusal, got rc={rc} {out.strip()} {err.strip()}"
    if rc != 0:
        return False, f"rc={rc}: {err.strip()}"
    want = parse_result(expected_lines[0])
    try:
        got = int(out.strip(), 16)
    except ValueError:
        return False, f"unparsable output {out!r}"
    if got != want:
        return False, f"r0 = {got:#x}, expected {want:#x}"
    return True, ""


def check_negative(plugin, suite, name, timeout):
    data = sections(os.path.join(suite, "negative", name + ".data"))
    program = hex_bytes(data["raw"])
    rc, out, err = run_plugin(plugin, program, "", timeout)
    if rc is None:
        return False, "timed out"
    if rc < 0 or rc >= 128:
        return False, f"crashed (rc={rc})"
    if rc == 0:
        return False, f"accepted (r0 = {out.strip()})"
    return True, err.strip()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--suite", required=True,
                    help="the suite's folder (tests/, negative/, and hex/ unless --hex)")
    ap.add_argument("--hex", help="the assembled programs (default: SUITE/hex)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--gpu-objects",
                    help="GPU mode: run DIR/NAME.gpu.o with `PLUGIN test-run` (PLUGIN is then "
                         "ebpf-gpu-loader); negative programs are checked when compiling")
    ap.add_argument("--plugin-options", default="", help="passed to the plugin as argv[2]")
    ap.add_argument("--min-pass", type=int, default=None,
                    help="succeed when at least this many tests pass (default: all)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    tests_dir = os.path.join(args.suite, "tests")
    hex_dir = args.hex or os.path.join(args.suite, "hex")
    if not os.path.isdir(tests_dir) or not os.path.isdir(hex_dir):
        print(f"conformance: no bpf_conformance suite at '{args.suite}' (tests/ and assembled "
              f"programs in {hex_dir}): run scripts/setup.sh, which fetches "
              "Alan-Jowett/bpf_conformance at its pinned commit into .deps/bpf_conformance, "
              "or configure with -DEBPF_GPU_CONFORMANCE_DIR=DIR")
        return 1
    tests = sorted(f[:-5] for f in os.listdir(tests_dir) if f.endswith(".data"))
    neg_dir = os.path.join(args.suite, "negative")
    negatives = []
    if not args.gpu_objects:
        negatives = sorted(f[:-5] for f in os.listdir(neg_dir)
                           if f.endswith(".data") and "raw" in sections(os.path.join(neg_dir, f)))

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(
            lambda n: (n, check_test(args.plugin, args.suite, hex_dir, n, args.timeout, args.gpu_objects,
                                     args.plugin_options)),
            tests))
        neg_results = list(pool.map(
            lambda n: (n, check_negative(args.plugin, args.suite, n, args.timeout)), negatives))

    failed = [(n, why) for n, (ok, why) in results if not ok]
    neg_failed = [(n, why) for n, (ok, why) in neg_results if not ok]
    for n, why in failed:
        print(f"FAIL {n}: {why}")
    for n, why in neg_failed:
        print(f"FAIL negative/{n}: {why}")
    if args.verbose:
        for n, (ok, why) in neg_results:
            if ok:
                print(f"refused negative/{n}: {why}")
    print(f"conformance: {len(tests) - len(failed)}/{len(tests)} passed")
    if negatives:
        print(f"negative: {len(negatives) - len(neg_failed)}/{len(negatives)} refused")
    if args.min_pass is not None:
        return 1 if len(tests) - len(failed) < args.min_pass or neg_failed else 0
    return 1 if failed or neg_failed else 0


if __name__ == "__main__":
    sys.exit(main())

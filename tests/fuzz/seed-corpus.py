#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes the seed corpora of the libFuzzer targets (tests/fuzz): the built
# sample objects and the bpf_conformance programs, each prefixed with the
# mode byte its target reads first.
#  - verifier/: fuzz_verifier's format (ELF objects as they are; raw
#    programs after one byte: bit 0 platform, bits 1-7 memory size).
#  - compile/: fuzz_compile's format (one mode byte, then the object or the
#    instructions; bit 1 GPU, bit 2 guard side, bits 3-7 size / 8): every
#    seed once for the host back end and once for the GPU back end.
# Usage: seed-corpus.py OUT_DIR CONFORMANCE_DIR SAMPLE_OBJECT...

import os
import sys


def mem_size(data_file):
    """Bytes of the test's `-- mem` section (0 when it has none)."""
    n, in_mem = 0, False
    try:
        with open(data_file) as f:
            for line in f:
                if line.startswith("--"):
                    in_mem = line.strip() == "-- mem"
                elif in_mem:
                    n += len(line.split())
    except OSError:
        pass
    return n


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    out, conformance, samples = sys.argv[1], sys.argv[2], sys.argv[3:]
    for sub in ("verifier", "compile"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    for obj in samples:
        with open(obj, "rb") as f:
            elf = f.read()
        name = os.path.basename(obj)
        write(os.path.join(out, "verifier", name), elf)
        for gpu in (0, 1):
            # 120-byte packets: past every header the samples parse.
            write(os.path.join(out, "compile", f"{name}.{gpu}"), bytes([15 << 3 | gpu << 1]) + elf)
    hexdir = os.path.join(conformance, "hex")
    if not os.path.isdir(hexdir):
        return 0
    for h in sorted(os.listdir(hexdir)):
        name = h[:-4]
        with open(os.path.join(hexdir, h)) as f:
            code = bytes.fromhex(f.read())
        size = mem_size(os.path.join(conformance, "tests", name + ".data"))
        units = min((size + 7) // 8, 31)
        write(os.path.join(out, "verifier", name), bytes([min(units * 8, 127) << 1]) + code)
        for gpu in (0, 1):
            write(os.path.join(out, "compile", f"{name}.{gpu}"), bytes([units << 3 | gpu << 1]) + code)
    return 0


if __name__ == "__main__":
    sys.exit(main())

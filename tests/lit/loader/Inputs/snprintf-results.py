# SPDX-License-Identifier: Apache-2.0
#
# Prints the entries of tests/lit/loader/snprintf.c's map `out` from a
# --dump-maps file (each value in hex: a little-endian s64 result, then
# the buffer) as "out[K] RESULT 'TEXT'", the text up to its first NUL, so
# that FileCheck reads what bpf_snprintf returned and wrote.
import sys

for line in open(sys.argv[1]):
    key, _, value = line.strip().partition(" = ")
    if not key.startswith("out["):
        continue
    raw = bytes.fromhex(value)
    ret = int.from_bytes(raw[:8], "little", signed=True)
    text = raw[8:].split(b"\0")[0].decode("ascii", "backslashreplace")
    print(f"{key} {ret} '{text}'")

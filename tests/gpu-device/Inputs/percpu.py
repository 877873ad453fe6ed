# SPDX-License-Identifier: Apache-2.0
#
# Checks of per-CPU map dumps from the GPU (per-CPU maps dump the sum of
# every CPU's slice); each prints one line and exits 1 on a fault.
#   percpu.py counted MAPS COUNT
#       samples/xdp_percpu_stats.c: its proto_stats counters (packets, the
#       first 8 bytes of each value) add up to COUNT
#   percpu.py exclusive MAPS COUNT
#       tests/stress/percpu_exclusive.c: the summed slice is {no mark,
#       COUNT packets} and the totals {CPU 0: COUNT}: no clash (two packets
#       at once on one slice), no slice reached under another CPU number
import re
import sys


def le64(hexstr, at):
    return int.from_bytes(bytes.fromhex(hexstr[at:at + 16]), "little")


def counted(text, count):
    n = sum(le64(v, 0) for v in re.findall(r"proto_stats\[\d+\] = ([0-9a-f]+)", text))
    return n == count, f"xdp_percpu_stats: counted {n} packets (per-CPU copies summed), {count} sent"


def exclusive(text, count):
    slot = re.search(r"^slots\[0\] = ([0-9a-f]{48})$", text, re.M).group(1)
    mark, n = le64(slot, 0), le64(slot, 16)
    totals = {int(k): int(v) for k, v in re.findall(r"^totals\[(\d+)\] = (\d+)$", text, re.M)}
    ok = mark == 0 and n == count and totals == {0: count}
    return ok, f"percpu_exclusive: mark {mark}, count {n}, totals {totals}"


check, path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
ok, what = {"counted": counted, "exclusive": exclusive}[check](open(path).read(), count)
print(f"{what}: {'ok' if ok else 'WRONG'}")
sys.exit(0 if ok else 1)

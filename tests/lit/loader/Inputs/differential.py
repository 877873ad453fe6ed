# SPDX-License-Identifier: Apache-2.0
#
# Runs programs on two back ends over the same packets and compares the
# verdict of every packet, the bytes of every packet that goes out, the
# maps and global data after the run, and the event records (ringbuf, perf
# event arrays) in order.
# Arguments: OBJECT:PROGRAM pairs, each optionally +MAPFILE (map entries the
# loader sets before the run, --map-file); OBJECT may be OBJ_A,OBJ_B for a
# second back end that runs another build of the same program (the kernel
# cannot load through libbpf 1.x an object with legacy "maps" definitions:
# scripts/realworld.sh gives it the same source with BTF-defined maps).
# Prints one line per program;
# exits 1 on the first difference, naming the packet.

import argparse
import os
import re
import subprocess
import sys


def run(loader, backend, obj, prog, pcap, out, verdicts, maps, events, map_file, extra):
    cmd = [loader, "run", obj, "--section", prog, "--pcap", pcap, "--backend", backend,
           "--out", out, "--verdicts", verdicts, "--dump-maps", maps, "--events", events,
           "--json"] + extra
    if map_file:
        cmd += ["--map-file", map_file]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(verdicts) as f:
        return f.read().splitlines()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loader", required=True)
    ap.add_argument("--pcap", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--backends", default="host,kernel")
    ap.add_argument("--batch", help="packets per batch on the gpu back end")
    ap.add_argument("--loader-arg", action="append", default=[],
                    help="passed to every run (e.g. --loader-arg=--fib --loader-arg=FILE)")
    ap.add_argument("--mask", help="a regular expression over map dump lines: what it matches "
                    "beyond its group 1 is not compared (values from the clock)")
    ap.add_argument("programs", nargs="+")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    a, b = args.backends.split(",")
    for spec in args.programs:
        spec, _, map_file = spec.partition("+")
        objs, prog = spec.rsplit(":", 1)
        obj_a, _, obj_b = objs.partition(",")
        res = {}
        for be, obj in ((a, obj_a), (b, obj_b or obj_a)):
            base = os.path.join(args.work, f"{prog}.{be}")
            extra = ["--batch", args.batch] if be == "gpu" and args.batch else []
            extra += args.loader_arg
            res[be] = (run(args.loader, be, obj, prog, args.pcap, base + ".pcap", base + ".txt",
                           base + ".maps", base + ".events", map_file, extra), base + ".pcap",
                       base + ".maps", base + ".events")
        va, vb = res[a][0], res[b][0]
        for la, lb in zip(va, vb):
            if la != lb:
                print(f"{prog}: packet differs: {a}: {la} / {b}: {lb}")
                return 1
        if len(va) != len(vb):
            print(f"{prog}: {a} gave {len(va)} verdicts, {b} {len(vb)}")
            return 1
        with open(res[a][1], "rb") as fa, open(res[b][1], "rb") as fb:
            if fa.read() != fb.read():
                print(f"{prog}: output packets differ ({res[a][1]} vs {res[b][1]})")
                return 1
        with open(res[a][2]) as fa, open(res[b][2]) as fb:
            ma, mb = fa.read(), fb.read()
            if args.mask:
                ma = re.sub(args.mask, r"\1T", ma, flags=re.M)
                mb = re.sub(args.mask, r"\1T", mb, flags=re.M)
            # .rodata: libbpf binds it to every program, so the kernel back
            # end dumps it where the host's program never reads it (its
            # constants folded); compared where both have it (as `compare`).
            ra, rb = (re.search(r"^\.rodata", m, flags=re.M) for m in (ma, mb))
            if bool(ra) != bool(rb):
                ma, mb = (re.sub(r"^\.rodata.*\n", "", m, flags=re.M) for m in (ma, mb))
            if ma != mb:
                print(f"{prog}: map contents differ ({res[a][2]} vs {res[b][2]})")
                return 1
        with open(res[a][3]) as fa, open(res[b][3]) as fb:
            ea, eb = fa.read().splitlines(), fb.read().splitlines()
        for i, (la, lb) in enumerate(zip(ea, eb)):
            if la != lb:
                print(f"{prog}: event record {i} differs: {a}: {la} / {b}: {lb}")
                return 1
        if len(ea) != len(eb):
            print(f"{prog}: {a} wrote {len(ea)} event records, {b} {len(eb)}")
            return 1
        events = f", {len(ea)} event records" if ea else ""
        print(f"{prog}: {len(va)} packets{events}, {a} and {b} agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())

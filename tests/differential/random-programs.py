#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Differential testing against the Linux kernel with generated programs:
# random but plausible XDP programs (bounds checks of every size, some one
# byte short; variable offsets; stack spills and fills, some of bytes never
# written; arithmetic; branches) go through our verifier and the kernel's.
#  - ours accepts, the kernel refuses: a soundness bug (reported, fails)
#  - ours refuses, the kernel accepts: a precision gap (counted)
#  - both accept: both back ends run the program on generated packets and
#    must agree on every verdict and output byte (differential.py)
# Every disagreement is kept under --keep for a regression test.

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.lines = []
        self.label = 0
        self.stack_written = set()

    def fresh(self):
        self.label += 1
        return f"L{self.label}"

    def emit(self, s):
        self.lines.append("  " + s)

    def snippet(self):
        r = self.rng
        kind = r.randrange(9)
        if kind == 0:  # bounds check, then a read that may be one byte past it
            k = r.randrange(1, 64)
            size = r.choice([1, 2, 4, 8])
            off = r.randrange(0, k + 2)
            width = {1: "u8", 2: "u16", 4: "u32", 8: "u64"}[size]
            l = self.fresh()
            self.emit("r4 = r2")
            self.emit(f"r4 += {k}")
            self.emit(f"if r4 > r3 goto {l}")
            self.emit(f"r5 = *({width} *)(r2 + {off})")
            self.emit(r.choice(["r0 += r5", "r0 ^= r5", "r0 |= r5"]))
            self.lines.append(f"{l}:")
        elif kind == 1:  # stack spill
            slot = r.randrange(1, 8) * 8
            self.emit(f"*(u64 *)(r10 - {slot}) = r0")
            self.stack_written.add(slot)
        elif kind == 2:  # stack fill, now and then of a slot never written
            if self.stack_written and r.random() < 0.9:
                slot = r.choice(sorted(self.stack_written))
            else:
                slot = r.randrange(1, 8) * 8
            self.emit(f"r7 = *(u64 *)(r10 - {slot})")
            self.emit("r0 += r7")
        elif kind == 3:  # arithmetic
            op = r.choice(["+=", "-=", "^=", "&=", "|=", "*=", "<<=", ">>="])
            imm = r.randrange(0, 8) if op in ("<<=", ">>=") else r.randrange(-1000, 1000)
            self.emit(f"r0 {op} {imm}")
        elif kind == 4:  # branch around an update
            l = self.fresh()
            self.emit(f"if r0 {r.choice(['>', '<', '==', '!=', 's>'])} {r.randrange(0, 300)} goto {l}")
            self.emit(f"r0 += {r.randrange(1, 9)}")
            self.lines.append(f"{l}:")
        elif kind == 5:  # packet write after a check, maybe past it
            k = r.randrange(1, 40)
            off = r.randrange(0, k + 1)
            l = self.fresh()
            self.emit("r4 = r2")
            self.emit(f"r4 += {k}")
            self.emit(f"if r4 > r3 goto {l}")
            self.emit(f"*(u8 *)(r2 + {off}) = {r.randrange(0, 256)}")
            self.lines.append(f"{l}:")
        elif kind in (7, 8):  # a compare (JMP32, signed, JSET) bounds a stack offset, or not
            l = self.fresh()
            width = r.choice(["u8", "u16", "u32", "u64"])
            size = {"u8": 1, "u16": 2, "u32": 4, "u64": 8}[width]
            self.emit("r4 = r2")
            self.emit(f"r4 += {size}")
            self.emit(f"if r4 > r3 goto {l}")
            self.emit(f"r7 = *({width} *)(r2 + 0)")
            self.emit(r.choice(["", "r7 <<= 32", "r7 s>>= 3", "w7 = w7", "r7 = (s8)r7",
                                "r7 = (s32)r7", "r7 &= 127", "r7 |= 8", "w7 -= 5",
                                "r7 ^= 255", "r7 >>= 1", "w7 = (s16)w7"]))
            for _ in range(r.randrange(1, 3)):
                op = r.choice(["<", "<=", ">", ">=", "s<", "s<=", "s>", "s>=", "&", "==", "!="])
                reg = r.choice(["r7", "w7"])
                c = r.choice([0, 1, 7, 31, 32, 63, 64, 127, 128, 255, -1, -64, -2147483648,
                              0x7fffffff])
                if op == "&":
                    c = r.choice([1, 4, 64, 128, 192, -64, -128, 0x7fffffc0, -2147483648])
                self.emit(f"if {reg} {op} {c} goto {l}")
            if kind == 8:  # the taken side may be the bounded one
                l2 = self.fresh()
                self.emit(f"goto {l2}")
                self.lines.append(f"{l}:")
                l = l2
            self.emit("r8 = r10")
            self.emit("r8 += -64")
            self.emit("r8 += r7")
            self.emit(f"*(u8 *)(r8 + 0) = {r.randrange(0, 256)}")
            self.lines.append(f"{l}:")
        else:  # variable offset from a packet byte, then a checked read
            mask = r.choice([3, 7, 15, 31, 63])
            k = r.randrange(1, 16)
            off = r.randrange(0, k + 2)
            l = self.fresh()
            self.emit("r4 = r2")
            self.emit("r4 += 1")
            self.emit(f"if r4 > r3 goto {l}")
            self.emit("r7 = *(u8 *)(r2 + 0)")
            self.emit(f"r7 &= {mask}")
            self.emit("r4 = r2")
            self.emit("r4 += r7")
            self.emit("r8 = r4")
            self.emit(f"r8 += {k}")
            self.emit(f"if r8 > r3 goto {l}")
            self.emit(f"r5 = *(u8 *)(r4 + {off})")
            self.emit("r0 += r5")
            self.lines.append(f"{l}:")

    def program(self, n):
        self.emit("r2 = *(u32 *)(r1 + 0)")
        self.emit("r3 = *(u32 *)(r1 + 4)")
        self.emit("r0 = 2")
        for _ in range(n):
            self.snippet()
        self.emit("r0 &= 3")
        self.emit("exit")
        return ("  .section xdp,\"ax\",@progbits\n  .globl prog\n  .type prog,@function\nprog:\n" +
                "\n".join(self.lines) + "\n  .size prog, .-prog\n  .section license,\"aw\",@progbits\n  .asciz \"GPL\"\n")


def kernel_accepts(obj):
    pin = f"/sys/fs/bpf/ebpf_gpu_rand_{os.getpid()}"
    r = subprocess.run(["bpftool", "prog", "load", obj, pin, "type", "xdp"], capture_output=True,
                       text=True)
    if r.returncode == 0:
        os.unlink(pin)
        return True
    if "BEGIN PROG LOAD LOG" not in r.stderr and "failed to load program" not in r.stderr:
        raise RuntimeError(f"the kernel was not asked about {obj}: {r.stderr.strip()[:300]}")
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--snippets", type=int, default=12)
    ap.add_argument("--cc", default="ebpf-gpu-cc")
    ap.add_argument("--loader", default="ebpf-gpu-loader")
    ap.add_argument("--trafgen", default="ebpf-gpu-trafgen")
    ap.add_argument("--llvm-mc", default="llvm-mc")
    ap.add_argument("--keep", help="folder for the programs that disagreed")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="ebpf-gpu-rand-")
    pcap = os.path.join(work, "p.pcap")
    subprocess.run([args.trafgen, "-o", pcap, "--count", "200", "--seed", str(args.seed)], check=True)
    both = ours_only = kernel_only = neither = run_diffs = uninit_reads = 0
    failures = []
    gaps = []
    for i in range(args.count):
        src = Gen(rng).program(rng.randrange(1, args.snippets + 1))
        s = os.path.join(work, f"p{i}.s")
        o = os.path.join(work, f"p{i}.o")
        with open(s, "w") as f:
            f.write(src)
        subprocess.run([args.llvm_mc, "-triple=bpfel", "-filetype=obj", s, "-o", o], check=True)
        ours = subprocess.run([args.cc, o, "--emit=verifier-log"], capture_output=True, text=True)
        ours_ok = "\nverified:" in ours.stdout or ours.stdout.startswith("verified:")
        theirs_ok = kernel_accepts(o)
        if ours_ok and theirs_ok and "reads stack bytes the program may not have written" in ours.stdout:
            # Both accept (root may read stack bytes never written), but the
            # output is not comparable: zeros here, the kernel's leftovers there.
            both += 1
            uninit_reads += 1
            continue
        if ours_ok and theirs_ok:
            both += 1
            d = subprocess.run([sys.executable, os.path.join(HERE, "..", "lit", "loader", "Inputs",
                                                        "differential.py"),
                                "--loader", args.loader, "--pcap", pcap, "--work",
                                os.path.join(work, f"d{i}"), f"{o}:prog"],
                               capture_output=True, text=True)
            if d.returncode != 0:
                run_diffs += 1
                failures.append((s, "back ends differ: " + d.stdout.strip()))
        elif ours_ok:
            ours_only += 1
            failures.append((s, "SOUNDNESS: our verifier accepts, the kernel refuses"))
        elif theirs_ok:
            kernel_only += 1
            gaps.append(s)
        else:
            neither += 1
    for s in gaps:
        print(f"PRECISION GAP: the kernel accepts, ours refuses: {s}")
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(s, args.keep)
    for s, why in failures:
        print(f"DISAGREE {why}: {s}")
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(s, args.keep)
    print(f"{args.count} programs: both accept {both}, {uninit_reads} of them reading stack "
          f"bytes never written (output not compared), both refuse {neither}, "
          f"only the kernel accepts {kernel_only}, only ours accepts {ours_only}, "
          f"back-end differences {run_diffs}")
    if not failures and not (gaps and args.keep):
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

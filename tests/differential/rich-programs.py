#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Differential testing against the Linux kernel with generated programs that
# use what real XDP programs use: an array and a hash map (lookups with and
# without null checks, in-bounds and out-of-bounds value accesses, updates
# with every flag, deletes, atomic adds), helpers whose results are
# deterministic (csum_diff, xdp_adjust_head/tail, xdp_load_bytes/store_bytes),
# bounded loops (64- and 32-bit counters), bpf-to-bpf calls (scalar,
# stack-pointer and packet-pointer arguments), packet accesses with bounds
# checks (some one byte short) and without, accesses through packet pointers
# a helper invalidated, stack spills and fills (pointers too), 32-bit ALU and
# JMP32, signed comparisons, signed division, sign extension, byte swaps.
# Each program is C with BTF-defined maps and one naked function whose body
# is the generated assembly (clang -target bpf -mcpu=v4), so the kernel (via
# libbpf) and ebpf-gpu read the same object.
#  - ours accepts, the kernel refuses: a soundness bug (reported, fails)
#  - ours refuses, the kernel accepts: a precision gap (counted by reason)
#  - both accept: the host back end and BPF_PROG_TEST_RUN run the program on
#    the same packets and must agree on every verdict, output byte and map
#    (tests/lit/loader/Inputs/differential.py)
# Every disagreement is kept under --keep for a regression test.

import argparse
import collections
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DIFFERENTIAL = os.path.join(HERE, "..", "lit", "loader", "Inputs", "differential.py")

PRELUDE = """\
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 8);
  __type(key, __u32);
  __type(value, __u64[2]);
} arr SEC(".maps");
"""
HASH = """\
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, %d);
  __type(key, __u32);
  __type(value, __u64);
} hash%d SEC(".maps");
"""
HASH_SIZES = [4, 16, 64]
# Every object has the three hash maps (a program uses the one it drew), so
# that one object holds many programs and a program is the same whether it
# is checked alone or with others.
PRELUDE += "".join(HASH % (n, n) for n in HASH_SIZES) + \
    'char _license[] SEC("license") = "GPL";\n'

# ebpf-gpu gives every packet this much tailroom (runtime/Packets.h,
# DESIGN.md); a program that grows the tail further may fail on ebpf-gpu
# where BPF_PROG_TEST_RUN, which has most of a page, succeeds: the
# generator keeps a program's total growth within it.
TAILROOM = 256

WIDTH = {1: "u8", 2: "u16", 4: "u32", 8: "u64"}


class Gen:
    """One program. Registers: r6 ctx, r7 data, r8 data_end, r9 the value the
    verdict comes from; r0-r5 are scratch (helpers and calls clobber them)."""

    def __init__(self, rng, name="prog"):
        self.rng = rng
        self.name = name  # the program's function; its labels and subprograms bear it
        self.lines = []
        self.label = 0
        self.stack = {}  # 8-byte slot r10-8*k written (k in 1..8): "scalar" or "pkt"
        self.subs = []
        self.tail_growth = 0  # bytes bpf_xdp_adjust_tail may have added so far

    def fresh(self):
        self.label += 1
        return f".L{self.name}_x{self.label}"

    def emit(self, s):
        # '%' starts an operand in inline assembly: modulo is written %%=.
        # and a negative offset as "r0 - 8".
        self.lines.append(s.replace("%=", "%%=").replace("+ -", "- "))

    def lab(self, l):
        self.lines.append(f"{l}:")

    def reload(self):
        self.emit("r7 = *(u32 *)(r6 + 0)")
        self.emit("r8 = *(u32 *)(r6 + 4)")

    def rare(self, p=0.08):
        return self.rng.random() < p

    # ---- snippets -------------------------------------------------------
    def pkt_read(self):
        r = self.rng
        k = r.randrange(1, 64)
        size = r.choice([1, 2, 4, 8])
        off = r.randrange(0, k + 1) if not self.rare(0.15) else k - size + 1
        off = max(0, min(off, k - size)) if not self.rare(0.1) else off
        l = self.fresh()
        self.emit("r4 = r7")
        self.emit(f"r4 += {k}")
        op = r.choice(["if r4 > r8 goto", "if r8 < r4 goto", "if r4 >= r8 goto"])
        if self.rare(0.05):  # no bounds check at all
            self.emit(f"r5 = *({WIDTH[size]} *)(r7 + {off})")
        else:
            self.emit(f"{op} {l}")
            self.emit(f"r5 = *({WIDTH[size]} *)(r7 + {off})")
        self.emit(r.choice(["r9 += r5", "r9 ^= r5", "w9 += w5", "r9 |= r5"]))
        self.lab(l)

    def pkt_write(self):
        r = self.rng
        k = r.randrange(1, 40)
        size = r.choice([1, 2, 4])
        off = r.randrange(0, max(1, k - size + 1)) if not self.rare(0.1) else k - size + 1
        l = self.fresh()
        self.emit("r4 = r7")
        self.emit(f"r4 += {k}")
        self.emit(f"if r4 > r8 goto {l}")
        self.emit(f"*({WIDTH[size]} *)(r7 + {off}) = w9")
        self.lab(l)

    def pkt_varoff(self):
        r = self.rng
        mask = r.choice([3, 7, 15, 31, 63])
        k = r.randrange(1, 16)
        off = r.randrange(0, k + (2 if self.rare(0.2) else 0))
        l = self.fresh()
        self.emit("r4 = r7")
        self.emit("r4 += 1")
        self.emit(f"if r4 > r8 goto {l}")
        self.emit("r5 = *(u8 *)(r7 + 0)")
        if self.rare(0.05):
            pass  # unbounded variable offset
        else:
            self.emit(f"r5 &= {mask}")
        self.emit("r4 = r7")
        self.emit("r4 += r5")
        self.emit("r3 = r4")
        self.emit(f"r3 += {k}")
        self.emit(f"if r3 > r8 goto {l}")
        self.emit(f"r5 = *(u8 *)(r4 + {off})")
        self.emit("r9 += r5")
        self.lab(l)

    def spill(self):
        r = self.rng
        k = r.randrange(1, 9)
        what = r.choice(["r9", "r9", "r7", "w9"])
        if what == "w9":
            self.emit(f"*(u32 *)(r10 - {k * 8}) = w9")
            self.emit(f"*(u32 *)(r10 - {k * 8 - 4}) = w9")
        else:
            self.emit(f"*(u64 *)(r10 - {k * 8}) = {what}")
        self.stack[k] = "pkt" if what == "r7" else "scalar"

    def fill(self):
        r = self.rng
        if self.stack and not self.rare(0.05):
            k = r.choice(sorted(self.stack))
        else:
            k = r.randrange(1, 9)
        self.emit(f"r5 = *(u64 *)(r10 - {k * 8})")
        if self.stack.get(k) == "pkt":
            # A filled packet pointer is used as one, with its own check.
            l = self.fresh()
            self.emit("r4 = r5")
            self.emit("r4 += 2")
            self.emit(f"if r4 > r8 goto {l}")
            self.emit("r3 = *(u8 *)(r5 + 1)")
            self.emit("r9 += r3")
            self.lab(l)
        else:
            self.emit("r9 += r5")

    def alu(self):
        r = self.rng
        reg32 = r.random() < 0.4
        d = "w9" if reg32 else "r9"
        op = r.choice(["+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<=", ">>=", "s>>=",
                       "s/=", "s%=", "neg", "movsx", "bswap", "be", "le"])
        if op == "neg":
            self.emit(f"{d} = -{d}")
        elif op == "movsx":
            w = r.choice([8, 16] + ([] if reg32 else [32]))
            self.emit(f"{d} = (s{w}){d}")
        elif op == "bswap":
            self.emit(f"r9 = bswap{r.choice([16, 32, 64])} r9")
        elif op in ("be", "le"):
            self.emit(f"r9 = {op}{r.choice([16, 32, 64])} r9")
        elif op in ("<<=", ">>=", "s>>="):
            if r.random() < 0.5:
                self.emit(f"{d} {op} {r.randrange(0, 32 if reg32 else 64)}")
            else:
                self.emit("r5 = r9")
                self.emit(f"{d} {op} {'w5' if reg32 else 'r5'}")
        elif op in ("/=", "%=", "s/=", "s%="):
            if r.random() < 0.5 and not op.startswith("s"):
                # No immediate forms of sdiv/smod in the assembler; divisors by
                # immediate are positive (the kernel refuses 0).
                self.emit(f"{d} {op} {r.choice([1, 2, 3, 7, 255, 1000])}")
            else:  # a divisor that may be zero at run time
                self.load_byte_into("r5")
                self.emit(f"{d} {op} {'w5' if reg32 else 'r5'}")
        else:
            if r.random() < 0.6:
                self.emit(f"{d} {op} {r.randrange(-100000, 100000)}")
            else:
                self.load_byte_into("r5")
                self.emit(f"{d} {op} {'w5' if reg32 else 'r5'}")

    def load_byte_into(self, reg):
        """reg = a packet byte (0 where the packet is empty)."""
        l = self.fresh()
        self.emit(f"{reg} = 0")
        self.emit("r4 = r7")
        self.emit(f"r4 += {self.rng.randrange(1, 40)}")
        self.emit(f"if r4 > r8 goto {l}")
        self.emit(f"{reg} = *(u8 *)(r4 - 1)")
        self.lab(l)

    def branch(self):
        r = self.rng
        l = self.fresh()
        reg = r.choice(["r9", "w9"])
        cmp = r.choice([">", ">=", "<", "<=", "==", "!=", "s>", "s>=", "s<", "s<=", "&"])
        rhs = r.choice([str(r.randrange(-300, 300)), "r5" if reg == "r9" else "w5"])
        if rhs in ("r5", "w5"):
            self.load_byte_into("r5")
        self.emit(f"if {reg} {cmp} {rhs} goto {l}")
        self.emit(f"r9 += {r.randrange(1, 9)}")
        self.lab(l)

    def array_lookup(self):
        r = self.rng
        l = self.fresh()
        # The key in an aligned slot: there the kernel keeps a constant key
        # and elides the null check of an in-range array lookup, as we do.
        if r.random() < 0.5:
            self.emit(f"*(u32 *)(r10 - 8) = {r.randrange(0, 10)}")
        else:
            self.load_byte_into("r5")
            self.emit(f"r5 &= {r.choice([7, 15])}")
            self.emit("*(u32 *)(r10 - 8) = w5")
        if 1 in self.stack:
            self.stack[1] = "scalar"
        self.emit("r2 = r10")
        self.emit("r2 += -8")
        self.emit("r1 = %[arr] ll")
        self.emit("call 1")
        if not self.rare(0.05):
            self.emit(f"if r0 == 0 goto {l}")
        off = r.choice([0, 8]) if not self.rare(0.08) else r.choice([12, 16, -8])
        kind = r.randrange(4)
        if kind == 0:
            self.emit(f"r5 = *(u64 *)(r0 + {off})")
            self.emit("r9 += r5")
        elif kind == 1:
            self.emit(f"*(u64 *)(r0 + {off}) = r9")
        elif kind == 2:
            self.emit("r5 = 1")
            self.emit(f"lock *(u64 *)(r0 + {off}) += r5")
        else:
            self.emit("r5 = r9")
            self.emit(f"r5 = atomic_fetch_add((u64 *)(r0 + {off}), r5)")
            self.emit("r9 ^= r5")
        self.lab(l)

    def hash_key(self):
        r = self.rng
        if 1 in self.stack:
            self.stack[1] = "scalar"  # half of the slot overwritten
        if r.random() < 0.4:
            self.emit(f"*(u32 *)(r10 - 4) = {r.randrange(0, 6)}")
        else:
            self.load_byte_into("r5")
            self.emit(f"r5 &= {r.choice([3, 7, 31])}")
            self.emit("*(u32 *)(r10 - 4) = w5")

    def hash_update(self):
        r = self.rng
        self.hash_key()
        self.emit("*(u64 *)(r10 - 16) = r9")
        self.stack[2] = "scalar"
        self.emit("r2 = r10")
        self.emit("r2 += -4")
        self.emit("r3 = r10")
        self.emit("r3 += -16")
        self.emit(f"r4 = {r.choice([0, 0, 1, 2])}")  # BPF_ANY, BPF_NOEXIST, BPF_EXIST
        self.emit("r1 = %[hash] ll")
        self.emit("call 2")
        self.emit("r9 += r0")

    def hash_lookup(self):
        r = self.rng
        l = self.fresh()
        self.hash_key()
        self.emit("r2 = r10")
        self.emit("r2 += -4")
        self.emit("r1 = %[hash] ll")
        self.emit("call 1")
        if not self.rare(0.05):
            self.emit(f"if r0 == 0 goto {l}")
        if r.random() < 0.5:
            self.emit(f"r5 = *(u64 *)(r0 + {0 if not self.rare(0.08) else 4})")
            self.emit("r9 += r5")
        else:
            self.emit("r5 = 3")
            self.emit("lock *(u64 *)(r0 + 0) += r5")
        self.lab(l)

    def hash_delete(self):
        self.hash_key()
        self.emit("r2 = r10")
        self.emit("r2 += -4")
        self.emit("r1 = %[hash] ll")
        self.emit("call 3")
        self.emit("r9 += r0")

    def csum(self):
        r = self.rng
        self.emit("*(u64 *)(r10 - 24) = r9")
        self.emit(f"r5 = {r.randrange(0, 1 << 30)}")
        self.emit("*(u64 *)(r10 - 32) = r5")
        self.stack.update({3: "scalar", 4: "scalar"})
        self.emit("r1 = r10")
        self.emit("r1 += -24")
        self.emit(f"r2 = {r.choice([0, 4, 8])}")
        self.emit("r3 = r10")
        self.emit("r3 += -32")
        self.emit(f"r4 = {r.choice([4, 8, 16]) if not self.rare(0.1) else 6}")
        self.emit(f"r5 = {r.randrange(0, 65536)}")
        self.emit("call 28")
        self.emit("r9 += r0")

    def adjust(self):
        r = self.rng
        helper = r.choice([44, 65])
        self.emit("r1 = r6")
        if helper == 44:
            delta = r.choice([-32, -14, -4, -1, 1, 4, 14, 20])
        else:
            # Growth within the tailroom ebpf-gpu promises, whichever calls
            # succeed (shrinking calls are not counted: they may fail).
            delta = r.choice([d for d in [-20, -4, -1, 1, 4, 64, 200]
                              if d <= TAILROOM - self.tail_growth])
            self.tail_growth += max(delta, 0)
        self.emit(f"r2 = {delta}")
        self.emit(f"call {helper}")
        self.emit("r9 += r0")
        if self.rare(0.1):
            # A packet pointer from before the helper: refused by the kernel.
            l = self.fresh()
            self.emit("r4 = r7")
            self.emit("r4 += 1")
            self.emit(f"if r4 > r8 goto {l}")
            self.emit("r5 = *(u8 *)(r7 + 0)")
            self.emit("r9 += r5")
            self.lab(l)
        self.reload()

    def load_store_bytes(self):
        r = self.rng
        n = r.choice([1, 2, 4, 8, 16])
        self.emit("r1 = r6")
        self.emit(f"r2 = {r.randrange(0, 70)}")
        self.emit("r3 = r10")
        self.emit("r3 += -48")
        self.emit(f"r4 = {n}")
        if r.random() < 0.7:
            # The kernel leaves the buffer as it was when the helper fails:
            # what the program then reads must not be old stack contents.
            self.emit("r0 = 0")
            self.emit("*(u64 *)(r10 - 48) = r0")
            self.emit("*(u64 *)(r10 - 40) = r0")
            self.emit("call 189")  # xdp_load_bytes
            self.stack[6] = "scalar"  # written by the helper (uninit memory argument)
            if n == 16:
                self.stack[5] = "scalar"
            self.emit("r9 += r0")
            self.emit("r5 = *(u8 *)(r10 - 48)")
            self.emit("r9 += r5")
        else:
            # store_bytes reads the buffer: it must have been written.
            if not self.rare(0.3):
                self.emit("*(u64 *)(r10 - 48) = r9")
                self.emit("*(u64 *)(r10 - 40) = r9")
                self.stack.update({5: "scalar", 6: "scalar"})
            self.emit("call 190")  # xdp_store_bytes
            self.emit("r9 += r0")
        self.reload()

    def loop(self):
        r = self.rng
        n = r.randrange(1, 24)
        l = self.fresh()
        if r.random() < 0.5:
            self.emit("r4 = 0")
            self.lab(l)
            self.emit("r9 += r4")
            self.emit("r4 += 1")
            self.emit(f"if r4 < {n} goto {l}")
        else:
            self.emit(f"w4 = {n}")
            self.lab(l)
            self.emit("w9 ^= w4")
            self.emit("w4 -= 1")
            self.emit(f"if w4 s> 0 goto {l}")

    def call(self):
        r = self.rng
        i = len(self.subs)
        name = f"{self.name}_sub{i}"
        kind = r.randrange(4)
        body = []
        if kind == 0:  # scalars in, scalar out
            body = ["r0 = r1", f"r0 *= {r.randrange(1, 50)}", "r0 += r2", "exit"]
            self.emit("r1 = r9")
            self.emit(f"r2 = {r.randrange(0, 100)}")
        elif kind == 1:  # its own stack
            k = r.randrange(1, 5) * 8
            body = [f"*(u64 *)(r10 - {k}) = r1", f"r0 = *(u64 *)(r10 - {k})",
                    f"r0 ^= {r.randrange(0, 1000)}", "exit"]
            self.emit("r1 = r9")
        elif kind == 2:  # the caller's packet
            k = r.randrange(1, 30)
            off = r.randrange(0, k) if not self.rare(0.15) else k
            body = ["r0 = 0", "r3 = r1", f"r3 += {k}", "if r3 > r2 goto .Lout",
                    f"r0 = *(u8 *)(r1 + {off})", ".Lout:", "exit"]
            self.emit("r1 = r7")
            self.emit("r2 = r8")
        else:  # the caller's stack
            written = not self.rare(0.1)
            if written:
                self.emit("*(u64 *)(r10 - 56) = r9")
                self.stack[7] = "scalar"
            body = ["r0 = *(u64 *)(r1 + 0)", "r0 += 1", "exit"]
            self.emit("r1 = r10")
            self.emit("r1 += -56")
        self.subs.append((name, body))
        self.emit(f"call {name}")
        self.emit("r9 += r0")

    SNIPPETS = ["pkt_read", "pkt_read", "pkt_write", "pkt_varoff", "spill", "fill", "alu", "alu",
                "branch", "branch", "array_lookup", "hash_update", "hash_lookup", "hash_delete",
                "csum", "adjust", "load_store_bytes", "loop", "call"]

    def program(self, n, hash_entries):
        """The program's functions (C text, without the prelude)."""
        self.emit("r6 = r1")
        self.reload()
        self.emit("r9 = 2")
        for _ in range(n):
            getattr(self, self.rng.choice(self.SNIPPETS))()
        self.emit("r0 = r9")
        self.emit("r0 &= 3")
        self.emit("exit")
        out = []
        for name, body in self.subs:
            asm = "\n".join(f'    "{l}\\n"' for l in body).replace(".Lout", f".L{name}_out")
            out.append(f"static __attribute__((naked, noinline, used)) int {name}(void) {{\n"
                       f"  asm volatile(\n{asm}\n    ::: \"memory\");\n}}\n")
        asm = "\n".join(f'    "{l}\\n"' for l in self.lines)
        out.append(f'SEC("xdp") __attribute__((naked)) int {self.name}(void) {{\n'
                   f"  asm volatile(\n{asm}\n"
                   f'    :: [arr] "i"(&arr), [hash] "i"(&hash{hash_entries}) : "memory");\n}}\n')
        return "\n".join(out)


def generate(seed, i, snippets):
    """Program i of a seed: its name and functions. The same whichever way
    it is checked (alone or in a batch)."""
    import random
    rng = random.Random(seed * 1000003 + i)
    name = f"p{i}"
    return name, Gen(rng, name).program(rng.randrange(1, snippets + 1), rng.choice(HASH_SIZES))


def norm(reason):
    reason = re.sub(r"0x[0-9a-f]+", "N", reason)
    reason = re.sub(r"-?\d+", "N", reason)
    return reason.strip()[:110]


def kernel_verdict(obj, pin):
    r = subprocess.run(["bpftool", "prog", "load", obj, pin, "type", "xdp"], capture_output=True,
                       text=True)
    if r.returncode == 0:
        os.unlink(pin)
        return True, ""
    if "BEGIN PROG LOAD LOG" not in r.stderr and "failed to load" not in r.stderr:
        raise RuntimeError(f"the kernel was not asked about {obj}: {r.stderr.strip()[:300]}")
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    why = ""
    for i, l in enumerate(lines):
        if l.startswith("processed ") or "END PROG LOAD LOG" in l:
            why = lines[i - 1] if i else ""
            break
    return False, norm(why)


def compile_c(args, src, c, o):
    with open(c, "w") as f:
        f.write(src)
    cc = subprocess.run([args.clang, "-O2", "-g", "-target", "bpf", "-mcpu=v4", "-I" + args.include,
                         "-c", c, "-o", o], capture_output=True, text=True)
    if cc.returncode != 0:
        return cc.stderr.strip().splitlines()[0][:200] if cc.stderr.strip() else "?"
    return None


def one(args, seed, i, work, pcap):
    """The per-program path: clang, ebpf-gpu-cc, bpftool and two loader
    runs for program i."""
    name, funcs = generate(seed, i, args.snippets)
    c = os.path.join(work, f"p{i}.c")
    o = os.path.join(work, f"p{i}.o")
    err = compile_c(args, PRELUDE + funcs, c, o)
    if err:
        return i, c, "clang", err
    ours = subprocess.run([args.cc, o, "--emit=llvm", "-o", os.devnull], capture_output=True,
                          text=True)
    ours_ok = ours.returncode == 0
    if ours.returncode not in (0, 1):
        return i, c, "crash", f"ebpf-gpu-cc exit {ours.returncode}: {ours.stderr.strip()[-200:]}"
    our_why = norm(re.sub(r"^.*?pc \d+: ", "", ours.stderr.strip().splitlines()[-1])) \
        if not ours_ok and ours.stderr.strip() else ""
    theirs_ok, their_why = kernel_verdict(o, f"/sys/fs/bpf/ebpf_gpu_rich_{os.getpid()}")
    if ours_ok and theirs_ok:
        d = subprocess.run([sys.executable, DIFFERENTIAL, "--loader", args.loader, "--pcap", pcap,
                            "--work", os.path.join(work, f"d{i}"), f"{o}:{name}"],
                           capture_output=True, text=True)
        shutil.rmtree(os.path.join(work, f"d{i}"), ignore_errors=True)
        if d.returncode != 0:
            # Stack bytes never written: zeros here, the kernel's leftovers
            # there (`compare` says uninit-stack for the same).
            log = subprocess.run([args.cc, o, "--emit=verifier-log"], capture_output=True,
                                 text=True).stdout
            if "reads stack bytes the program may not have written" in log:
                return i, c, "uninit", ""
            return i, c, "diff", (d.stdout + d.stderr).strip()[-300:]
        return i, c, "both", ""
    if ours_ok:
        return i, c, "ours", their_why
    if theirs_ok:
        return i, c, "kernel", our_why
    return i, c, "neither", their_why


COMPARE_RESULTS = {"both": "both", "neither": "neither", "kernel": "kernel", "ours": "ours",
                   "differ": "diff", "error": "crash", "uninit-stack": "uninit"}


def batch(args, seed, first, count, work, pcap):
    """The batch path: programs first..first+count-1 as functions of one
    object (one clang call), checked by one `ebpf-gpu-loader compare`."""
    progs = [generate(seed, i, args.snippets) for i in range(first, first + count)]
    alone = {}  # program index -> its own C file (kept when it disagrees)
    results = []

    def own_file(i, funcs):
        c = os.path.join(work, f"p{i}.c")
        with open(c, "w") as f:
            f.write(PRELUDE + funcs)
        alone[i] = c
        return c

    c = os.path.join(work, f"b{first}.c")
    o = os.path.join(work, f"b{first}.o")
    if compile_c(args, PRELUDE + "\n".join(f for _, f in progs), c, o):
        # Find the programs clang refuses; the others go on in one object.
        good = []
        for k, (name, funcs) in enumerate(progs):
            pc = own_file(first + k, funcs)
            err = compile_c(args, PRELUDE + funcs, pc, pc[:-2] + ".o")
            if err:
                results.append((first + k, pc, "clang", err))
            else:
                good.append((name, funcs))
        if not good:
            return results
        if compile_c(args, PRELUDE + "\n".join(f for _, f in good), c, o):
            raise RuntimeError(f"{c}: programs that compile alone do not compile together")
    index = {name: first + k for k, (name, _) in enumerate(progs)}
    funcs = dict(progs)
    r = subprocess.run([args.loader, "compare", o, "--pcap", pcap], capture_output=True, text=True)
    seen = set()
    for line in r.stdout.splitlines():
        m = re.match(r"^(p\d+): ([\w-]+): (.*)$", line)
        if not m or m.group(1) not in index:
            continue  # an indented line of a detail
        name, what, why = m.groups()
        what = COMPARE_RESULTS[what]
        seen.add(name)
        if what == "kernel":
            why = norm(re.sub(r"^.*?pc \d+: ", "", why))
        elif what in ("ours", "neither"):
            why = norm(why)
        elif what == "uninit":
            why = ""
        pc = own_file(index[name], funcs[name]) if what in ("ours", "diff", "crash") else ""
        results.append((index[name], pc, what, why))
    done = {x[0] for x in results}
    for name, i in index.items():
        if i not in done:  # compare died before it got there
            results.append((i, own_file(i, funcs[name]), "crash",
                            f"ebpf-gpu-loader compare exit {r.returncode}: "
                            f"{r.stderr.strip()[-200:]}"))
    for f in (c, o):
        os.unlink(f)
    return results


def work_item(item):
    mode, args, seed, first, count, work, pcap = item
    if mode == "process":
        return [one(args, seed, first, work, pcap)]
    return batch(args, seed, first, count, work, pcap)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--snippets", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cc", default="ebpf-gpu-cc")
    ap.add_argument("--loader", default="ebpf-gpu-loader")
    ap.add_argument("--trafgen", default="ebpf-gpu-trafgen")
    ap.add_argument("--clang", default="clang-19")
    ap.add_argument("--include", default="/usr/include/x86_64-linux-gnu")
    ap.add_argument("--keep", help="folder for the programs that disagreed")
    ap.add_argument("--reasons", action="store_true", help="print refusal reasons, grouped")
    ap.add_argument("--mode", choices=["batch", "process"], default="batch",
                    help="batch: --batch programs an object, one `ebpf-gpu-loader compare` "
                    "each; process: per program clang, ebpf-gpu-cc, bpftool and two loader runs")
    ap.add_argument("--batch", type=int, default=50, help="programs an object in batch mode")
    ap.add_argument("--first", type=int, default=0, help="index of the first program")
    ap.add_argument("--timing", action="store_true", help="print the seconds and programs/s")
    ap.add_argument("--results", help="write 'INDEX RESULT REASON' per program to this file "
                    "(sorted; the two modes' files on one seed must be the same)")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="ebpf-gpu-rich-")
    pcap = os.path.join(work, "p.pcap")
    subprocess.run([args.trafgen, "-o", pcap, "--count", "100", "--seed", str(args.seed)],
                   check=True)
    if args.mode == "process":
        items = [("process", args, args.seed, args.first + i, 1, work, pcap)
                 for i in range(args.count)]
    else:
        items = [("batch", args, args.seed, args.first + i, min(args.batch, args.count - i), work,
                  pcap) for i in range(0, args.count, args.batch)]
    counts = collections.Counter()
    reasons = {k: collections.Counter() for k in ("ours", "kernel", "neither")}
    failures = []
    per_program = []
    start = time.monotonic()
    with multiprocessing.Pool(args.jobs) as pool:
        for results in pool.imap_unordered(work_item, items):
            for i, c, what, why in results:
                per_program.append((i, what, why))
                counts[what] += 1
                if what in reasons:
                    reasons[what][why] += 1
                if what in ("ours", "diff", "clang", "crash"):
                    failures.append((c, what, why))
                elif c:
                    os.unlink(c)
                    o = c[:-2] + ".o"
                    if os.path.exists(o):
                        os.unlink(o)
    seconds = time.monotonic() - start
    if args.results:
        with open(args.results, "w") as f:
            for i, what, why in sorted(per_program):
                # Back-end differences and errors carry paths and run details.
                f.write(f"{i} {what} {why if what in reasons else ''}\n")
    labels = {"ours": "SOUNDNESS: our verifier accepts, the kernel refuses",
              "diff": "back ends differ", "clang": "generator error (clang)",
              "crash": "ebpf-gpu-cc crashed"}
    for c, what, why in sorted(failures):
        print(f"DISAGREE {labels[what]}: {c}: {why}")
        if args.keep:
            os.makedirs(args.keep, exist_ok=True)
            shutil.copy(c, args.keep)
    if args.reasons:
        for k, title in (("kernel", "only the kernel accepts; ours says"),
                         ("neither", "both refuse; the kernel says"),
                         ("ours", "only ours accepts; the kernel says")):
            for why, n in reasons[k].most_common():
                print(f"  {title}: {n:6d}  {why}")
    print(f"{args.count} programs: both accept {counts['both'] + counts['uninit']}, "
          f"{counts['uninit']} of them differing where they read stack bytes never written, "
          f"both refuse {counts['neither']}, "
          f"only the kernel accepts {counts['kernel']}, only ours accepts {counts['ours']}, "
          f"back-end differences {counts['diff']}, errors {counts['clang'] + counts['crash']}")
    if args.timing:
        print(f"{seconds:.1f} s, {args.count / seconds:.1f} programs/s ({args.mode} mode, "
              f"{args.jobs} jobs)")
    if not failures:
        shutil.rmtree(work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

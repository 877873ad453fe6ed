#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Random rules in the pattern files' regex subset, traffic that embeds
strings they match, and a reference from Python's own `re` for the program
tests/lit/loader/Inputs/match_all.c (ebpf_gpu_match and ebpf_gpu_match_all).

  regex-traffic.py gen --seed S --rules N --packets P [--literals L] OUT
      writes OUT.rules (N rules: regexes, some with the nocase flag, plus L
      literal rules; ids 0 to 255, some shared) and OUT.pcap (P frames: 14
      bytes of Ethernet header, a u32 packet number, a payload of 0 to 300
      bytes over a small alphabet, half of them with strings that random
      rules match embedded). Deterministic for a seed.
  regex-traffic.py check OUT.rules OUT.pcap VERDICTS MAPS
      per packet, the first match (the rule whose earliest match ends
      first; the lowest id of those ending at the same byte), the number
      of distinct ids matched and their bitmap, each rule searched with
      re.search (re.DOTALL; re.IGNORECASE for flag i) against
      `run --verdicts VERDICTS --dump-maps MAPS`; exit 1 on any difference.

The rules are written in the subset's syntax, which is also Python's for
everything the generator writes, so `re` reads the same text: the
reference (rulecheck.py, shared with mixed-traffic.py) shares no code with
ebpf-gpu's compiler.
"""

import random
import sys

from pcapcheck import write_pcap  # the pcap code this folder's scripts share
from rulecheck import check_run, compile_regex, numbered_frame  # and their reference

ALPHABET = b"abcAB01 .x-_\n\x00\xff"
LITERALS = "abcAB01x"
PUNCT = ".-|()[]{}*+?/\\"


class Gen:
    def __init__(self, r):
        self.r = r

    def literal(self):
        """(regex text, sampler)"""
        r = self.r
        k = r.random()
        if k < 0.7:
            c = r.choice(LITERALS)
            return c, lambda: c.encode()
        if k < 0.85:
            c = r.choice(PUNCT)
            return "\\" + c, lambda: c.encode()
        b = r.choice([0, 255, 10, 0x41, 0x62, 0x2e])
        return "\\x%02x" % b, lambda: bytes([b])

    def cls(self):
        r = self.r
        items, members = [], set()
        for _ in range(r.randint(1, 3)):
            k = r.random()
            if k < 0.4:
                lo = r.choice("aA0")
                hi = chr(ord(lo) + r.randint(0, 3))
                items.append("%s-%s" % (lo, hi))
                members |= set(range(ord(lo), ord(hi) + 1))
            elif k < 0.6:
                e = r.choice("dws")
                items.append("\\" + e)
                members |= set(CLASS[e])
            elif k < 0.8:
                c = r.choice(".-]\\^")
                items.append("\\" + c)
                members.add(ord(c))
            else:
                b = r.choice([0, 255, 0x78])
                items.append("\\x%02x" % b)
                members.add(b)
        neg = r.random() < 0.15
        text = "[" + ("^" if neg else "") + "".join(items) + "]"
        pool = sorted(set(range(256)) - members) if neg else sorted(members)
        return text, pool

    def atom(self, depth):
        r = self.r
        k = r.random()
        # Wide atoms (., negations) under repetition multiply a DFA's
        # states: kept rare, and groups one level deep, so that 40 rules
        # stay well inside the state cap.
        if k < 0.6 or depth > 1:
            return self.literal()
        if k < 0.75:
            text, pool = self.cls()
            return text, lambda: bytes([r.choice(pool)])
        if k < 0.78:
            return ".", lambda: bytes([r.choice(ALPHABET)])
        if k < 0.88:
            e = r.choice("dwsdwsDWS")
            pool = CLASS[e.lower()] if e.islower() else sorted(set(range(256)) - set(CLASS[e.lower()]))
            return "\\" + e, lambda: bytes([r.choice(pool)])
        alts = [self.concat(depth + 1) for _ in range(r.randint(1, 3))]
        return ("(" + "|".join(a[0] for a in alts) + ")",
                lambda: r.choice(alts)[1]())

    def quantified(self, depth):
        r = self.r
        text, sample = self.atom(depth)
        k = r.random()
        if k < 0.6:
            return text, sample
        if k < 0.68:
            q, lo, hi = "?", 0, 1
        elif k < 0.76:
            q, lo, hi = "*", 0, 3
        elif k < 0.84:
            q, lo, hi = "+", 1, 3
        elif k < 0.9:
            n = r.randint(1, 4)
            q, lo, hi = "{%d}" % n, n, n
        elif k < 0.96:
            m = r.randint(0, 2)
            n = m + r.randint(0, 3)
            q, lo, hi = "{%d,%d}" % (m, n), m, n
        else:
            m = r.randint(1, 2)
            q, lo, hi = "{%d,}" % m, m, m + 2
        return text + q, lambda: b"".join(sample() for _ in range(r.randint(lo, hi)))

    def concat(self, depth):
        parts = [self.quantified(depth) for _ in range(self.r.randint(1, 4 - min(depth, 2)))]
        return "".join(p[0] for p in parts), lambda: b"".join(p[1]() for p in parts)


CLASS = {
    "d": list(range(48, 58)),
    "w": list(range(48, 58)) + list(range(65, 91)) + list(range(97, 123)) + [95],
    "s": [9, 10, 11, 12, 13, 32],
}


def gen(seed, nrules, nliterals, npackets, out):
    r = random.Random(seed)
    g = Gen(r)
    rules = []  # (id, text, nocase, compiled regex or None, sampler)
    lines = ["# regex-traffic.py gen --seed %d: %d regex rules, %d literal rules" %
             (seed, nrules, nliterals)]
    while len(rules) < nrules:
        text, sample = g.concat(0)
        nocase = r.random() < 0.25
        rx = compile_regex(text.encode("latin-1"), nocase)
        if rx.fullmatch(b""):
            continue  # matches the empty string: the subset refuses it
        rid = r.randrange(256) if r.random() < 0.9 else (rules[-1][0] if rules else 0)
        rules.append((rid, text, nocase, rx, sample))
        lines.append("id:%d re:/%s/%s" % (rid, text, "i" if nocase else ""))
    for _ in range(nliterals):
        lit = bytes(r.choice(b"abcx01") for _ in range(r.randint(2, 5)))
        rid = r.randrange(256)
        rules.append((rid, lit.decode(), False, None, lambda lit=lit: lit))
        lines.append("id:%d %s" % (rid, lit.decode()))
    with open(out + ".rules", "w") as f:
        f.write("\n".join(lines) + "\n")

    def frames():
        for i in range(npackets):
            payload = bytearray(r.choice(ALPHABET) for _ in range(r.randint(0, 300)))
            if rules and r.random() < 0.5:
                for _ in range(r.randint(1, 3)):
                    s = r.choice(rules)[4]()
                    at = r.randint(0, len(payload))
                    payload[at:at] = s
            yield numbered_frame(i, payload)
    write_pcap(out + ".pcap", frames())


def check(rules_path, pcap, verdicts, maps):
    t = check_run(rules_path, pcap, verdicts, maps, literals_by_re=True)
    if t is None:
        return 1
    print("reference: %d packets, %d rules, %d matched, %d rule matches, %d differences" %
          (t.packets, t.literals + t.regexes, t.matched, t.rule_matches, t.differences))
    return 1 if t.differences else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "gen":
        a = dict(zip(argv[2:-1:2], argv[3:-1:2]))
        gen(int(a.get("--seed", "1")), int(a.get("--rules", "40")), int(a.get("--literals", "0")),
            int(a.get("--packets", "500")), argv[-1])
        return 0
    if len(argv) == 6 and argv[1] == "check":
        return check(*argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

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
reference shares no code with ebpf-gpu's compiler.
"""

import random
import re
import struct
import sys

from pcapcheck import packets  # the pcap reader this folder's scripts share

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


def compile_rule(text, nocase):
    return re.compile(text.encode("latin-1"), re.DOTALL | (re.IGNORECASE if nocase else 0))


def gen(seed, nrules, nliterals, npackets, out):
    r = random.Random(seed)
    g = Gen(r)
    rules = []  # (id, text, nocase, compiled, sampler)
    lines = ["# regex-traffic.py gen --seed %d: %d regex rules, %d literal rules" %
             (seed, nrules, nliterals)]
    while len(rules) < nrules:
        text, sample = g.concat(0)
        nocase = r.random() < 0.25
        rx = compile_rule(text, nocase)
        if rx.fullmatch(b""):
            continue  # matches the empty string: the subset refuses it
        rid = r.randrange(256) if r.random() < 0.9 else (rules[-1][0] if rules else 0)
        rules.append((rid, text, nocase, rx, sample))
        lines.append("id:%d re:/%s/%s" % (rid, text, "i" if nocase else ""))
    for _ in range(nliterals):
        lit = bytes(r.choice(b"abcx01") for _ in range(r.randint(2, 5)))
        rid = r.randrange(256)
        rules.append((rid, lit.decode(), False, re.compile(re.escape(lit)), lambda lit=lit: lit))
        lines.append("id:%d %s" % (rid, lit.decode()))
    with open(out + ".rules", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(out + ".pcap", "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i in range(npackets):
            payload = bytearray(r.choice(ALPHABET) for _ in range(r.randint(0, 300)))
            if rules and r.random() < 0.5:
                for _ in range(r.randint(1, 3)):
                    s = r.choice(rules)[4]()
                    at = r.randint(0, len(payload))
                    payload[at:at] = s
            frame = b"\x02" * 6 + b"\x04" * 6 + b"\x88\xb5" + struct.pack("<I", i) + bytes(payload)
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)) + frame)


def read_rules(path):
    rules = []
    for line in open(path, encoding="latin-1"):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"id:(\d+) (.*)$", line)
        rid, body = int(m.group(1)), m.group(2)
        if body.startswith("re:/"):
            close = body.rfind("/")
            rules.append((rid, compile_rule(body[4:close], body[close + 1:] == "i")))
        else:
            rules.append((rid, re.compile(re.escape(body.encode("latin-1")))))
    return rules


def earliest_end(rx, payload):
    """The smallest e such that some match lies in payload[:e] (None: none).
    Whether payload[:e] holds a match grows with e: a bisection."""
    if not rx.search(payload):
        return None
    lo, hi = 1, len(payload)
    while lo < hi:
        mid = (lo + hi) // 2
        if rx.search(payload[:mid]):
            hi = mid
        else:
            lo = mid + 1
    return lo


def expected(rules, payload):
    best, ids = None, set()
    for rid, rx in rules:
        e = earliest_end(rx, payload)
        if e is None:
            continue
        ids.add(rid)
        if best is None or (e, rid) < best:
            best = (e, rid)
    first = best[1] if best else -2
    bits = [0, 0, 0, 0]
    for i in ids:
        if i < 256:
            bits[i // 64] |= 1 << (i % 64)
    count = len(ids) if all(i < 256 for i in ids) else -7
    return first, count, bits


def check(rules_path, pcap, verdicts, maps):
    rules = read_rules(rules_path)
    frames = list(packets(pcap))
    got = [line.split() for line in open(verdicts) if line.strip()]
    if len(got) != len(frames):
        print("%d verdicts for %d packets" % (len(got), len(frames)))
        return 1
    results = parse_results(open(maps).read())
    bad = matched = total_ids = 0
    for fr in frames:
        n = struct.unpack_from("<I", fr, 14)[0]
        first, count, bits = expected(rules, fr[18:])
        verdict = "XDP_DROP" if first >= 0 else "XDP_PASS"
        matched += first >= 0
        total_ids += max(count, 0)
        have = results.get(n, (-999, -999, None))
        if verdict not in got[n] or have != (first, count, bits):
            bad += 1
            if bad <= 5:
                print("packet %d: expected %s first %d count %d bits %s, got %s %s" %
                      (n, verdict, first, count, [hex(b) for b in bits], " ".join(got[n]),
                       have))
    print("reference: %d packets, %d rules, %d matched, %d rule matches, %d differences" %
          (len(frames), len(rules), matched, total_ids, bad))
    return 1 if bad else 0


def parse_results(text):
    """results[N] = {first, count, bits[4]} from --dump-maps."""
    out = {}
    for m in re.finditer(r"^results\[(\d+)\] = (.*)$", text, re.M):
        raw = bytes.fromhex(m.group(2).replace(" ", ""))
        first, count, b0, b1, b2, b3 = struct.unpack("<iiQQQQ", raw)
        out[int(m.group(1))] = (first, count, [b0, b1, b2, b3])
    return out


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

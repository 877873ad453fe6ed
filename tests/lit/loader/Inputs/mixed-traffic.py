#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A pattern file of many literal rules and a few regexes (two automata in
one pattern map: docs/KFUNCS.md), traffic that embeds both, and a reference
for the program tests/lit/loader/Inputs/match_all.c (ebpf_gpu_match and
ebpf_gpu_match_all) that shares no code with ebpf-gpu's compiler.

  mixed-traffic.py rules [--fold N] LITERALS OUT.rules
      OUT.rules: every literal rule of LITERALS (a pattern file, e.g.
      bench/rules/et-open-10000.rules), its id taken modulo N when --fold
      is given (so that match_all's 256-bit bitmap holds every id), then
      the regex rules below, some with ids that literal rules share.
  mixed-traffic.py gen --seed S --packets P RULES OUT.pcap
      P frames: 14 bytes of Ethernet header, a u32 packet number, a
      payload of 0 to 600 bytes of HTTP-like text or random bytes; half of
      them with one to three strings embedded, each a literal rule's bytes
      or a string a regex rule matches. Deterministic for a seed.
  mixed-traffic.py check RULES PCAP VERDICTS MAPS
      per packet, the first match (the rule whose earliest match ends
      first; the lowest id of those ending at the same byte), the number
      of distinct ids matched (-7 when one is 256 or more) and the bitmap
      of ids below 256, against `run --verdicts VERDICTS --dump-maps MAPS`;
      exit 1 on any difference. Literal rules are found by a scan of each
      payload position against a table of the rules' first bytes, regex
      rules by Python's re (each alone; the earliest end by bisection over
      the payload's prefixes).
"""

import random
import re
import struct
import sys

from pcapcheck import packets  # the pcap reader this folder's scripts share

# (id, regex in the subset, flags, samples it matches): Python's syntax too.
REGEXES = [
    (3, r"GET \/[a-z]+\.php\?id=\d+", "i",
     [b"GET /index.php?id=42", b"get /a.PHP?ID=7"]),
    (77, r"User-Agent: [^\r\n]*(sqlmap|nikto)", "i",
     [b"User-Agent: sqlmap/1.5", b"user-agent: Mozilla nikto"]),
    (150, r"cmd\.exe.{0,8}\/c", "i", [b"cmd.exe /c", b"CMD.EXE%20/c"]),
    (201, r"\x90{12,}", "", [b"\x90" * 12, b"\x90" * 20]),
    (5, r"(union|select)\s+(all\s+)?select\s", "i",
     [b"UNION SELECT ", b"union all select\t"]),
]


def unescape(body):
    """A literal rule's bytes: \\xHH, \\\\, \\| escapes and |hex| runs."""
    out, i = bytearray(), 0
    while i < len(body):
        c = body[i:i + 1]
        if c == b"\\":
            e = body[i + 1:i + 2]
            if e == b"x":
                out.append(int(body[i + 2:i + 4], 16))
                i += 4
                continue
            out += e
            i += 2
        elif c == b"|":
            j = body.index(b"|", i + 1)
            out += bytes.fromhex(body[i + 1:j].decode())
            i = j + 1
        else:
            out += c
            i += 1
    return bytes(out)


def read_rules(path):
    """([(id, bytes)] literal rules, [(id, compiled regex)] regex rules)."""
    lits, rxs = [], []
    for n, line in enumerate(open(path, "rb").read().split(b"\n"), 1):
        line = line.strip(b" \t\r")
        if not line or line.startswith(b"#"):
            continue
        rid = n
        m = re.match(rb"id:(\d+)[ \t]+", line)
        if m:
            rid, line = int(m.group(1)), line[m.end():]
        if line.startswith(b"re:/"):
            close = line.rfind(b"/")
            flags = re.DOTALL | (re.IGNORECASE if line[close + 1:] == b"i" else 0)
            rxs.append((rid, re.compile(line[4:close], flags)))
        else:
            lits.append((rid, unescape(line)))
    return lits, rxs


def rules_file(argv):
    fold = None
    if argv[0] == "--fold":
        fold, argv = int(argv[1]), argv[2:]
    src, out = argv
    lines = ["# mixed-traffic.py rules%s %s: its literal rules and %d regexes" %
             (" --fold %d" % fold if fold else "", src.split("/")[-1], len(REGEXES))]
    count = 0
    for n, line in enumerate(open(src, "rb").read().split(b"\n"), 1):
        line = line.strip(b" \t\r")
        if not line or line.startswith(b"#"):
            continue
        rid = n
        m = re.match(rb"id:(\d+)[ \t]+", line)
        if m:
            rid, line = int(m.group(1)), line[m.end():]
        if line.startswith(b"re:/"):
            continue
        lines.append(b"id:%d %s" % (rid % fold if fold else rid, line))
        count += 1
    for rid, text, flags, _ in REGEXES:
        lines.append(("id:%d re:/%s/%s" % (rid, text, flags)).encode("latin-1"))
    with open(out, "wb") as f:
        f.write(b"\n".join(l if isinstance(l, bytes) else l.encode() for l in lines) + b"\n")
    return 0


WORDS = [b"GET ", b"POST ", b"/index.html", b" HTTP/1.1\r\n", b"Host: example.com\r\n",
         b"Accept: */*\r\n", b"Cookie: ", b"id=", b"&", b"select", b"union ", b"cmd", b".exe",
         b"User-Agent: ", b"Mozilla/5.0", b"\r\n"]


def gen(argv):
    a = dict(zip(argv[0:-2:2], argv[1:-2:2]))
    rules, out = argv[-2], argv[-1]
    r = random.Random(int(a.get("--seed", "1")))
    npackets = int(a.get("--packets", "1000"))
    lits, _ = read_rules(rules)
    with open(out, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i in range(npackets):
            payload = bytearray()
            size = r.randint(0, 600)
            if r.random() < 0.6:
                while len(payload) < size:
                    payload += r.choice(WORDS) if r.random() < 0.7 else \
                        bytes(r.randrange(32, 127) for _ in range(r.randint(1, 12)))
                del payload[size:]
            else:
                payload += bytes(r.randrange(256) for _ in range(size))
            if r.random() < 0.5:
                for _ in range(r.randint(1, 3)):
                    if r.random() < 0.5:
                        s = r.choice(lits)[1]
                    else:
                        s = r.choice(r.choice(REGEXES)[3])
                    at = r.randint(0, len(payload))
                    payload[at:at] = s
            frame = b"\x02" * 6 + b"\x04" * 6 + b"\x88\xb5" + struct.pack("<I", i) + bytes(payload)
            f.write(struct.pack("<IIII", i, 0, len(frame), len(frame)) + frame)
    return 0


def earliest_end(rx, payload):
    """The smallest e such that some match lies in payload[:e] (None: none)."""
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


class Literals:
    """Each literal rule's earliest end in a payload: the rules by their
    first two bytes (one-byte rules apart), tried at every position."""

    def __init__(self, lits):
        self.by2, self.one = {}, {}
        for rid, b in lits:
            if len(b) == 1:
                self.one.setdefault(b[0], []).append((rid, b))
            else:
                self.by2.setdefault(b[:2], []).append((rid, b))

    def ends(self, payload):
        """{(id, bytes): earliest end} for the rules the payload holds."""
        out = {}
        for i in range(len(payload)):
            for rule in self.one.get(payload[i], ()):
                out.setdefault(rule, i + 1)
            for rule in self.by2.get(payload[i:i + 2], ()):
                if rule not in out and payload.startswith(rule[1], i):
                    out[rule] = i + len(rule[1])
        return out


def expected(lits, rxs, payload):
    best, ids, by = None, set(), None
    found = [(e, rid, "literal") for (rid, _), e in lits.ends(payload).items()]
    for rid, rx in rxs:
        e = earliest_end(rx, payload)
        if e is not None:
            found.append((e, rid, "regex"))
    for e, rid, kind in found:
        ids.add(rid)
        if best is None or (e, rid) < best:
            best, by = (e, rid), kind
    # Of several rules ending first with one id, either kind names it.
    first = best[1] if best else -2
    bits = [0, 0, 0, 0]
    for i in ids:
        if i < 256:
            bits[i // 64] |= 1 << (i % 64)
    count = len(ids) if all(i < 256 for i in ids) else -7
    return first, count, bits, by


def parse_results(text):
    """results[N] = (first, count, bits[4]) from --dump-maps."""
    out = {}
    for m in re.finditer(r"^results\[(\d+)\] = (.*)$", text, re.M):
        raw = bytes.fromhex(m.group(2).replace(" ", ""))
        first, count, b0, b1, b2, b3 = struct.unpack("<iiQQQQ", raw)
        out[int(m.group(1))] = (first, count, [b0, b1, b2, b3])
    return out


def check(rules_path, pcap, verdicts, maps):
    lits, rxs = read_rules(rules_path)
    table = Literals(lits)
    frames = list(packets(pcap))
    got = [line.split() for line in open(verdicts) if line.strip()]
    if len(got) != len(frames):
        print("%d verdicts for %d packets" % (len(got), len(frames)))
        return 1
    results = parse_results(open(maps).read())
    bad = matched = total_ids = 0
    firsts = {"literal": 0, "regex": 0}
    for fr in frames:
        n = struct.unpack_from("<I", fr, 14)[0]
        first, count, bits, by = expected(table, rxs, fr[18:])
        verdict = "XDP_DROP" if first >= 0 else "XDP_PASS"
        if first >= 0:
            matched += 1
            firsts[by] += 1
        total_ids += max(count, 0)
        have = results.get(n, (-999, -999, None))
        if verdict not in got[n] or have != (first, count, bits):
            bad += 1
            if bad <= 5:
                print("packet %d: expected %s first %d count %d bits %s, got %s %s" %
                      (n, verdict, first, count, [hex(b) for b in bits], " ".join(got[n]), have))
    print("reference: %d packets, %d literal rules, %d regex rules, %d matched "
          "(first by a literal %d, by a regex %d), %d rule matches, %d differences" %
          (len(frames), len(lits), len(rxs), matched, firsts["literal"], firsts["regex"],
           total_ids, bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "rules":
        return rules_file(argv[2:])
    if len(argv) >= 4 and argv[1] == "gen":
        return gen(argv[2:])
    if len(argv) == 6 and argv[1] == "check":
        return check(*argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

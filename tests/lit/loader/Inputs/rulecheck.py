# SPDX-License-Identifier: Apache-2.0
#
# What the pattern-file scripts of this folder (ids-traffic.py,
# regex-traffic.py, mixed-traffic.py) share: a reader of the pattern file
# format (docs/KFUNCS.md), their numbered frames, and the reference for
# match_all.c (ebpf_gpu_match's first match, ebpf_gpu_match_all's count and
# bitmap) with its check against a run. None of it is ebpf-gpu's compiler.

import re
import struct

from pcapcheck import packets


def rule_lines(path):
    """(id, body bytes) per rule line: comments and blank lines skipped, an
    id:N prefix taken off (without one, the id is the line number)."""
    for n, line in enumerate(open(path, "rb").read().split(b"\n"), 1):
        line = line.strip(b" \t\r")
        if not line or line.startswith(b"#"):
            continue
        rid = n
        m = re.match(rb"id:(\d+)[ \t]+", line)
        if m:
            rid, line = int(m.group(1)), line[m.end():]
        yield rid, line


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


def compile_regex(text, nocase):
    """A regex rule's bytes as Python's re reads them: the subset's syntax
    is Python's for what these scripts write."""
    return re.compile(text, re.DOTALL | (re.IGNORECASE if nocase else 0))


def read_rules(path):
    """([(id, bytes)] literal rules, [(id, compiled regex)] regex rules)."""
    lits, rxs = [], []
    for rid, body in rule_lines(path):
        if body.startswith(b"re:/"):
            close = body.rfind(b"/")
            rxs.append((rid, compile_regex(body[4:close], body[close + 1:] == b"i")))
        else:
            lits.append((rid, unescape(body)))
    return lits, rxs


def numbered_frame(n, payload):
    """14 bytes of Ethernet header, the packet number n (u32) and the
    payload: match_all.c's results map is keyed by n."""
    return b"\x02" * 6 + b"\x04" * 6 + b"\x88\xb5" + struct.pack("<I", n) + bytes(payload)


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
    """(first id or -2, count of ids or -7, bitmap of ids below 256 as four
    u64, "literal" or "regex": the kind of rule found first) for a payload,
    given a Literals table and [(id, compiled regex)]."""
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


class Totals:
    """What check_run counted, for each script's own summary line."""

    def __init__(self, lits, rxs, npackets):
        self.literals, self.regexes, self.packets = len(lits), len(rxs), npackets
        self.firsts = {"literal": 0, "regex": 0}  # matched packets by the kind found first
        self.rule_matches = self.differences = 0

    @property
    def matched(self):
        return self.firsts["literal"] + self.firsts["regex"]


def check_run(rules_path, pcap, verdicts, maps, literals_by_re=False):
    """Each numbered frame of PCAP against `run --verdicts VERDICTS
    --dump-maps MAPS` of match_all.c with the rules of RULES_PATH; prints
    the first five differences. The literal rules are found by the
    Literals scan, or with literals_by_re by Python's re as the regexes
    are. Totals, or None (printed) when the verdicts do not cover the
    packets."""
    lits, rxs = read_rules(rules_path)
    frames = list(packets(pcap))
    t = Totals(lits, rxs, len(frames))
    if literals_by_re:
        lits, rxs = [], rxs + [(rid, re.compile(re.escape(b))) for rid, b in lits]
    table = Literals(lits)
    got = [line.split() for line in open(verdicts) if line.strip()]
    if len(got) != len(frames):
        print("%d verdicts for %d packets" % (len(got), len(frames)))
        return None
    results = parse_results(open(maps).read())
    for fr in frames:
        n = struct.unpack_from("<I", fr, 14)[0]
        first, count, bits, by = expected(table, rxs, fr[18:])
        verdict = "XDP_DROP" if first >= 0 else "XDP_PASS"
        if first >= 0:
            t.firsts[by] += 1
        t.rule_matches += max(count, 0)
        have = results.get(n, (-999, -999, None))
        if verdict not in got[n] or have != (first, count, bits):
            t.differences += 1
            if t.differences <= 5:
                print("packet %d: expected %s first %d count %d bits %s, got %s %s" %
                      (n, verdict, first, count, [hex(b) for b in bits], " ".join(got[n]), have))
    return t

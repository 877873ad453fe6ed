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
      the payload's prefixes): rulecheck.py, shared with regex-traffic.py.
"""

import random
import sys

from pcapcheck import write_pcap  # the pcap code this folder's scripts share
from rulecheck import check_run, numbered_frame, read_rules, rule_lines  # and their reference

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


def rules_file(argv):
    fold = None
    if argv[0] == "--fold":
        fold, argv = int(argv[1]), argv[2:]
    src, out = argv
    lines = ["# mixed-traffic.py rules%s %s: its literal rules and %d regexes" %
             (" --fold %d" % fold if fold else "", src.split("/")[-1], len(REGEXES))]
    for rid, line in rule_lines(src):
        if line.startswith(b"re:/"):
            continue
        lines.append(b"id:%d %s" % (rid % fold if fold else rid, line))
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

    def frames():
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
            yield numbered_frame(i, payload)
    write_pcap(out, frames())
    return 0


def check(rules_path, pcap, verdicts, maps):
    t = check_run(rules_path, pcap, verdicts, maps)
    if t is None:
        return 1
    print("reference: %d packets, %d literal rules, %d regex rules, %d matched "
          "(first by a literal %d, by a regex %d), %d rule matches, %d differences" %
          (t.packets, t.literals, t.regexes, t.matched, t.firsts["literal"], t.firsts["regex"],
           t.rule_matches, t.differences))
    return 1 if t.differences else 0


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

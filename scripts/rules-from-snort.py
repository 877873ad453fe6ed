#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Snort/Suricata rules (Emerging Threats Open) to a pattern file for
# pattern maps (docs/KFUNCS.md): one literal a rule, the longest of its
# `content:` strings (what an IDS's multi-pattern prefilter, its
# fast_pattern, would pick), `|hex|` runs and escapes kept in the pattern
# file's own syntax. Only rules a permissive licence covers are taken:
# sids 2,000,000 to 2,799,999 (Emerging Threats' BSD licence, as the
# rule files' header says), and of those not the GPL-derived ones (msg
# "GPL ..." and sids 2,100,000 to 2,103,999: Snort's GPLv2 sids 1 to 3464
# renumbered). Rules commented out in the distribution (disabled by
# default) count as well. What the matcher cannot express is dropped:
# negated contents are skipped, `nocase` is ignored (the pattern is
# matched as written), positions (offset, depth, distance, within) and
# pcre are not kept. Patterns shorter than --min-length bytes are left
# out (too generic to scan for alone), duplicates kept once; with
# --benign-pcap, so are those found in any frame of that capture (benign
# traffic the set must not match, as an IDS is tuned: HTTP requests'
# common headers are the longest content of many rules, whose other
# conditions this one literal does not keep). The output
# is deterministic: candidates in sid order, --count of them chosen at
# even steps over that order, written as "id:K PATTERN" with K from 1,
# each after a comment naming its rule's sid.
#
# usage: rules-from-snort.py [--count N] [--min-length B] [--max-length B]
#            [--benign-pcap IN.pcap] [--origin TEXT] -o OUT.rules RULES_FILE...

import argparse
import re
import struct
import sys

CONTENT = re.compile(r'(?:^|;)\s*content\s*:\s*(!?)\s*"((?:[^"\\]|\\.)*)"')
SID = re.compile(r'(?:^|;)\s*sid\s*:\s*(\d+)')
MSG = re.compile(r'(?:^|;|\()\s*msg\s*:\s*"((?:[^"\\]|\\.)*)"')


def content_bytes(text):
    """The bytes of a content string in Snort's syntax (|hex| runs,
    backslash escapes of ; \\ and \")."""
    out, i = bytearray(), 0
    while i < len(text):
        c = text[i]
        if c == "|":
            j = text.index("|", i + 1)
            out += bytes.fromhex(text[i + 1:j].replace(" ", ""))
            i = j + 1
        elif c == "\\" and i + 1 < len(text):
            out += text[i + 1].encode("latin-1")
            i += 2
        else:
            out += c.encode("utf-8")
            i += 1
    return bytes(out)


def pattern_text(b):
    """Bytes in the pattern file's syntax: printable ASCII as itself ('\\'
    and '|' escaped, no leading or trailing blank), the rest as |hex|."""
    out, run = [], []
    for k, x in enumerate(b):
        plain = 0x21 <= x < 0x7f or (x == 0x20 and 0 < k < len(b) - 1)
        if plain:
            if run:
                out.append("|" + " ".join("%02X" % y for y in run) + "|")
                run = []
            out.append("\\" + chr(x) if chr(x) in "\\|" else chr(x))
        else:
            run.append(x)
    if run:
        out.append("|" + " ".join("%02X" % y for y in run) + "|")
    return "".join(out)


def pcap_frames(path):
    data = open(path, "rb").read()
    if len(data) < 24 or struct.unpack_from("<I", data)[0] not in (0xA1B2C3D4, 0xA1B23C4D):
        sys.exit("rules-from-snort.py: error: %s: not a little-endian pcap file" % path)
    at, frames = 24, []
    while at + 16 <= len(data):
        n = struct.unpack_from("<I", data, at + 8)[0]
        frames.append(data[at + 16:at + 16 + n])
        at += 16 + n
    return frames


def permissive(sid, msg):
    return 2000000 <= sid <= 2799999 and not 2100000 <= sid <= 2103999 and not msg.startswith("GPL ")


def main():
    ap = argparse.ArgumentParser(description="Snort/Suricata rules to a pattern file")
    ap.add_argument("-o", dest="out", required=True)
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--min-length", type=int, default=4)
    ap.add_argument("--max-length", type=int, default=64)
    ap.add_argument("--benign-pcap", help="frames no pattern may be found in")
    ap.add_argument("--origin", default="", help="a comment line naming where the rules come from")
    ap.add_argument("rules", nargs="+")
    a = ap.parse_args()
    if a.count < 1 or a.min_length < 1 or a.max_length < a.min_length:
        sys.exit("rules-from-snort.py: error: --count and --min-length must be at least 1, "
                 "--max-length at least --min-length")
    benign = b"\0".join(pcap_frames(a.benign_pcap)) if a.benign_pcap else b""
    by_sid, skipped = {}, {"licence": 0, "no content": 0, "length": 0, "duplicate": 0, "benign": 0}
    for path in a.rules:
        for n, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
            line = line.strip()
            if line.startswith("#"):
                line = line.lstrip("#").strip()
            if not re.match(r"(alert|drop|reject|pass)\s", line) or "(" not in line:
                continue
            body = line[line.index("(") + 1:]
            sid, msg = SID.search(body), MSG.search(body)
            if not sid:
                continue
            sid = int(sid.group(1))
            if not permissive(sid, msg.group(1) if msg else ""):
                skipped["licence"] += 1
                continue
            try:
                contents = [content_bytes(t) for neg, t in CONTENT.findall(body) if not neg]
            except ValueError as e:
                sys.exit("rules-from-snort.py: error: %s:%d: sid %d: bad content (%s)" % (path, n, sid, e))
            if not contents:
                skipped["no content"] += 1
                continue
            # The longest; the first of equally long ones.
            best = max(contents, key=len)
            if not a.min_length <= len(best) <= a.max_length:
                skipped["length"] += 1
                continue
            by_sid.setdefault(sid, best)
    seen, cands = set(), []
    for sid in sorted(by_sid):
        if by_sid[sid] in seen:
            skipped["duplicate"] += 1
            continue
        if benign and by_sid[sid] in benign:
            skipped["benign"] += 1
            continue
        seen.add(by_sid[sid])
        cands.append((sid, by_sid[sid]))
    if len(cands) < a.count:
        sys.exit("rules-from-snort.py: error: %d usable rules, fewer than --count %d" % (len(cands), a.count))
    chosen = [cands[k * len(cands) // a.count] for k in range(a.count)]
    with open(a.out, "w") as f:
        f.write("# %d patterns, one a rule: the longest content string of Emerging Threats Open rules\n"
                "# (scripts/rules-from-snort.py --count %d --min-length %d --max-length %d%s).\n"
                % (a.count, a.count, a.min_length, a.max_length,
                   " --benign-pcap: none found in %d frames" % len(pcap_frames(a.benign_pcap))
                   if a.benign_pcap else ""))
        if a.origin:
            f.write("# %s\n" % a.origin)
        f.write("# Copyright (c) 2003-2024, Emerging Threats. All rights reserved.\n"
                "# BSD licence: see README.md beside this file.\n")
        for k, (sid, b) in enumerate(chosen, 1):
            f.write("# sid:%d\nid:%d %s\n" % (sid, k, pattern_text(b)))
    lens = sorted(len(b) for _, b in chosen)
    print("%d rules written (of %d candidates; skipped: %s); pattern bytes min %d median %d max %d"
          % (a.count, len(cands), ", ".join("%s %d" % kv for kv in skipped.items()),
             lens[0], lens[len(lens) // 2], lens[-1]))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks what tests/lit/loader/rx-metadata.c's program saw through the XDP
RX metadata kfuncs when `forward` gave it packets from a net_pcap port:
the timestamps are the pcap records' times in microseconds since the
epoch (DPDK 22.11's net_pcap puts them in DPDK's rx timestamp field in
those units: DPDK leaves a timestamp's units to its driver, and the
runtime passes them on), one per packet whatever order the packets ran in; net_pcap gives no RSS hash and strips no VLAN tag, so
those two kfuncs answer -ENODATA for every packet and write nothing.

usage: check-rx-metadata.py IN.pcap MAPS.txt (forward's --dump-maps output)"""
import re
import struct
import sys

pcap, maps = sys.argv[1], sys.argv[2]
data = open(pcap, "rb").read()
magic = struct.unpack("<I", data[:4])[0]
per_us = {0xA1B2C3D4: 1, 0xA1B23C4D: 1000}[magic]  # microsecond or nanosecond records
times, at = [], 24
while at + 16 <= len(data):
    sec, frac, incl, _ = struct.unpack("<IIII", data[at:at + 16])
    times.append(sec * 1000000 + frac // per_us)
    at += 16 + incl

values = {}
for line in open(maps):
    m = re.match(r"(results|seen)\[(\d+)\] = (\d+)", line)
    if m:
        values[(m.group(1), int(m.group(2)))] = int(m.group(3))
n = len(times)
untouched = {1: 0x5A5A5A5A, 2: 0x5A5A5A5A, 3: 0x5A5A, 4: 0x5A5A}
seen = [[values.get(("seen", 5 * i + f), 0) for f in range(5)] for i in range(n)]
ok = sorted(s[0] for s in seen) == sorted(times)
print(f"timestamps: {n} packets, " + ("each its pcap record's time" if ok else "DIFFER from the pcap's"))
res = [values.get(("results", k), 0) for k in range(12)]
names = {0: "0", 1: "-ENODATA", 2: "-EOPNOTSUPP", 3: "other"}
for kfunc, name in enumerate(["rx_timestamp", "rx_hash", "rx_vlan_tag"]):
    counts = ", ".join(f"{names[c]} {res[kfunc * 4 + c]}" for c in range(4) if res[kfunc * 4 + c])
    print(f"{name}: {counts or 'never called'}")
kept = all(s[f] == untouched[f] for s in seen for f in untouched)
print("hash and VLAN outputs: " + ("untouched" if kept else "WRITTEN"))

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes samples/xdp_l4lb.maps: the balancer's VIPs, reals, tunnel settings
# and one Maglev ring per VIP (Eisenbud et al., NSDI 2016, section 3.4:
# each real's preference list is a permutation of the ring's slots from an
# offset and a skip hashed from its name; the reals take turns claiming
# their next free preferred slot until the ring is full, so each real holds
# RING_SIZE / reals slots, give or take one, and removing a real moves few
# slots of the others). Deterministic: the same file on every run.
#
# usage: scripts/maglev-ring.py > samples/xdp_l4lb.maps

import hashlib
import struct

RING_SIZE = 127  # samples/xdp_l4lb.c's RING_SIZE (a prime)
TUNNEL_SRC = "10.0.0.100"
GW_MAC = "02:00:00:00:00:fe"
# vip_num: (protocol, port, reals); the reals by index, 0 meaning none. A
# VIP with no reals keeps its ring empty: its packets are dropped.
VIPS = {
    0: ("tcp", 80, range(1, 9)),
    1: ("tcp", 443, range(5, 13)),
    2: ("udp", 53, range(9, 13)),
    3: ("tcp", 8080, range(1, 3)),
    4: ("udp", 123, ()),
}
REALS = {i: "10.1.0.%d" % i for i in range(1, 13)}


def h(name, salt):
    return int.from_bytes(hashlib.sha256((salt + name).encode()).digest()[:8], "little")


def maglev(backends, m):
    """The ring: slot -> backend, every slot filled."""
    perm = []
    for b in backends:
        offset, skip = h(b, "offset:") % m, h(b, "skip:") % (m - 1) + 1
        perm.append((offset, skip))
    ring = [None] * m
    nxt = [0] * len(backends)
    filled = 0
    while True:
        for i, (offset, skip) in enumerate(perm):
            c = (offset + nxt[i] * skip) % m
            while ring[c] is not None:
                nxt[i] += 1
                c = (offset + nxt[i] * skip) % m
            ring[c] = backends[i]
            nxt[i] += 1
            filled += 1
            if filled == m:
                return ring


def le32(v):
    return struct.pack("<I", v).hex()


def ip(a):
    return bytes(int(x) for x in a.split(".")).hex()


def main():
    print("# samples/xdp_l4lb.c's tables, written by scripts/maglev-ring.py (do not edit).")
    print("# vips:{/16 address, port (network order), protocol, pad}:{vip_num u32 LE}")
    for num, (proto, port, _) in VIPS.items():
        key = ip("192.168.0.0") + struct.pack(">H", port).hex() + ("06" if proto == "tcp" else "11") + "00"
        print("vips:%s:%s  # 192.168.0.0/16 %s/%d" % (key, le32(num), proto, port))
    print("# reals:{index u32 LE}:{IPv4, network order}")
    for i, a in REALS.items():
        print("reals:%s:%s  # %s" % (le32(i), ip(a), a))
    print("# lb_config:0:{gateway MAC, 2 bytes of padding}{tunnel source IPv4}")
    print("lb_config:%s:%s0000%s" % (le32(0), GW_MAC.replace(":", ""), ip(TUNNEL_SRC)))
    print("# ring:{vip_num * %d + slot, u32 LE}:{real index u32 LE}" % RING_SIZE)
    for num, (_, _, reals) in VIPS.items():
        if not reals:
            continue
        ring = maglev([REALS[r] for r in reals], RING_SIZE)
        index = {REALS[r]: r for r in reals}
        for slot, real in enumerate(ring):
            print("ring:%s:%s" % (le32(num * RING_SIZE + slot), le32(index[real])))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# bpf_fib_lookup against the kernel's. `diff` builds a network namespace
# (veth links with fixed ifindexes and MACs, addresses, routes of every
# type in several tables, a locked route MTU, permanent neighbours,
# forwarding on except on one link), writes its table as a --fib file read
# back from the kernel (ip -d route/neigh/link, sysctls), checks it equals
# Inputs/fib.fib, then runs the case program (one bpf_fib_lookup call a
# packet) and the router sample on the kernel back end inside the namespace
# and on the host back end with the file, and compares verdicts, output
# bytes and maps packet for packet; `progs` does the same for other programs
# that call bpf_fib_lookup. The namespace is deleted however the run ends.
# `cases`, `router-traffic` and `decode` make and read the packets (also for
# the tests without a kernel).
#
# usage: fib-netns.py diff LOADER CASES.o ROUTER.o FIB-EXPECTED WORKDIR [MORE.pcap]
#        fib-netns.py progs LOADER FIB-EXPECTED WORKDIR OBJ[,KERNEL_OBJ]:PROG[+MAPFILE]...
#        fib-netns.py cases OUT.pcap [--with-src]
#        fib-netns.py router-traffic OUT.pcap
#        fib-netns.py decode CASES-OUT.pcap

import ipaddress
import os
import socket
import struct
import subprocess
import sys

# Flags and families of struct bpf_fib_lookup.
DIRECT, OUTPUT, SKIP_NEIGH, TBID, SRC, MARK = 1, 2, 4, 8, 16, 32
AF_INET, AF_INET6 = 2, 10

LAN, WAN, DMZ = 2, 3, 4

SETUP = [
    # Links: name, ifindex, MAC, MTU, peer name, peer ifindex, peer MAC.
    "link add lan index 2 address 02:00:00:00:02:01 mtu 1500 type veth peer name lanp index 12 address 02:00:00:00:02:02",
    "link add wan index 3 address 02:00:00:00:03:01 mtu 1400 type veth peer name wanp index 13 address 02:00:00:00:03:02",
    "link add dmz index 4 address 02:00:00:00:04:01 mtu 9000 type veth peer name dmzp index 14 address 02:00:00:00:04:02",
    "link set lo up",
    "link set lan up", "link set lanp up", "link set wan up", "link set wanp up",
    "link set dmz up", "link set dmzp up",
    "addr add 10.2.0.1/24 dev lan", "addr add 10.3.0.1/24 dev wan", "addr add 10.4.0.1/24 dev dmz",
    "-6 addr add 2001:db8:2::1/64 dev lan nodad", "-6 addr add 2001:db8:3::1/64 dev wan nodad",
    "-6 addr add 2001:db8:4::1/64 dev dmz nodad",
    "neigh add 10.2.0.254 lladdr 02:aa:00:00:02:fe dev lan nud permanent",
    "neigh add 10.2.0.253 lladdr 02:aa:00:00:02:fd dev lan nud permanent",
    "neigh add 10.2.0.7 lladdr 02:aa:00:00:02:07 dev lan nud permanent",
    "neigh add 10.12.0.5 lladdr 02:aa:00:00:0c:05 dev lan nud permanent",
    "neigh add 10.12.0.5 lladdr 02:aa:00:00:0c:15 dev wan nud permanent",
    "neigh add 10.3.0.254 lladdr 02:aa:00:00:03:fe dev wan nud permanent",
    "neigh add 2001:db8:2::fe lladdr 02:aa:00:00:62:fe dev lan nud permanent",
    "neigh add 2001:db8:2::7 lladdr 02:aa:00:00:62:07 dev lan nud permanent",
    "neigh add 2001:db8:3::fe lladdr 02:aa:00:00:63:fe dev wan nud permanent",
    "route add default via 10.3.0.254 dev wan",
    "route add 10.8.0.0/16 via 10.2.0.254 dev lan",
    "route add 10.8.1.0/24 via 10.2.0.253 dev lan mtu lock 1300",
    "route add 10.9.0.0/16 via 10.3.0.254 dev wan mtu 1280",
    "route add 10.10.0.0/16 via 10.3.0.99 dev wan",
    "route add 10.11.0.0/16 via inet6 2001:db8:3::fe dev wan",
    "route add 10.12.0.0/16 dev lan metric 10",
    "route add 10.12.0.0/16 via 10.3.0.254 dev wan metric 20",
    "route add blackhole 10.66.0.0/16", "route add unreachable 10.67.0.0/16",
    "route add prohibit 10.68.0.0/16",
    "route add throw 10.69.0.0/16",
    "route add 10.69.0.0/16 via 10.2.0.254 dev lan table default",
    "route add 10.100.0.0/16 via 10.3.0.254 dev wan table 100",
    "route add unreachable default table 100",
    "route add 10.101.0.0/16 dev lan table 101",
    "-6 route add default via 2001:db8:3::fe dev wan",
    "-6 route add 2001:db8:8::/48 via 2001:db8:2::fe dev lan mtu lock 1300",
    "-6 route add 2001:db8:9::/48 via 2001:db8:2::99 dev lan",
    "-6 route add 2001:db8:10::/48 via 2001:db8:2::fe dev lan metric 2048",
    "-6 route add 2001:db8:10::/48 via 2001:db8:3::fe dev wan metric 100",
    "-6 route add blackhole 2001:db8:66::/48", "-6 route add unreachable 2001:db8:67::/48",
    "-6 route add prohibit 2001:db8:68::/48",
    "-6 route add 2001:db8:100::/48 via 2001:db8:3::fe dev wan table 100",
]
# Before the links: no IPv6 link-local addresses (they come up with timing
# the table dump would race with).
PRE_SYSCTLS = [("net.ipv6.conf.default.addr_gen_mode", "1")]
SYSCTLS = [("net.ipv4.ip_forward", "1"), ("net.ipv6.conf.all.forwarding", "1"),
           ("net.ipv4.conf.dmz.forwarding", "0"), ("net.ipv6.conf.dmz.forwarding", "0")]


def a4(s):
    return socket.inet_pton(socket.AF_INET, s)


def a6(s):
    return socket.inet_pton(socket.AF_INET6, s)


def case(name, family, dst, ifindex=LAN, flags=0, plen=64, tot_len=100, src=None, tbid=0,
         fill=True):
    """One call: the packet's payload (flags, plen, struct bpf_fib_lookup)."""
    addr = a4 if family == AF_INET else a6
    if src is None:
        src = "10.2.0.9" if family == AF_INET else "2001:db8:2::9"
    if family not in (AF_INET, AF_INET6):
        addr, src, dst = a4, "10.2.0.9", "10.8.5.5"
    s, d = addr(src).ljust(16, b"\0"), addr(dst).ljust(16, b"\0")
    # smac/dmac start as a pattern, so fields the helper leaves are seen.
    macs = bytes(range(0xa0, 0xac)) if fill else bytes(12)
    params = struct.pack("<BBHHHII16s16sI12s", family, 6, 0x3412, 0x5000, tot_len, ifindex, 0,
                         s, d, tbid, macs)
    assert len(params) == 64
    return name, struct.pack("<II", flags, plen) + params


def cases(with_src=False):
    v4, v6 = AF_INET, AF_INET6
    out = [
        case("v4-gateway", v4, "10.8.5.5"),
        case("v4-connected", v4, "10.2.0.7"),
        case("v4-default", v4, "192.0.2.1"),
        case("v4-lock-mtu-over", v4, "10.8.1.1", tot_len=1301),
        case("v4-lock-mtu-fits", v4, "10.8.1.1", tot_len=1300),
        case("v4-unlocked-mtu-fits", v4, "10.9.1.1", tot_len=1400),
        case("v4-unlocked-mtu-over", v4, "10.9.1.1", tot_len=1401),
        case("v4-no-neigh", v4, "10.10.1.1"),
        case("v4-skip-neigh", v4, "10.10.1.1", flags=SKIP_NEIGH),
        case("v4-via-v6-gateway", v4, "10.11.1.1"),
        case("v4-blackhole", v4, "10.66.1.1"),
        case("v4-unreachable", v4, "10.67.1.1"),
        case("v4-prohibit", v4, "10.68.1.1"),
        case("v4-local", v4, "10.2.0.1"),
        case("v4-local-direct", v4, "10.2.0.1", flags=DIRECT),
        case("v4-broadcast", v4, "10.2.0.255"),
        case("v4-throw-default-table", v4, "10.69.1.1"),
        case("v4-throw-direct", v4, "10.69.1.1", flags=DIRECT),
        case("v4-metric-input", v4, "10.12.0.5", ifindex=WAN),
        case("v4-output-lan", v4, "10.12.0.5", ifindex=LAN, flags=OUTPUT),
        case("v4-output-wan", v4, "10.12.0.5", ifindex=WAN, flags=OUTPUT),
        case("v4-output-dmz", v4, "10.12.0.5", ifindex=DMZ, flags=OUTPUT),
        case("v4-direct-main", v4, "10.8.5.5", flags=DIRECT),
        case("v4-tbid-100", v4, "10.100.1.1", flags=DIRECT | TBID, tbid=100),
        case("v4-tbid-100-reject", v4, "10.2.0.5", flags=DIRECT | TBID, tbid=100),
        case("v4-tbid-101-miss", v4, "10.5.5.5", flags=DIRECT | TBID, tbid=101),
        case("v4-tbid-200-none", v4, "10.8.5.5", flags=DIRECT | TBID, tbid=200),
        case("v4-tbid-0-main", v4, "10.8.5.5", flags=DIRECT | TBID, tbid=0),
        case("v4-tbid-255-local", v4, "10.8.5.5", flags=DIRECT | TBID, tbid=255),
        case("v4-tbid-without-direct", v4, "10.8.5.5", flags=TBID, tbid=100),
        case("v4-output-direct", v4, "10.12.0.5", ifindex=WAN, flags=OUTPUT | DIRECT),
        case("v4-mark", v4, "10.8.5.5", flags=MARK),
        case("v4-fwd-disabled", v4, "10.8.5.5", ifindex=DMZ),
        case("v4-from-lo", v4, "10.8.5.5", ifindex=1),
        case("v4-no-device", v4, "10.8.5.5", ifindex=99),
        case("v4-bad-flags", v4, "10.8.5.5", flags=0x40),
        case("v4-bad-flags-high", v4, "10.8.5.5", flags=0x80000000),
        case("v4-plen-32", v4, "10.8.5.5", plen=32),
        case("v4-plen-63", v4, "10.8.5.5", plen=63),
        case("family-0", 0, ""),
        case("family-7", 7, ""),
        case("v6-gateway-lock-fits", v6, "2001:db8:8::1", tot_len=1300),
        case("v6-gateway-lock-over", v6, "2001:db8:8::1", tot_len=1301),
        case("v6-connected", v6, "2001:db8:2::7"),
        case("v6-default", v6, "2001:db8:77::1"),
        case("v6-link-mtu-over", v6, "2001:db8:77::1", tot_len=1401),
        case("v6-no-neigh", v6, "2001:db8:9::1"),
        case("v6-skip-neigh", v6, "2001:db8:9::1", flags=SKIP_NEIGH),
        case("v6-metric", v6, "2001:db8:10::1"),
        case("v6-metric-output", v6, "2001:db8:10::1", ifindex=LAN, flags=OUTPUT),
        case("v6-blackhole", v6, "2001:db8:66::1"),
        case("v6-unreachable", v6, "2001:db8:67::1"),
        case("v6-prohibit", v6, "2001:db8:68::1"),
        case("v6-local", v6, "2001:db8:2::1"),
        case("v6-local-direct", v6, "2001:db8:2::1", flags=DIRECT),
        case("v6-link-local-dst", v6, "fe80::1"),
        case("v6-link-local-src", v6, "2001:db8:8::1", src="fe80::9"),
        case("v6-multicast", v6, "ff02::1"),
        case("v6-loopback", v6, "::1"),
        case("v6-link-local-no-device", v6, "fe80::1", ifindex=99),
        case("v6-no-device", v6, "2001:db8:8::1", ifindex=99),
        case("v6-fwd-disabled", v6, "2001:db8:8::1", ifindex=DMZ),
        case("v6-tbid-100", v6, "2001:db8:100::1", flags=DIRECT | TBID, tbid=100),
        case("v6-tbid-100-miss", v6, "2001:db8:8::1", flags=DIRECT | TBID, tbid=100),
        case("v6-tbid-255-local", v6, "2001:db8:2::1", flags=DIRECT | TBID, tbid=255),
        case("v6-tbid-200-none", v6, "2001:db8:8::1", flags=DIRECT | TBID, tbid=200),
        case("v6-output-direct", v6, "2001:db8:10::1", ifindex=LAN, flags=OUTPUT | DIRECT),
    ]
    if with_src:
        out.append(case("v4-src-flag", v4, "10.8.5.5", flags=SRC))
    return out


def write_pcap(path, frames):
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)))
            f.write(fr)
    os.replace(path + ".tmp", path)


def read_pcap(path):
    data = open(path, "rb").read()
    at, out = 24, []
    while at < len(data):
        _, _, caplen, _ = struct.unpack_from("<IIII", data, at)
        out.append(data[at + 16:at + 16 + caplen])
        at += 16 + caplen
    return out


def case_frames(with_src=False):
    eth = bytes.fromhex("020000000201" "020000000202" "88b5")
    return [(n, eth + p) for n, p in cases(with_src)]


def fmt_addr(family, b):
    if family == AF_INET6:
        return str(ipaddress.IPv6Address(b))
    return str(ipaddress.IPv4Address(b[:4]))


def decode(frames, names):
    lines = []
    for name, fr in zip(names, frames):
        rc, = struct.unpack_from("<q", fr, 14)
        (family, _, _, _, mtu, ifindex, metric, src, dst, tbid,
         macs) = struct.unpack_from("<BBHHHII16s16sI12s", fr, 22)
        lines.append(f"{name}: rc {rc} family {family} ifindex {ifindex} metric {metric} "
                     f"mtu {mtu} dst {fmt_addr(family, dst)} vlan-tbid {tbid} "
                     f"smac {macs[:6].hex(':')} dmac {macs[6:].hex(':')}")
    return lines


def ipv4_csum(hdr):
    s = sum(struct.unpack(f"!{len(hdr) // 2}H", hdr))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def v4_packet(dst, ttl=64, size=100, proto=17, tos=0):
    eth = bytes.fromhex("020000000201" "020000000202" "0800")
    payload = bytes(size - 20)
    hdr = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, tos, size, 1, 0, ttl, proto, 0,
                                a4("10.2.0.9"), a4(dst)))
    struct.pack_into("!H", hdr, 10, ipv4_csum(bytes(hdr)))
    return eth + bytes(hdr) + payload


def v6_packet(dst, hops=64, size=100, src="2001:db8:2::9"):
    eth = bytes.fromhex("020000000201" "020000000202" "86dd")
    hdr = struct.pack("!IHBB16s16s", 0x60012345, size - 40, 17, hops, a6(src), a6(dst))
    return eth + hdr + bytes(size - 40)


def router_frames():
    frames = []
    for dst in ["10.8.5.5", "10.2.0.7", "192.0.2.1", "10.9.1.1", "10.10.1.1", "10.11.1.1",
                "10.66.1.1", "10.67.1.1", "10.68.1.1", "10.2.0.1", "10.2.0.255", "10.69.1.1",
                "10.12.0.5", "10.8.1.1"]:
        frames.append(v4_packet(dst))
        frames.append(v4_packet(dst, ttl=1))
        frames.append(v4_packet(dst, size=1301, tos=0x10))
        frames.append(v4_packet(dst, size=1400, proto=6))
        frames.append(v4_packet(dst, size=1401))
    for dst in ["2001:db8:8::1", "2001:db8:2::7", "2001:db8:77::1", "2001:db8:9::1",
                "2001:db8:10::1", "2001:db8:66::1", "2001:db8:67::1", "2001:db8:68::1",
                "2001:db8:2::1", "fe80::1", "ff02::1", "::1"]:
        frames.append(v6_packet(dst))
        frames.append(v6_packet(dst, hops=1))
        frames.append(v6_packet(dst, size=1300))
        frames.append(v6_packet(dst, size=1301))
        frames.append(v6_packet(dst, size=1401))
    frames.append(bytes.fromhex("ffffffffffff" "020000000202" "0806") + bytes(28))  # ARP
    frames.append(v4_packet("10.8.5.5")[:30])  # truncated IPv4
    return frames


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def dump_fib(ns):
    """The namespace's table as a --fib file, read back from the kernel."""
    ip = ["ip", "-n", ns]
    links = {}
    out = []
    for line in sh(ip + ["-o", "link", "show"]).stdout.splitlines():
        f = line.split()
        idx, name = int(f[0].rstrip(":")), f[1].rstrip(":").split("@")[0]
        mtu = int(f[f.index("mtu") + 1])
        mac = f[f.index("link/loopback") + 1] if "link/loopback" in f else f[f.index("link/ether") + 1]
        fwd = [sh(["ip", "netns", "exec", ns, "sysctl", "-n",
                   f"net.{v}.conf.{name}.forwarding"]).stdout.strip() for v in ("ipv4", "ipv6")]
        links[name] = idx
        out.append(f"link {idx} name {name} mac {mac} mtu {mtu} forwarding {fwd[0]} "
                   f"forwarding6 {fwd[1]}")

    def devs(words):
        return [str(links[w]) if i > 0 and words[i - 1] == "dev" else w
                for i, w in enumerate(words)]

    for fam in ("-4", "-6"):
        for line in sh(ip + [fam, "-d", "route", "show", "table", "all"]).stdout.splitlines():
            out.append("route " + ("-6 " if fam == "-6" else "") + " ".join(devs(line.split())))
        # The neighbour table's order is its hash's: sorted, for a stable file.
        for line in sorted(sh(ip + [fam, "neigh", "show"]).stdout.splitlines()):
            out.append("neigh " + " ".join(devs(line.split())))
    return "\n".join(out) + "\n"


def run_loader(loader, obj, backend, pcap, prefix, ns=None, extra=()):
    cmd = [loader, "run", obj, "--backend", backend, "--pcap", pcap, "--out", prefix + ".pcap",
           "--verdicts", prefix + ".v", "--dump-maps", prefix + ".maps"] + list(extra)
    if ns:
        cmd = ["ip", "netns", "exec", ns] + cmd
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr}")
    return [l.split()[1] for l in open(prefix + ".v")]


def compare(what, kdir, hdir):
    """Verdicts, output packets and maps of two runs; the differences."""
    diffs = []
    kv = [l.split() for l in open(kdir + ".v")]
    hv = [l.split() for l in open(hdir + ".v")]
    for i, (a, b) in enumerate(zip(kv, hv)):
        if a != b:
            diffs.append(f"{what}: packet {i}: kernel {' '.join(a)}, host {' '.join(b)}")
    if len(kv) != len(hv):
        diffs.append(f"{what}: kernel {len(kv)} verdicts, host {len(hv)}")
    kp, hp = read_pcap(kdir + ".pcap"), read_pcap(hdir + ".pcap")
    for i, (a, b) in enumerate(zip(kp, hp)):
        if a != b:
            diffs.append(f"{what}: output packet {i} differs:\n  kernel {a.hex()}\n  host   {b.hex()}")
    if len(kp) != len(hp):
        diffs.append(f"{what}: kernel sent {len(kp)} packets, host {len(hp)}")
    if open(kdir + ".maps").read() != open(hdir + ".maps").read():
        diffs.append(f"{what}: maps differ")
    return diffs


def make_ns(ns, expected_fib, work):
    """Builds the namespace and writes its table as WORK/ns.fib; its path."""
    sh(["ip", "netns", "add", ns])
    for key, value in PRE_SYSCTLS:
        sh(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{key}={value}"])
    for cmd in SETUP:
        sh(["ip", "-n", ns] + cmd.split())
    for key, value in SYSCTLS:
        sh(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", f"{key}={value}"])
    fib = os.path.join(work, "ns.fib")
    with open(fib, "w") as f:
        f.write(dump_fib(ns))
    if open(fib).read() != open(expected_fib).read():
        print(f"the namespace's table differs from {expected_fib}: see {fib}")
    else:
        print(f"the namespace's table is {os.path.basename(expected_fib)}")
    return fib


def progs(loader, expected_fib, work, *specs):
    """Other programs that call bpf_fib_lookup (OBJ[,KERNEL_OBJ]:PROG[+MAPFILE]
    each, as differential.py takes them) over the router traffic from the
    LAN and WAN links: the kernel inside the namespace, the host back end
    with its table."""
    ns = f"ebpfgpu-fib-{os.getpid()}"
    try:
        fib = make_ns(ns, expected_fib, work)
        pcap = os.path.join(work, "router.pcap")
        frames = router_frames()
        write_pcap(pcap, frames)
        diffs = []
        for spec in specs:
            spec, _, map_file = spec.partition("+")
            objs, prog = spec.rsplit(":", 1)
            obj, _, kobj = objs.partition(",")
            for ingress in (LAN, WAN):
                k = os.path.join(work, f"{prog}{ingress}.kernel")
                h = os.path.join(work, f"{prog}{ingress}.host")
                extra = ["--section", prog, "--ingress-ifindex", str(ingress)]
                extra += ["--map-file", map_file] if map_file else []
                kv = run_loader(loader, kobj or obj, "kernel", pcap, k, ns=ns, extra=extra)
                run_loader(loader, obj, "host", pcap, h, extra=extra + ["--fib", fib])
                d = compare(f"{prog} from {ingress}", k, h)
                diffs += d
                counts = {v: kv.count(v) for v in sorted(set(kv))}
                print(f"{prog} from ifindex {ingress}: {len(frames)} packets, "
                      + ", ".join(f"{v} {n}" for v, n in counts.items())
                      + f"; {len(d)} differences between host and kernel")
        for d in diffs:
            print(d)
        return 1 if diffs else 0
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def diff(loader, cases_obj, router_obj, expected_fib, work, more_pcap=None):
    ns = f"ebpfgpu-fib-{os.getpid()}"
    try:
        fib = make_ns(ns, expected_fib, work)

        frames = case_frames()
        pcap = os.path.join(work, "cases.pcap")
        write_pcap(pcap, [fr for _, fr in frames])
        k, h = os.path.join(work, "cases.kernel"), os.path.join(work, "cases.host")
        run_loader(loader, cases_obj, "kernel", pcap, k, ns=ns)
        run_loader(loader, cases_obj, "host", pcap, h, extra=["--fib", fib])
        diffs = compare("cases", k, h)
        for line in decode(read_pcap(k + ".pcap"), [n for n, _ in frames]):
            print("kernel " + line)
        print(f"cases: {len(frames)} calls, {len(diffs)} differences between host and kernel")

        rpcap = os.path.join(work, "router.pcap")
        rframes = router_frames()
        write_pcap(rpcap, rframes)
        for ingress in (1, LAN, WAN, DMZ, 99):
            k = os.path.join(work, f"router{ingress}.kernel")
            h = os.path.join(work, f"router{ingress}.host")
            extra = ["--ingress-ifindex", str(ingress)]
            try:
                kv = run_loader(loader, router_obj, "kernel", rpcap, k, ns=ns, extra=extra)
            except RuntimeError as e:
                print(f"router from ifindex {ingress}: the kernel refused: "
                      f"{str(e).splitlines()[-1]}")
                continue
            run_loader(loader, router_obj, "host", rpcap, h, extra=extra + ["--fib", fib])
            d = compare(f"router from {ingress}", k, h)
            diffs += d
            counts = {v: kv.count(v) for v in sorted(set(kv))}
            print(f"router from ifindex {ingress}: {len(rframes)} packets, "
                  + ", ".join(f"{v} {n}" for v, n in counts.items())
                  + f"; {len(d)} differences between host and kernel")
        if more_pcap:
            k = os.path.join(work, "more.kernel")
            h = os.path.join(work, "more.host")
            extra = ["--ingress-ifindex", str(LAN)]
            kv = run_loader(loader, router_obj, "kernel", more_pcap, k, ns=ns, extra=extra)
            run_loader(loader, router_obj, "host", more_pcap, h, extra=extra + ["--fib", fib])
            d = compare(f"router over {os.path.basename(more_pcap)}", k, h)
            diffs += d
            counts = {v: kv.count(v) for v in sorted(set(kv))}
            print(f"router over {os.path.basename(more_pcap)} from ifindex {LAN}: {len(kv)} "
                  "packets, " + ", ".join(f"{v} {n}" for v, n in counts.items())
                  + f"; {len(d)} differences between host and kernel")
        for d in diffs:
            print(d)
        return 1 if diffs else 0
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        print("namespace deleted")


def main():
    cmd = sys.argv[1]
    if cmd == "diff":
        return diff(*sys.argv[2:])
    if cmd == "progs":
        return progs(*sys.argv[2:])
    if cmd == "cases":
        frames = case_frames("--with-src" in sys.argv)
        write_pcap(sys.argv[2], [fr for _, fr in frames])
        return 0
    if cmd == "router-traffic":
        write_pcap(sys.argv[2], router_frames())
        return 0
    if cmd == "decode":
        names = [n for n, _ in cases(True)]
        for line in decode(read_pcap(sys.argv[2]), names):
            print(line)
        return 0
    print(f"unknown command {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())

# SPDX-License-Identifier: Apache-2.0
#
# Program replacement on a real interface loses no packet: makes a network
# namespace with a veth pair (va, vb), runs the daemon in it with a port on
# va (net_af_packet) whose XDP_PASS packets go to an exception pcap, and
# sends the packets of a pcap into vb from a raw socket at a steady pace
# while the port's program is switched from pass-all to a MAC-swap
# reflector (once the port has received a third of them) and back (at two
# thirds). Then: the port received exactly what was sent; every
# packet has one verdict; each sent packet is found, in order, either in
# the exception pcap (passed) or back on vb with its MACs swapped (sent
# back), and the verdicts change only where a switch happened (at most
# twice). The namespace is deleted however the test ends.
#
# The sender keeps at most two windows of packets ahead of what the port
# has received (the daemon's stats), well inside the af_packet ring and the
# kernel's backlog, so a busy machine slows the test down rather than
# making the kernel drop packets before they reach the port. Should the
# kernel drop some anyway (va's rx_dropped, the one drop counter outside
# the daemon: DPDK 22.11's af_packet driver does not read its socket's), they
# are reported apart from what the daemon lost, which must be nothing.
#
# usage: veth-replace.py LOADER PASS.o SWAP.o IN.pcap WORKDIR

import ctypes
import json
import os
import socket
import struct
import subprocess
import shutil
import sys
import threading
import time

CLONE_NEWNET = 0x40000000
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
SOL_PACKET, PACKET_AUXDATA = 263, 8
TP_STATUS_VLAN_VALID, TP_STATUS_VLAN_TPID_VALID = 0x10, 0x40


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    out, pos = [], 24
    while pos + 16 <= len(data):
        _, _, caplen, _ = struct.unpack_from("<IIII", data, pos)
        out.append(data[pos + 16:pos + 16 + caplen])
        pos += 16 + caplen
    return out


def sh(*args):
    subprocess.run(args, check=True, capture_output=True)


def enter_netns(name):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns")
    os.close(fd)


def receive_all(s):
    back = []
    s.setblocking(False)
    while True:
        try:
            data, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(32))
        except BlockingIOError:
            return back
        if addr[2] == PACKET_OUTGOING:
            continue
        # The kernel moves 802.1Q tags of received frames into the
        # auxiliary data; put them back.
        for level, kind, aux in anc:
            if level == SOL_PACKET and kind == PACKET_AUXDATA:
                status, _, _, _, _, tci, tpid = struct.unpack_from("IIIHHHH", aux)
                if status & TP_STATUS_VLAN_VALID:
                    if not status & TP_STATUS_VLAN_TPID_VALID:
                        tpid = 0x8100
                    data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
        back.append(data)


WINDOW = 64


def run(loader, ns, sock, work, pass_o, swap_o, frames):
    client = [loader, "--socket", sock]

    def call(*args):
        r = subprocess.run(client + list(args), capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"{' '.join(args)}: {r.stderr.strip()}")
        return r.stdout

    log = open(os.path.join(work, "daemon.log"), "w")
    daemon = subprocess.Popen(["ip", "netns", "exec", ns, loader, "daemon", "--socket", sock],
                              stdout=log, stderr=log)
    try:
        for _ in range(300):
            if os.path.exists(sock):
                break
            time.sleep(0.05)
        call("prog", "load", pass_o, "--section", "xdp_pass_all")
        call("prog", "load", swap_o)
        exc = os.path.join(work, "exc.pcap")
        call("net", "attach", "1", "net_af_packet0,iface=va", "--batch", "16",
             "--exception", f"net_pcap0,tx_pcap={exc}")
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
        s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        s.bind(("vb", ETH_P_ALL))
        n = len(frames)
        replaced = [threading.Event(), threading.Event()]

        def received():
            return json.loads(call("--json", "stats"))["ports"][0]["rx_packets"]

        def send():
            for i, p in enumerate(frames):
                if i and i % WINDOW == 0:
                    deadline = time.time() + 60
                    while received() < i - WINDOW and time.time() < deadline:
                        time.sleep(0.002)
                # Gates that keep each program's share from being empty
                # however fast or slow the daemon is (the sender goes on
                # while a switch happens, until it reaches the next gate).
                if i == n // 2:
                    replaced[0].wait(60)
                if i == 5 * n // 6:
                    replaced[1].wait(60)
                s.send(p)

        sender = threading.Thread(target=send)
        sender.start()
        # The switches happen while packets flow, once the port has
        # received a third, then two thirds of them.
        for k, (mark, old, new) in enumerate(((n // 3, "1", "2"), (2 * n // 3, "2", "1"))):
            while received() < mark:
                time.sleep(0.005)
            call("prog", "replace", old, new)
            replaced[k].set()
        sender.join()
        deadline = time.time() + 30
        while time.time() < deadline:
            st = json.loads(call("--json", "stats"))["ports"][0]
            if st["rx_packets"] >= len(frames):
                break
            time.sleep(0.05)
        time.sleep(0.2)  # anything beyond what was sent would show now
        kernel_dropped = veth_rx_dropped(ns, "va")
        final = json.loads(call("--json", "net", "detach", "1"))
        time.sleep(0.2)
        back = receive_all(s)
        s.close()
    finally:
        daemon.terminate()
        daemon.wait(timeout=30)
        log.close()
    return (final, kernel_dropped, read_pcap(os.path.join(work, "exc.pcap")), back,
            daemon.returncode)


def veth_rx_dropped(ns, dev):
    r = subprocess.run(["ip", "-n", ns, "-s", "-j", "link", "show", dev], check=True,
                       capture_output=True, text=True)
    rx = json.loads(r.stdout)[0]["stats64"]["rx"]
    return rx.get("dropped", 0) + rx.get("missed", 0)


def swapped(p):
    return p[6:12] + p[0:6] + p[12:]


def main():
    loader, pass_o, swap_o, pcap, work = sys.argv[1:6]
    loader = shutil.which(loader) or loader
    frames = [p for p in read_pcap(pcap) if 14 <= len(p) <= 1514]
    sock = os.path.join(work, "veth.sock")
    ns = f"ebpfgpu-vethr-{os.getpid()}"
    sh("ip", "netns", "add", ns)
    try:
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        sh("ip", "-n", ns, "link", "add", "va", "type", "veth", "peer", "name", "vb")
        sh("ip", "-n", ns, "link", "set", "va", "up")
        sh("ip", "-n", ns, "link", "set", "vb", "up")
        enter_netns(ns)
        final, kernel_dropped, passed, back, rc = run(loader, ns, sock, work, pass_o, swap_o, frames)
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    gone = not os.path.exists(f"/run/netns/{ns}")

    a = {k: v["packets"] for k, v in final["actions"].items()}
    print(f"sent {len(frames)} packets into vb; the port received {final['rx_packets']}; "
          f"the kernel dropped {kernel_dropped} before the port")
    print(f"lost inside the daemon: {len(frames) - kernel_dropped - final['rx_packets']}")
    print(f"verdicts: {sum(a.values())} (XDP_PASS {a['XDP_PASS']}, XDP_TX {a['XDP_TX']})")
    print(f"exception pcap: {len(passed)} packets; back on vb: {len(back)} packets")
    # Each sent packet, in order, is the next passed one or the next one
    # sent back with its MACs swapped; only as many as the kernel dropped
    # before the port may be neither.
    verdicts, ip, it, skipped = [], 0, 0, 0
    for k, p in enumerate(frames):
        if ip < len(passed) and passed[ip] == p:
            verdicts.append("P")
            ip += 1
        elif it < len(back) and back[it] == swapped(p):
            verdicts.append("T")
            it += 1
        elif skipped < kernel_dropped:
            skipped += 1
        else:
            print(f"packet {k} is neither passed nor sent back")
            break
    runs = 1 + sum(1 for x, y in zip(verdicts, verdicts[1:]) if x != y) if verdicts else 0
    print(f"matched {len(verdicts)} packets in order, in {runs} runs of one program's verdicts")
    print(f"daemon exit: {rc}")
    print("namespace deleted" if gone else f"namespace {ns} LEFT BEHIND")


main()

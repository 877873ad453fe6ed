# SPDX-License-Identifier: Apache-2.0
#
# Real traffic through `forward` on a real interface: makes a network
# namespace with a veth pair (va, vb), runs the forwarder in it on va
# through net_af_packet, sends the packets of a pcap into vb from a raw
# socket, and checks the forwarder's verdict counts against the one-shot
# `run` of the same program over the same packets; packets the program
# sent back (XDP_TX) must arrive on vb as `run` wrote them. The namespace
# (and with it the veth pair) is deleted however the test ends.
#
# usage: veth-forward.py LOADER PROG.o IN.pcap WORKDIR

import ctypes
import json
import os
import socket
import struct
import subprocess
import shutil
import sys
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


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, p in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(p), len(p)))
            f.write(p)


def sh(*args):
    subprocess.run(args, check=True, capture_output=True)


def enter_netns(name):
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns")
    os.close(fd)


def forward_and_send(loader, prog, ns, frames):
    """Runs the forwarder on va, sends `frames` into vb; returns its JSON
    summary and the frames that came back on vb."""
    fwd = subprocess.Popen(
        ["ip", "netns", "exec", ns, loader, "forward", prog, "--port",
         "net_af_packet0,iface=va", "--count", str(len(frames)), "--batch", "32",
         "--stats-ms", "0", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = fwd.stderr.readline()
        if "forwarding:" not in ready:
            fwd.wait(timeout=30)
            sys.exit(f"forward did not start: {ready}{fwd.stderr.read()}")
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
        s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
        s.bind(("vb", ETH_P_ALL))
        for i, p in enumerate(frames):
            s.send(p)
            if i % 16 == 15:
                time.sleep(0.002)  # af_packet's rx ring is not endless
        out, err = fwd.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        fwd.terminate()
        out, err = fwd.communicate()
        sys.exit(f"forward did not see all {len(frames)} packets in 60 s:\n{out}{err}")
    if fwd.returncode != 0:
        sys.exit(f"forward failed ({fwd.returncode}): {err}")
    back = []
    s.setblocking(False)
    while True:
        try:
            data, anc, _, addr = s.recvmsg(65535, socket.CMSG_SPACE(32))
        except BlockingIOError:
            break
        if addr[2] == PACKET_OUTGOING:
            continue
        # The kernel takes 802.1Q tags out of received frames into the
        # auxiliary data; put them back where the program left them.
        for level, kind, aux in anc:
            if level == SOL_PACKET and kind == PACKET_AUXDATA:
                status, _, _, _, _, tci, tpid = struct.unpack_from("IIIHHHH", aux)
                if status & TP_STATUS_VLAN_VALID:
                    if not status & TP_STATUS_VLAN_TPID_VALID:
                        tpid = 0x8100
                    data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
        back.append(data)
    s.close()
    return json.loads(out), back


def main():
    loader, prog, pcap, work = sys.argv[1:5]
    loader = shutil.which(loader) or loader
    # A raw socket sends whole Ethernet frames up to the MTU.
    frames = [p for p in read_pcap(pcap) if 14 <= len(p) <= 1514]
    sent = os.path.join(work, "sent.pcap")
    write_pcap(sent, frames)
    run_out = os.path.join(work, "run-out.pcap")
    run = json.loads(subprocess.run(
        [loader, "run", prog, "--pcap", sent, "--out", run_out, "--json"],
        check=True, capture_output=True, text=True).stdout)

    ns = f"ebpfgpu-veth-{os.getpid()}"
    sh("ip", "netns", "add", ns)
    try:
        # No IPv6 on the pair: the kernel would send its own packets.
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1")
        sh("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv6.conf.default.disable_ipv6=1")
        sh("ip", "-n", ns, "link", "add", "va", "type", "veth", "peer", "name", "vb")
        sh("ip", "-n", ns, "link", "set", "va", "up")
        sh("ip", "-n", ns, "link", "set", "vb", "up")
        enter_netns(ns)
        fwd, back = forward_and_send(loader, prog, ns, frames)
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    gone = not os.path.exists(f"/run/netns/{ns}")

    print(f"sent {len(frames)} packets into vb; forward received {fwd['packets']}")
    for a in ("XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT"):
        same = run["actions"][a]["packets"] == fwd["actions"][a]["packets"]
        print(f"{a}: {fwd['actions'][a]['packets']} {'as run' if same else 'DIFFERENT from run'}")
    # run's output holds PASS, TX and REDIRECT packets; with only XDP_TX
    # and XDP_DROP from the program, it is exactly what must come back.
    expected = read_pcap(run_out) if run["actions"]["XDP_PASS"]["packets"] == 0 else None
    if expected is not None:
        print(f"back on vb: {len(back)} packets, "
              f"{'as run wrote them' if back == expected else 'DIFFERENT from run'}")
        for i, (w, g) in enumerate(zip(expected, back)):
            if w != g:
                print(f"first difference at {i}:\n  run     {w.hex()}\n  forward {g.hex()}")
                break
    print("namespace deleted" if gone else f"namespace {ns} LEFT BEHIND")


main()

# SPDX-License-Identifier: Apache-2.0
#
# The daemon's systemd unit run the way systemd runs it, for a lit test:
# its ExecStart, ExecReload and KillSignal read from the unit file, with
# the unit's socket and configuration paths moved into the test's folder
# and the installed loader replaced by the build's.
#   service.py start UNIT LOADER DIR     ExecStart, through daemon.py start
#   service.py reload UNIT DIR           ExecReload with $MAINPID, then waits
#                                        for the reload to be logged
#   service.py stop UNIT DIR             KillSignal, then the exit status
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import daemon  # noqa: E402


def unit(path):
    keys = {}
    for line in open(path):
        m = re.match(r"^(\w+)=(.*)$", line.strip())
        if m:
            keys[m.group(1)] = m.group(2)
    return keys


def moved(text, d):
    return text.replace("/run/ebpf-gpu/daemon.sock", d + "/daemon.sock").replace(
        "/etc/ebpf-gpu/daemon.conf", d + "/daemon.conf")


def start(path, loader, d):
    argv = shlex.split(moved(unit(path)["ExecStart"], d))
    if os.path.basename(argv[0]) != "ebpf-gpu-loader":
        print("ExecStart does not run ebpf-gpu-loader: " + argv[0])
        return 1
    print("ExecStart: " + " ".join(["ebpf-gpu-loader"] + argv[1:]).replace(d, "DIR"))
    argv[0] = loader
    return daemon.start(d + "/daemon.sock", d + "/daemon.log", argv)


def reload(path, d):
    pid = open(d + "/daemon.sock.pid").read().strip()
    cmd = unit(path)["ExecReload"].replace("$MAINPID", pid)
    before = len(daemon.lines_with(d + "/daemon.log", "SIGHUP"))
    subprocess.run(shlex.split(cmd), check=True)
    import time
    deadline = time.time() + 30
    while time.time() < deadline:
        if len(daemon.lines_with(d + "/daemon.log", "SIGHUP")) > before:
            time.sleep(0.3)
            print("ExecReload: " + cmd.replace(pid, "$MAINPID"))
            return 0
        time.sleep(0.05)
    print("the reload was not logged")
    return 1


def stop(path, d):
    return daemon.stop(d + "/daemon.sock", unit(path)["KillSignal"].replace("SIG", ""))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "start":
        sys.exit(start(*sys.argv[2:5]))
    if cmd == "reload":
        sys.exit(reload(*sys.argv[2:4]))
    if cmd == "stop":
        sys.exit(stop(*sys.argv[2:4]))
    sys.exit(2)

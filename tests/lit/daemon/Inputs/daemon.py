# SPDX-License-Identifier: Apache-2.0
#
# Starts and stops an ebpf-gpu-loader daemon for a lit test (lit's shell
# has no background jobs):
#   daemon.py start SOCKET LOG -- LOADER daemon ARGS...
#       starts the daemon under a small supervisor that records its exit
#       status in SOCKET.exit.PID and kills it after LIMIT_S (300 s: a
#       sanitizer build on a loaded machine needs over 120 for the longest
#       tests), so a failing test never leaves one behind, and returns once
#       the socket accepts.
#   daemon.py stop SOCKET [SIGNAL]
#       sends SIGTERM (or SIGNAL), waits for the exit, prints
#       "daemon exit: N" and whether the socket is gone.
#   daemon.py signal SOCKET SIGNAL LOG TEXT
#       sends SIGNAL (e.g. HUP) and waits until LOG has one more line
#       containing TEXT than before (30 s at most); prints those new lines
#   daemon.py pid SOCKET
#       prints the daemon's process id (an ExecReload's $MAINPID)
import os
import signal
import socket
import sys
import time

LIMIT_S = 300


def connectable(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def start(sock, log, cmd):
    if os.path.exists(sock + ".pid"):
        os.remove(sock + ".pid")
    pid = os.fork()
    if pid == 0:
        os.setsid()
        # Nothing of lit's pipes stays open here: lit waits for them.
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        with open(log, "wb") as out:
            child = os.fork()
            if child == 0:
                os.dup2(out.fileno(), 1)
                os.dup2(out.fileno(), 2)
                os.execvp(cmd[0], cmd)
            with open(sock + ".pid", "w") as f:
                f.write(str(child))
            deadline = time.time() + LIMIT_S
            status = None
            while time.time() < deadline:
                done, st = os.waitpid(child, os.WNOHANG)
                if done:
                    status = st
                    break
                time.sleep(0.05)
            if status is None:
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
                result = "killed after %d s" % LIMIT_S
            elif os.WIFEXITED(status):
                result = str(os.WEXITSTATUS(status))
            else:
                result = "signal %d" % os.WTERMSIG(status)
            exit_file = "%s.exit.%d" % (sock, child)
            with open(exit_file + ".tmp", "w") as f:
                f.write(result)
            os.rename(exit_file + ".tmp", exit_file)
        os._exit(0)
    deadline = time.time() + 60
    while time.time() < deadline:
        if connectable(sock):
            return 0
        if os.path.exists(sock + ".pid"):
            if os.path.exists("%s.exit.%s" % (sock, open(sock + ".pid").read())):
                break
        time.sleep(0.05)
    sys.stdout.write(open(log).read())
    print("daemon did not start")
    return 1


def stop(sock, signame="TERM"):
    pid = int(open(sock + ".pid").read())
    try:
        os.kill(pid, getattr(signal, "SIG" + signame))
    except ProcessLookupError:
        pass
    exit_file = "%s.exit.%d" % (sock, pid)
    deadline = time.time() + 60
    while time.time() < deadline and not os.path.exists(exit_file):
        time.sleep(0.05)
    status = open(exit_file).read() if os.path.exists(exit_file) else "still running"
    print("daemon exit: " + status)
    print("socket " + ("left behind" if os.path.exists(sock) else "removed"))
    return 0


def lines_with(log, text):
    return [l for l in open(log).read().splitlines() if text in l]


def send_signal(sock, signame, log, text):
    before = len(lines_with(log, text))
    os.kill(int(open(sock + ".pid").read()), getattr(signal, "SIG" + signame))
    deadline = time.time() + 30
    while time.time() < deadline:
        got = lines_with(log, text)
        if len(got) > before:
            # The whole reload is logged by then: its lines follow the marker.
            time.sleep(0.2)
            lines = open(log).read().splitlines()
            at = [i for i, l in enumerate(lines) if text in l][before]
            print("\n".join(lines[at:]))
            return 0
        time.sleep(0.05)
    print("no new line with %r in %s" % (text, log))
    return 1


if __name__ == "__main__":
    if sys.argv[1] == "signal":
        sys.exit(send_signal(*sys.argv[2:6]))
    if sys.argv[1] == "pid":
        print(open(sys.argv[2] + ".pid").read())
        sys.exit(0)
    if sys.argv[1] == "start":
        sep = sys.argv.index("--")
        sys.exit(start(sys.argv[2], sys.argv[3], sys.argv[sep + 1:]))
    sys.exit(stop(sys.argv[2], *sys.argv[3:4]))

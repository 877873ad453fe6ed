# SPDX-License-Identifier: Apache-2.0
#
# Checks for the daemon's lit tests. Prints one line per check; exits 1 at
# the first failure.
#   check.py wait LOADER SOCKET PORT KEY N
#       polls `stats --json` until port PORT's KEY (rx_packets, or an
#       action such as XDP_TX) reaches N (30 s at most)
#   check.py compare RUN.json RUN.verdicts RUN-OUT.pcap DETACH.json TX.pcap EXC.pcap
#       a port's final counters (`net detach --json`) against the one-shot
#       `run` of the same program over the same pcap: the same packets and
#       bytes per action, the TX packets on the port's tx pcap and the PASS
#       packets on the exception pcap byte for byte, in order
#   check.py accounting DETACH.json [TX.pcap [EXC.pcap]]
#       (one port) every packet received is in one action; every TX or
#       REDIRECT packet was sent (and is in the tx pcap), every PASS packet
#       in the exception pcap
#   check.py pcapsame A.pcap B.pcap
#       the same packets (bytes, in order; timestamps aside)
#   check.py stats STATS.json
#       the shape of `stats --json`
#   check.py unchanged LOADER SOCKET PORT KEY GROWKEY N
#       port PORT's KEY does not move while its GROWKEY grows by N (twice:
#       the first wait lets batches that ran before settle in the counters)
#   check.py flip LOADER SOCKET A B N
#       `prog replace A B` then `prog replace B A`, N times (while traffic
#       runs)
#   check.py churn SOCKET N CURRENT A.o SECTION_A B.o SECTION_B
#       N times on one connection: load the next program (A and B in
#       turn), then `prog replace CURRENT NEW` and `prog unload CURRENT`
#       written together, so that the old program is unloaded microseconds
#       after the switch (a release without a grace period frees it under
#       a running batch)
#   check.py raw SOCKET TEXT
#       sends TEXT and a newline on the control socket as it is, prints the
#       response line
#   check.py recovered LOADER SOCKET PROG N [SECONDS]
#       polls `prog show PROG --json` until its back end has been re-created
#       N times and runs (SECONDS, default 30, at most); prints the faults
#   check.py grows LOADER SOCKET PORT KEY N
#       port PORT's KEY grows by N from now (traffic flows)
#   check.py percpu DETACH.json SLOTS.json TOTALS.json WORKERS
#       tests/stress/percpu_exclusive.c's maps (`map dump --json`) after a
#       port's run: every packet passed and was counted once in the per-CPU
#       slices (summed), no clash, no misplaced slice, every worker ran
#   check.py accounted DETACH.json
#       every packet a port received has a verdict or is in exec_failed (or
#       oversized): rx = actions + exec_failed + oversized
#   check.py recovery-time LOADER SOCKET PROG WATCHDOG_MS MAX_MS
#       the program's last fault was recovered from, the old back end was
#       torn down (not left behind), and the watchdog's time plus the
#       re-creation took less than MAX_MS
#   check.py faults DETACH.json COUNTER_DUMP.json
#       (one port, a program passing every packet and counting them in a
#       global variable that fault recovery carries over) every packet
#       received is either in XDP_PASS or in exec_failed, some in each, and
#       the program's counter equals XDP_PASS
import json
import socket
import struct
import subprocess
import sys
import time


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    endian = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    out, pos = [], 24
    while pos + 16 <= len(data):
        _, _, caplen, _ = struct.unpack_from(endian + "IIII", data, pos)
        out.append(data[pos + 16:pos + 16 + caplen])
        pos += 16 + caplen
    return out


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def value(port, key):
    if key in port:
        return port[key]
    return port["actions"][key]["packets"]


def port_stats(loader, sock, port):
    r = subprocess.run([loader, "--socket", sock, "--json", "stats"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("stats: " + r.stderr.strip())
    for p in json.loads(r.stdout)["ports"]:
        if str(p["id"]) == port or p["device"].split(",")[0] == port:
            return p
    fail(f"no port {port}")


def unchanged(loader, sock, port, key, grow, n):
    wait(loader, sock, port, grow, value(port_stats(loader, sock, port), grow) + int(n))
    before = value(port_stats(loader, sock, port), key)
    wait(loader, sock, port, grow, value(port_stats(loader, sock, port), grow) + int(n))
    after = value(port_stats(loader, sock, port), key)
    if before != after:
        fail(f"port {port}: {key} moved from {before} to {after}")
    print(f"port {port}: {key} stays at {after} while {grow} grows")


def wait(loader, sock, port, key, n):
    deadline = time.time() + 30
    got = None
    while time.time() < deadline:
        r = subprocess.run([loader, "--socket", sock, "--json", "stats"], capture_output=True,
                           text=True)
        if r.returncode != 0:
            fail("stats: " + r.stderr.strip())
        for p in json.loads(r.stdout)["ports"]:
            if str(p["id"]) == port or p["device"].split(",")[0] == port:
                got = value(p, key)
        if got is not None and got >= int(n):
            print(f"port {port}: {key} reached the mark")
            return
        time.sleep(0.02)
    fail(f"port {port}: {key} is {got} after 30 s, not {n}")


def accounting(d, tx_pcap=None, exc_pcap=None):
    a = {k: v["packets"] for k, v in d["actions"].items()}
    if sum(a.values()) != d["rx_packets"]:
        fail(f"rx {d['rx_packets']} packets, actions {a}")
    e = d["errors"]
    # One port: what it sends is its own XDP_TX and its REDIRECTs to itself.
    sent = d["tx_packets"] + d["tx_full"]
    if sent != a["XDP_TX"] + a["XDP_REDIRECT"] - e["redirect_unknown"] - e["oversized"]:
        fail(f"XDP_TX {a['XDP_TX']}, XDP_REDIRECT {a['XDP_REDIRECT']}, but {sent} sent or "
             "refused")
    if tx_pcap is not None and len(packets(tx_pcap)) != d["tx_packets"]:
        fail(f"{len(packets(tx_pcap))} packets in the tx pcap, {d['tx_packets']} sent")
    if exc_pcap is not None and len(packets(exc_pcap)) != d["pass_tx_packets"]:
        fail(f"{len(packets(exc_pcap))} packets in the exception pcap, "
             f"{d['pass_tx_packets']} sent")
    if exc_pcap is None and e["pass_dropped"] != a["XDP_PASS"]:
        fail(f"XDP_PASS {a['XDP_PASS']}, pass_dropped {e['pass_dropped']}")
    print("accounting: every packet counted: " +
          ", ".join(f"{k} {v}" for k, v in a.items() if v))


def redirect(d1_json, pcap1, d2_json, pcap2):
    d1, d2 = json.load(open(d1_json)), json.load(open(d2_json))
    a = {k: v["packets"] for k, v in d1["actions"].items()}
    if sum(a.values()) != d1["rx_packets"]:
        fail(f"rx {d1['rx_packets']} packets, actions {a}")
    if not (a["XDP_TX"] == d1["tx_packets"] == len(packets(pcap1))):
        fail(f"XDP_TX {a['XDP_TX']}, sent {d1['tx_packets']}, pcap {len(packets(pcap1))}")
    print(f"port {d1['id']}: rx {d1['rx_packets']}, XDP_TX {a['XDP_TX']} all in its pcap")
    unknown = d1["errors"]["redirect_unknown"]
    to_port2 = a["XDP_REDIRECT"] - unknown
    if not (to_port2 == d2["tx_packets"] == len(packets(pcap2))) or to_port2 <= 0:
        fail(f"XDP_REDIRECT {a['XDP_REDIRECT']} (to no port {unknown}), port {d2['id']} sent "
             f"{d2['tx_packets']}, pcap {len(packets(pcap2))}")
    print(f"port {d2['id']}: XDP_REDIRECT {a['XDP_REDIRECT']} (to no port {unknown}), "
          "all others in its pcap")


def same(name, want, got):
    if len(want) != len(got):
        fail(f"{name}: run has {len(want)} packets, the daemon {len(got)}")
    for i, (w, g) in enumerate(zip(want, got)):
        if w != g:
            fail(f"{name}: packet {i} differs")
    print(f"{name}: {len(want)} packets equal")


def compare(run_json, run_verdicts, run_out, detach_json, tx, exc):
    run = json.load(open(run_json))
    d = json.load(open(detach_json))
    if run["actions"] != d["actions"] or run["packets"] != d["rx_packets"]:
        fail(f"actions: run {run['actions']}, daemon {d['actions']}")
    print(f"actions equal: {d['rx_packets']} packets")
    verdicts = [line.split()[1] for line in open(run_verdicts)]
    sent = [v for v in verdicts if v in ("XDP_PASS", "XDP_TX", "XDP_REDIRECT")]
    out = packets(run_out)
    same("tx", [p for p, v in zip(out, sent) if v in ("XDP_TX", "XDP_REDIRECT")], packets(tx))
    same("exception", [p for p, v in zip(out, sent) if v == "XDP_PASS"], packets(exc))
    accounting(d, tx, exc)


def stats(path):
    s = json.load(open(path))
    assert isinstance(s["interval_s"], (int, float)), "interval_s"
    for p in s["ports"]:
        for k in ("id", "device", "rx_packets", "rx_bytes", "mpps", "tx_packets", "tx_bytes",
                  "tx_full", "pass_tx_packets"):
            assert k in p, k
        assert set(p["actions"]) == {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX",
                                     "XDP_REDIRECT"}, "actions"
        for q in p["per_queue"]:
            for k in ("queue", "worker", "rx_packets", "rx_bytes", "mpps", "actions",
                      "batches", "backend_us"):
                assert k in q, k
            lat = q["latency_us"]
            assert lat["batches"] == q["batches"], "latency batches"
            assert 0 < lat["p50"] <= lat["p99"], "latency order"
            assert q["backend_us"] > 0, "backend time"
    for w in s["workers"]:
        for k in ("worker", "batches", "backend_us", "latency_us"):
            assert k in w, k
    print(f"stats: {len(s['ports'])} port(s), {len(s['workers'])} worker(s), shape as documented")


def flip(loader, sock, a, b, n):
    for _ in range(int(n)):
        for x, y in ((a, b), (b, a)):
            r = subprocess.run([loader, "--socket", sock, "prog", "replace", x, y],
                               capture_output=True, text=True)
            if r.returncode != 0:
                fail("prog replace: " + r.stderr.strip())
    print(f"replaced {a} and {b} {2 * int(n)} times")


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""
        self.next_id = 1

    def send(self, *reqs):
        lines = b""
        for cmd, args in reqs:
            lines += json.dumps({"id": self.next_id, "cmd": cmd, "args": args}).encode() + b"\n"
            self.next_id += 1
        self.s.sendall(lines)
        out = []
        for _ in reqs:
            while b"\n" not in self.buf:
                chunk = self.s.recv(65536)
                if not chunk:
                    fail("the daemon closed the connection")
                self.buf += chunk
            line, self.buf = self.buf.split(b"\n", 1)
            r = json.loads(line)
            if not r["ok"]:
                fail(r["error"])
            out.append(r["result"])
        return out


def churn(sock, n, current, a, sec_a, b, sec_b):
    c = Conn(sock)
    cur = int(current)
    for i in range(int(n)):
        path, sec = (a, sec_a) if i % 2 == 0 else (b, sec_b)
        new = c.send(("prog load", {"path": path, "section": sec}))[0]["id"]
        c.send(("prog replace", {"id": cur, "new_id": new}), ("prog unload", {"id": cur}))
        cur = new
    print(f"churned {n} programs; program {cur} runs")


def prog_faults(loader, sock, prog):
    r = subprocess.run([loader, "--socket", sock, "--json", "prog", "show", prog],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail("prog show: " + r.stderr.strip())
    return json.loads(r.stdout)["faults"]


def recovered(loader, sock, prog, n, seconds=30):
    deadline = time.time() + float(seconds)
    f = None
    while time.time() < deadline:
        f = prog_faults(loader, sock, prog)
        if f["recoveries"] >= int(n) and f["state"] == "running":
            print(f"program {prog}: {f['faults']} faults, {f['recoveries']} recoveries, "
                  f"{f['state']}")
            return
        time.sleep(0.01)
    fail(f"program {prog}: not recovered {n} times within {seconds} s: {f}")


def grows(loader, sock, port, key, n):
    wait(loader, sock, port, key, value(port_stats(loader, sock, port), key) + int(n))


def faults(detach_json, dump_json):
    d, dump = json.load(open(detach_json)), json.load(open(dump_json))
    a = {k: v["packets"] for k, v in d["actions"].items()}
    failed = d["errors"]["exec_failed"]
    if a["XDP_PASS"] + failed + d["errors"]["oversized"] != d["rx_packets"]:
        fail(f"rx {d['rx_packets']}, XDP_PASS {a['XDP_PASS']}, exec_failed {failed}")
    if sum(a.values()) != a["XDP_PASS"]:
        fail(f"verdicts other than XDP_PASS: {a}")
    if not failed or not a["XDP_PASS"]:
        fail(f"XDP_PASS {a['XDP_PASS']}, exec_failed {failed}: expected both")
    counted = int.from_bytes(bytes(int(b, 16) for b in dump["entries"][0]["value"][:8]), "little")
    if counted != a["XDP_PASS"]:
        fail(f"the program counted {counted} packets, XDP_PASS {a['XDP_PASS']}")
    print("faults: rx = XDP_PASS + exec_failed; the program's count (carried over) = XDP_PASS")


def percpu(detach_json, slots_json, totals_json, workers):
    d = json.load(open(detach_json))
    a = {k: v["packets"] for k, v in d["actions"].items()}
    ran = sum(a.values())
    if a["XDP_PASS"] != ran or ran != d["rx_packets"] or not ran:
        fail(f"rx {d['rx_packets']}, actions {a}: expected every packet to pass")
    word = lambda v, i: int.from_bytes(bytes(int(b, 16) for b in v[8 * i:8 * i + 8]), "little")
    slot = json.load(open(slots_json))["entries"][0]["value"]
    totals = json.load(open(totals_json))["entries"]
    packets, clashes, misplaced = (word(totals[i]["value"], 0) for i in range(3))
    mark, count, cpus = (word(slot, i) for i in range(3))
    # Each worker's slice holds its CPU number + 1: the sum says which ran.
    want_cpus = sum(range(1, int(workers) + 1))
    if (mark, clashes, misplaced) != (0, 0, 0):
        fail(f"mark {mark:#x}, clashes {clashes}, misplaced {misplaced}")
    if count != ran or packets != ran:
        fail(f"{ran} packets passed, the slices counted {count}, the shared count {packets}")
    if cpus != want_cpus:
        fail(f"the slices' CPU numbers sum to {cpus}, not {want_cpus}: not every worker ran")
    print(f"{workers} workers: {ran} packets passed, each counted once in the per-CPU slices, "
          "no clash, no misplaced slice")


def accounted(path):
    d = json.load(open(path))
    a = sum(v["packets"] for v in d["actions"].values())
    e = d["errors"]
    if a + e["exec_failed"] + e["oversized"] != d["rx_packets"]:
        fail(f"rx {d['rx_packets']}, actions {a}, exec_failed {e['exec_failed']}, "
             f"oversized {e['oversized']}")
    print(f"accounted: rx {d['rx_packets']} = actions {a} + exec_failed {e['exec_failed']}"
          f" + oversized {e['oversized']}")


def recovery_time(loader, sock, prog, watchdog_ms, max_ms):
    last = prog_faults(loader, sock, prog)["last"]
    if not last or not last["recovered"]:
        fail(f"program {prog}: no recovered fault: {last}")
    total = float(watchdog_ms) + last["recovery_ms"]
    if total >= float(max_ms):
        fail(f"program {prog}: watchdog {watchdog_ms} ms + re-creation {last['recovery_ms']:.1f} "
             f"ms = {total:.1f} ms, not under {max_ms} ms")
    teardown = last.get("teardown") or ""
    if "left behind" in teardown:
        fail(f"program {prog}: the hung back end was not torn down: {teardown}")
    print(f"program {prog}: hang detected by the {watchdog_ms} ms watchdog, back end re-created "
          f"in {last['recovery_ms']:.1f} ms: {total:.1f} ms < {max_ms} ms; old one: {teardown}")


def raw(sock, text):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    s.sendall(text.encode() + b"\n")
    data = b""
    while b"\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    print(data.decode().strip())


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "wait":
        wait(*args)
    elif mode == "compare":
        compare(*args)
    elif mode == "accounting":
        d = json.load(open(args[0]))
        accounting(d, *args[1:])
    elif mode == "redirect":
        redirect(*args)
    elif mode == "pcapsame":
        same(args[1], packets(args[0]), packets(args[1]))
    elif mode == "unchanged":
        unchanged(*args)
    elif mode == "flip":
        flip(*args)
    elif mode == "churn":
        churn(*args)
    elif mode == "raw":
        raw(*args)
    elif mode == "recovered":
        recovered(*args)
    elif mode == "grows":
        grows(*args)
    elif mode == "faults":
        faults(*args)
    elif mode == "accounted":
        accounted(*args)
    elif mode == "percpu":
        percpu(*args)
    elif mode == "recovery-time":
        recovery_time(*args)
    elif mode == "stats":
        stats(args[0])
    else:
        fail("unknown mode " + mode)

# SPDX-License-Identifier: Apache-2.0
#
# Scrapes the daemon's Prometheus endpoint for tests/lit/daemon/metrics.test.
#   metrics.py check LOG STATS.json
#       reads the endpoint's address from the daemon's log, scrapes
#       /metrics, checks the text exposition format (HELP and TYPE before a
#       family's samples, each family's samples together, names, labels and
#       values well formed; histograms cumulative, +Inf = _count) and that
#       its counters are those of `stats --json` taken after the traffic
#       ended: per port and action, received packets and bytes, errors,
#       batches; the batch latency histogram counts every batch
#   metrics.py http LOG METHOD PATH
#       prints the status line of the answer to one request
#   metrics.py raw LOG TEXT
#       sends TEXT as it is and prints the status line of the answer
import json
import re
import socket
import sys
import urllib.error
import urllib.request


def address(log):
    m = re.search(r"metrics at http://([0-9.]+):([0-9]+)/metrics", open(log).read())
    if not m:
        fail("no metrics address in " + log)
    return m.group(1), int(m.group(2))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)')


def parse(text):
    """[(family, type, name, labels dict, value)] after the format's checks."""
    out, types, done, current = [], {}, set(), None
    for line in text.splitlines():
        if line.startswith("# HELP "):
            name = line.split(" ")[2]
            if name in done or name in types:
                fail("family %s described twice" % name)
            current = name
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            if name != current:
                fail("TYPE of %s without its HELP first" % name)
            types[name] = kind
            continue
        m = SAMPLE.match(line)
        if not m:
            fail("not a sample line: %r" % line)
        name, labels, value = m.group(1), m.group(3) or "", m.group(4)
        family = current
        suffixes = {"histogram": ("_bucket", "_sum", "_count")}.get(types.get(family), ("",))
        if not any(name == family + s for s in suffixes):
            fail("sample %s outside its family (%s)" % (name, family))
        d, at = {}, 0
        while at < len(labels):
            lm = LABEL.match(labels, at)
            if not lm:
                fail("malformed labels: %r" % labels)
            d[lm.group(1)] = lm.group(2)
            at = lm.end()
        out.append((family, types[family], name, d, float(value)))
        if family != current:
            fail("sample of %s after another family" % family)
    return out


def check(log, stats_json):
    host, port = address(log)
    with urllib.request.urlopen("http://%s:%d/metrics" % (host, port), timeout=10) as r:
        ctype = r.headers.get("Content-Type")
        text = r.read().decode()
    if not ctype.startswith("text/plain; version=0.0.4"):
        fail("content type " + ctype)
    samples = parse(text)
    print("format: %d samples in %d families" % (len(samples), len({s[0] for s in samples})))
    stats = json.load(open(stats_json))

    def total(name, **want):
        return sum(v for f, t, n, d, v in samples
                   if n == name and all(d.get(k) == str(x) for k, x in want.items()))

    for p in stats["ports"]:
        pid = p["id"]
        got = total("ebpf_gpu_rx_packets_total", port=pid)
        if got != p["rx_packets"]:
            fail("port %s: rx packets %s, stats %s" % (pid, got, p["rx_packets"]))
        for action, c in p["actions"].items():
            for what in ("packets", "bytes"):
                g = total("ebpf_gpu_action_%s_total" % what, port=pid, action=action)
                if g != c[what]:
                    fail("port %s %s %s: %s, stats %s" % (pid, action, what, g, c[what]))
        for why, n in p["errors"].items():
            fam = "ebpf_gpu_port_errors_total" if why.startswith(("rx_", "tx_")) \
                else "ebpf_gpu_packet_errors_total"
            if total(fam, port=pid, error=why) != n:
                fail("port %s error %s" % (pid, why))
        for key, fam in (("tx_packets", "ebpf_gpu_tx_packets_total"),
                         ("pass_tx_packets", "ebpf_gpu_exception_tx_packets_total")):
            if total(fam, port=pid) != p[key]:
                fail("port %s %s" % (pid, key))
        batches = sum(q["batches"] for q in p["per_queue"])
        if total("ebpf_gpu_batches_total", port=pid) != batches or batches == 0:
            fail("port %s batches" % pid)
        # Each queue's histogram: cumulative, ending at _count = its batches.
        for q in p["per_queue"]:
            qs = [(float(d["le"]), v) for f, t, n, d, v in samples
                  if n == "ebpf_gpu_batch_latency_seconds_bucket" and d["port"] == str(pid)
                  and d["queue"] == str(q["queue"])]
            counts = [v for _, v in sorted(qs)]
            if counts != sorted(counts) or counts[-1] != q["batches"]:
                fail("port %s queue %s: latency buckets %s" % (pid, q["queue"], counts))
            if total("ebpf_gpu_batch_latency_seconds_count", port=pid, queue=q["queue"]) \
                    != q["batches"] or \
                    total("ebpf_gpu_batch_latency_seconds_sum", port=pid, queue=q["queue"]) <= 0:
                fail("port %s queue %s: latency count or sum" % (pid, q["queue"]))
        print("port %s: %d packets, actions, errors, tx and %d batches as stats says"
              % (pid, p["rx_packets"], batches))
    for prog in stats["programs"]:
        info = [d for f, t, n, d, v in samples
                if n == "ebpf_gpu_program_info" and d["program_id"] == str(prog["id"])]
        faults = total("ebpf_gpu_program_faults_total", program_id=prog["id"])
        if len(info) != 1 or faults != prog["faults"]["faults"]:
            fail("program %s" % prog["id"])
        print("program %s (%s): backend %s, %d faults" % (prog["id"], prog["name"],
                                                          info[0]["backend"], faults))


def http(log, method, path):
    host, port = address(log)
    req = urllib.request.Request("http://%s:%d%s" % (host, port, path), method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            print(r.status, r.reason)
    except urllib.error.HTTPError as e:
        print(e.code, e.reason)


def raw(log, text):
    host, port = address(log)
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(text.encode().decode("unicode_escape").encode())
    print(s.makefile("rb").readline().decode().strip())
    s.close()


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "check":
        check(sys.argv[2], sys.argv[3])
    elif cmd == "http":
        http(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "raw":
        raw(sys.argv[2], sys.argv[3])
    else:
        fail("unknown command " + cmd)

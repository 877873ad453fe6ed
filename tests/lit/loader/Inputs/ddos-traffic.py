#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Traffic, random models and an independent reference for ebpf-gpu's kfunc
# ebpf_gpu_classify (samples/xdp_ddos_classify.c, docs/KFUNCS.md).
# Deterministic for a seed, so the host and the GPU machine make the same
# files.
#   ddos-traffic.py gen --seed S --packets P OUT
#       OUT.pcap (P Ethernet frames: benign TCP connections and DNS over
#       UDP, a SYN flood from a few sources, a UDP flood of large
#       datagrams, ICMP, ARP and cut-short headers, interleaved) and
#       OUT.labels (each packet's true class: 0 benign, 1 SYN flood, 2 UDP
#       flood, - not classified)
#   ddos-traffic.py model --kind trees|mlp --seed S OUT
#       a random model over the sample's 10 features, in the model-file
#       format (trees: up to 8 trees of depth up to 7 with thresholds drawn
#       from the traffic's ranges; mlp: 10-16-8-3 int8)
#   ddos-traffic.py check MODEL PCAP VERDICTS MAPS
#       the sample's features computed here from the pcap (its flow table
#       replayed packet by packet), MODEL evaluated by this file's own
#       reading of the format, and each packet's verdict and the
#       `classes` and `stats` maps against `run --verdicts VERDICTS
#       --dump-maps MAPS`; exit 1 on any difference. Prints the totals.
#   ddos-traffic.py features PCAP
#       one line a classified packet: its 10 features, then its label when
#       PCAP.labels is beside it (what a model is trained on)
import random
import re
import struct
import sys

from pcapcheck import packets  # the pcap reader this folder's scripts share

NFEATURES = 10
ETH = bytes.fromhex("020000000002020000000001")


def tcp_frame(src, dst, sport, dport, flags, ttl, payload, ident):
    l4 = struct.pack("!HHIIBBHHH", sport, dport, ident, 0, 5 << 4, flags, 512, 0, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4) + len(payload), ident & 0xffff, 0, ttl,
                     6, 0, bytes(src), bytes(dst))
    return ETH + b"\x08\x00" + ip + l4 + payload


def udp_frame(src, dst, sport, dport, ttl, payload, ident):
    l4 = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4) + len(payload), ident & 0xffff, 0, ttl,
                     17, 0, bytes(src), bytes(dst))
    return ETH + b"\x08\x00" + ip + l4 + payload


def gen(seed, npackets, out):
    r = random.Random(seed)
    frames, labels = [], []
    active = []  # [frames left (list), label]
    syn_sources = [([172, 16, r.randrange(256), r.randrange(1, 255)], r.randrange(1024, 65536))
                   for _ in range(6)]
    udp_sources = [([192, 168, 7, r.randrange(1, 255)], r.randrange(1024, 65536)) for _ in range(4)]
    i = 0
    while len(frames) < npackets:
        i += 1
        k = r.random()
        if k < 0.04:
            frames.append(ETH + b"\x08\x06" + bytes(28))  # ARP
            labels.append("-")
            continue
        if k < 0.06:
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, i & 0xffff, 0, 64, 1, 0,
                             bytes([10, 3, 0, 1]), bytes([10, 0, 0, 2]))
            frames.append(ETH + b"\x08\x00" + ip + bytes(8))  # ICMP
            labels.append("-")
            continue
        if k < 0.08:
            f = tcp_frame([10, 4, 0, 1], [10, 0, 0, 2], 1000, 80, 0x10, 64, b"", i)
            frames.append(f[:14 + 20 + r.randrange(20)])  # TCP header cut short
            labels.append("-")
            continue
        if k < 0.14 or not active:
            # A new flow of some kind.
            t = r.random()
            flow = []
            if t < 0.45:
                src = [10, 1, r.randrange(256), r.randrange(1, 255)]
                sport, dport, ttl = r.randrange(1024, 65536), r.choice([80, 443]), r.choice([64, 128])
                flow.append((tcp_frame(src, [10, 0, 0, 2], sport, dport, 0x02, ttl, b"", i), 0))
                for _ in range(r.randrange(1, 12)):
                    flow.append((tcp_frame(src, [10, 0, 0, 2], sport, dport, r.choice([0x10, 0x18]), ttl,
                                           bytes(r.choice([0, 20, 300, 1200, 1400])), i), 0))
            elif t < 0.65:
                src = [10, 2, r.randrange(256), r.randrange(1, 255)]
                sport = r.randrange(1024, 65536)
                for _ in range(r.randrange(1, 4)):
                    flow.append((udp_frame(src, [10, 0, 0, 53], sport, 53, 64,
                                           bytes(r.randrange(30, 160)), i), 0))
            elif t < 0.85:
                src, sport = r.choice(syn_sources)
                for _ in range(r.randrange(3, 30)):
                    flow.append((tcp_frame(src, [10, 0, 0, 2], sport, 80, 0x02, r.randrange(30, 250),
                                           b"", i), 1))
            else:
                src, sport = r.choice(udp_sources)
                dport = r.choice([7777, 9999, 53])
                for _ in range(r.randrange(10, 40)):
                    flow.append((udp_frame(src, [10, 0, 0, 9], sport, dport, 64,
                                           bytes(r.randrange(1000, 1450)), i), 2))
            active.append(flow)
        flow = r.choice(active)
        frame, label = flow.pop(0)
        if not flow:
            active.remove(flow)
        frames.append(frame)
        labels.append(str(label))
    with open(out + ".pcap", "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for n, fr in enumerate(frames):
            f.write(struct.pack("<IIII", n, 0, len(fr), len(fr)) + fr)
    open(out + ".labels", "w").write("\n".join(labels) + "\n")


def u32(v):
    return v & 0xffffffff


def s32(v):
    v &= 0xffffffff
    return v - (1 << 32) if v >= 1 << 31 else v


def features(frames):
    """Each frame's 10 features as the sample computes them (None where it
    classifies nothing), its flow table replayed in order."""
    flows, out = {}, []
    for fr in frames:
        if len(fr) < 14 + 20 or fr[12:14] != b"\x08\x00" or (fr[14] & 15) < 5:
            out.append(None)
            continue
        l4 = 14 + 4 * (fr[14] & 15)
        proto, ttl = fr[23], fr[22]
        if proto == 6:
            if l4 + 20 > len(fr):
                out.append(None)
                continue
            flags = fr[l4 + 13]
        elif proto == 17:
            if l4 + 8 > len(fr):
                out.append(None)
                continue
            flags = 0
        else:
            out.append(None)
            continue
        sport, dport = struct.unpack_from("!HH", fr, l4)
        key = (fr[26:30], fr[30:34], sport, dport, proto)
        syn = 1 if flags & 0x12 == 0x02 else 0
        p, b, s = flows.get(key, (0, 0, 0))
        p, b, s = u32(p + 1), u32(b + len(fr)), u32(s + syn)
        flows[key] = (p, b, s)
        out.append([s32(p), s32(b), s32(b // p), s32(s), dport, sport, ttl, proto, len(fr), flags])
    return out


def parse_model(path):
    """The model file read by this file's own parser: a dict."""
    m = {"bias": None, "trees": [], "layers": [], "input": None}
    words = [l.split("#")[0].split() for l in open(path)]
    words = [w for w in words if w]
    assert words[0] == ["ebpf-gpu-model", "1"], words[0]
    rows = 0
    for w in words[1:]:
        if rows:
            m["layers"][-1]["rows"].append([int(x) for x in w])
            rows -= 1
        elif w[0] in ("features", "classes"):
            m[w[0]] = int(w[1])
        elif w[0] in ("trees", "mlp"):
            m["kind"] = w[0]
        elif w[0] == "bias":
            m["bias"] = [int(x) for x in w[1:]]
        elif w[0] == "tree":
            m["trees"].append({})
        elif w[0] == "node":
            m["trees"][-1][int(w[1])] = ("node", int(w[2]), int(w[3]), int(w[4]), int(w[5]))
        elif w[0] == "leaf":
            m["trees"][-1][int(w[1])] = ("leaf", [int(x) for x in w[2:]])
        elif w[0] == "input":
            m["input"] = [int(x) for x in w[1:]]
        elif w[0] == "layer":
            m["layers"].append({"in": int(w[1]), "out": int(w[2]), "shift": int(w[3]), "rows": []})
            rows = int(w[2])
    return m


def classify(m, x):
    """The model's class for features x: the format's meaning, computed
    with Python's integers (no overflow to mimic: the format's bounds keep
    the C evaluator's sums exact)."""
    if len(x) != m["features"]:
        return -22
    if m["kind"] == "trees":
        score = list(m["bias"] or [0] * m["classes"])
        for t in m["trees"]:
            n = t[0]
            while n[0] == "node":
                n = t[n[3]] if x[n[1]] <= n[2] else t[n[4]]
            score = [a + b for a, b in zip(score, n[1])]
    else:
        shifts = m["input"] or [0] * m["features"]
        v = [max(-128, min(127, xi >> s)) for xi, s in zip(x, shifts)]
        for li, layer in enumerate(m["layers"]):
            out = []
            for row in layer["rows"]:
                acc = row[0] + sum(w * a for w, a in zip(row[1:], v))
                acc >>= layer["shift"]
                if li + 1 < len(m["layers"]):
                    acc = max(0, min(127, acc))
                out.append(acc)
            v = out
        score = v
    return max(range(len(score)), key=lambda c: (score[c], -c))


def random_model(kind, seed):
    r = random.Random(seed)
    # Thresholds drawn from the features' ranges in the generated traffic.
    ranges = [(1, 40), (60, 40000), (60, 1450), (0, 30), (50, 10000), (1000, 65535), (30, 250),
              (6, 17), (54, 1460), (0, 0x18)]
    lines = ["ebpf-gpu-model 1", "# generated by ddos-traffic.py model --kind %s --seed %d" % (kind, seed),
             "features %d" % NFEATURES, "classes 3", kind]
    if kind == "trees":
        lines.append("bias %d %d %d" % (r.randrange(-50, 50), r.randrange(-50, 50), r.randrange(-50, 50)))
        for _ in range(r.randrange(1, 9)):
            lines.append("tree")
            nodes = []

            def grow(depth):
                me = len(nodes)
                nodes.append(None)
                if depth < 7 and r.random() < 0.8:
                    f = r.randrange(NFEATURES)
                    lo, hi = ranges[f]
                    t = r.randrange(lo, hi + 1)
                    left = grow(depth + 1)
                    right = grow(depth + 1)
                    nodes[me] = "node %d %d %d %d %d" % (me, f, t, left, right)
                else:
                    nodes[me] = "leaf %d %s" % (me, " ".join(str(r.randrange(-100, 101)) for _ in range(3)))
                return me
            grow(0)
            lines += nodes
    else:
        lines.append("input " + " ".join(str(r.choice([0, 0, 2, 4, 8])) for _ in range(NFEATURES)))
        widths = [NFEATURES, 16, 8, 3]
        for li in range(3):
            lines.append("layer %d %d %d" % (widths[li], widths[li + 1], r.randrange(0, 8)))
            for _ in range(widths[li + 1]):
                lines.append(" ".join([str(r.randrange(-2000, 2000))] +
                                      [str(r.randrange(-128, 128)) for _ in range(widths[li])]))
    return "\n".join(lines) + "\n"


def check(model_path, pcap, verdicts, maps):
    m = parse_model(model_path)
    frames = list(packets(pcap))
    got = [line.split() for line in open(verdicts) if line.strip()]
    if len(got) != len(frames):
        print("%d verdicts for %d packets" % (len(got), len(frames)))
        return 1
    bad = 0
    classes, stats = {}, [0, 0, 0]
    for i, x in enumerate(features(frames)):
        if x is None:
            verdict, c = "XDP_PASS", None
            stats[2] += 1
        else:
            c = classify(m, x)
            if c < 0:
                verdict = "XDP_PASS"
                stats[1] += 1
            else:
                verdict = "XDP_PASS" if c == 0 else "XDP_DROP"
                stats[0] += 1
                classes[c] = classes.get(c, 0) + 1
        if verdict not in got[i]:
            bad += 1
            if bad <= 5:
                print("packet %d: expected %s (class %s, features %s), got %s" %
                      (i, verdict, c, x, " ".join(got[i])))
    text = open(maps).read()
    got_classes = {int(k): int(v) for k, v in re.findall(r"^classes\[(\d+)\] = (\d+)$", text, re.M)}
    got_stats = {int(k): int(v) for k, v in re.findall(r"^stats\[(\d+)\] = (\d+)$", text, re.M)}
    if {k: v for k, v in got_classes.items() if v} != classes:
        print("classes differ: expected %s, got %s" % (sorted(classes.items()), sorted(got_classes.items())))
        bad += 1
    if [got_stats.get(k, 0) for k in range(3)] != stats:
        print("stats differ: expected %s, got %s" % (stats, [got_stats.get(k, 0) for k in range(3)]))
        bad += 1
    print("reference: %d packets, %d classified (%s), %d dropped, %d errors, %d unclassified, "
          "%d differences" % (len(frames), stats[0],
                              " ".join("class %d: %d" % kv for kv in sorted(classes.items())),
                              sum(v for k, v in classes.items() if k), stats[1], stats[2], bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) >= 2 and argv[1] in ("gen", "model"):
        a = dict(zip(argv[2:-1:2], argv[3:-1:2]))
        if argv[1] == "gen":
            gen(int(a.get("--seed", "1")), int(a.get("--packets", "3000")), argv[-1])
        else:
            open(argv[-1], "w").write(random_model(a.get("--kind", "trees"), int(a.get("--seed", "1"))))
        return 0
    if len(argv) == 6 and argv[1] == "check":
        return check(*argv[2:])
    if len(argv) == 3 and argv[1] == "features":
        frames = list(packets(argv[2]))
        try:
            labels = open(argv[2][:-len(".pcap")] + ".labels").read().split()
        except OSError:
            labels = None
        for i, x in enumerate(features(frames)):
            if x is not None:
                print(" ".join(map(str, x)) + (" " + labels[i] if labels else ""))
        return 0
    print(__doc__ if __doc__ else "usage: see the file's header", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

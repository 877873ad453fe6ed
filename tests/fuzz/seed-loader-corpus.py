#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes the seed corpora of the loader and daemon fuzz targets from the
# repository's own test inputs:
#  - loader_text/: mode byte 0 + a --fib file (tests/lit/loader/Inputs/*.fib
#    and the split-file parts of tests/lit/loader/fib-*.test), mode byte 1 +
#    a --map-set entry from the lit tests or a samples/*.maps file.
#  - btf/: the .BTF section of each sample object (2-byte length first),
#    then a type id and 64 value bytes, for the first type ids.
#  - gpu_object/: each .gpu.o whole (mode 0) and as its three parts, the
#    metadata without its seal, the PTX and the BTF (mode 1).
#  - daemon/: request sessions (JSON lines) from the daemon's lit tests and
#    docs/DAEMON.md, `prog load` pointing at the .gpu.o of the object (or of
#    its section) named there (fuzz_daemon's back ends load .gpu.o files),
#    and sessions that fail batches ("!" lines) between map updates.
# Usage: seed-loader-corpus.py OUT_DIR REPO SAMPLES_DIR GPU_OBJECT...

import glob
import json
import os
import re
import struct
import sys


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def elf_sections(data):
    """{name: bytes} of a 64-bit little-endian ELF file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = heads[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for h in heads:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        out[name] = data[h[4]:h[4] + h[5]] if h[1] != 8 else b""
    return out


def fib_seeds(repo):
    texts = []
    for f in glob.glob(os.path.join(repo, "tests/lit/loader/Inputs/*.fib")):
        texts.append(open(f, "rb").read())
    for t in glob.glob(os.path.join(repo, "tests/lit/loader/fib-*.test")):
        parts = re.split(rb"^#--- .*$", open(t, "rb").read(), flags=re.M)
        texts += [p.lstrip(b"\n") for p in parts[1:]]
    return texts


def map_seeds(repo):
    entries = set()
    for t in glob.glob(os.path.join(repo, "tests/lit/**/*.test"), recursive=True):
        entries.update(re.findall(rb"--map-set[= ](\S+)", open(t, "rb").read()))
    files = [open(f, "rb").read() for f in glob.glob(os.path.join(repo, "samples/*.maps"))]
    return sorted(entries) + files


def btf_seeds(samples):
    for obj in sorted(glob.glob(os.path.join(samples, "*.o"))):
        btf = elf_sections(open(obj, "rb").read()).get(".BTF", b"")
        if not btf or len(btf) > 0xFFFF:
            continue
        for tid in range(1, 12):
            yield os.path.basename(obj), tid, struct.pack("<H", len(btf)) + btf + struct.pack(
                "<I", tid) + bytes(range(64))


def daemon_seeds(repo, samples, gpu_dir):
    """One session per daemon lit test: its client commands as requests."""
    sessions = []
    for t in sorted(glob.glob(os.path.join(repo, "tests/lit/daemon/*.test"))):
        reqs = []
        for line in open(t):
            m = re.search(r"ebpf-gpu-loader --socket \S+ (?:--json )?(prog|map|net|stats)\b(.*)", line)
            if not m:
                continue
            words = (m.group(1) + m.group(2)).split("|")[0].split()
            reqs.append(to_request(words, samples, gpu_dir))
        reqs = [r for r in reqs if r]
        if reqs:
            sessions.append((os.path.basename(t), reqs))
    text = open(os.path.join(repo, "docs/DAEMON.md")).read()
    docs = [json.loads(l.strip()) for l in text.splitlines()
            if l.strip().startswith('{"id"') and '"cmd"' in l]
    sessions.append(("docs", docs))
    return sessions


def to_request(words, samples, gpu_dir):
    """A client command line as the client would send it (common shapes)."""
    words = [w.replace("%samples", samples) for w in words]
    if len(words) < 2 and words[:1] != ["stats"]:
        return None
    cmd = " ".join(words[:2]) if words[0] != "stats" else "stats"
    rest = words[2:] if words[0] != "stats" else []
    args = {}
    if cmd == "prog load" and rest:
        for k, v in zip(rest[1::2], rest[2::2]):
            args[k.lstrip("-")] = v
        base = os.path.basename(rest[0])[:-2]
        name = args.pop("section", base)
        gpu = os.path.join(gpu_dir, name + ".gpu.o")
        args["path"] = gpu if os.path.exists(gpu) else os.path.join(gpu_dir, base + ".gpu.o")
        args.pop("backend", None)
    elif cmd in ("prog show", "prog unload") and rest:
        args["id"] = int(rest[0]) if rest[0].isdigit() else rest[0]
    elif cmd == "prog replace" and len(rest) >= 2:
        args = {"id": int(rest[0]), "new_id": int(rest[1])}
    elif cmd == "net attach" and len(rest) >= 2:
        # The fuzz target's port table takes any device; keep it harmless.
        args = {"prog": int(rest[0]) if rest[0].isdigit() else rest[0], "device": "net_null0"}
    elif cmd == "net detach" and rest:
        args = {"port": rest[0]}
    elif cmd.startswith("map ") and len(rest) >= 2:
        args[rest[0]] = int(rest[1]) if rest[1].isdigit() else rest[1]
        i = 2
        while i < len(rest):
            if rest[i] in ("key", "value"):
                j = i + 1
                while j < len(rest) and rest[j] not in ("key", "value", "any", "noexist", "exist"):
                    j += 1
                args[rest[i]] = " ".join(rest[i + 1:j])
                i = j
            else:
                args["flags"] = rest[i]
                i += 1
    return {"id": 1, "cmd": cmd, "args": args}


def main():
    out, repo, samples, gpu_objects = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    for sub in ("loader_text", "btf", "gpu_object", "daemon"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    for i, t in enumerate(fib_seeds(repo)):
        write(os.path.join(out, "loader_text", f"fib{i}"), b"\0" + t)
    for i, t in enumerate(map_seeds(repo)):
        write(os.path.join(out, "loader_text", f"map{i}"), b"\1" + t)
    for name, tid, data in btf_seeds(samples):
        write(os.path.join(out, "btf", f"{name}.{tid}"), data)
    for g in gpu_objects:
        data = open(g, "rb").read()
        name = os.path.basename(g)
        write(os.path.join(out, "gpu_object", name), b"\0" + data)
        s = elf_sections(data)
        meta = s[".ebpfgpu.meta"]
        meta = meta[:meta.rindex(b"seal ")]
        ptx = s[".ebpfgpu.ptx"]
        write(os.path.join(out, "gpu_object", name + ".parts"),
              b"\1" + struct.pack("<I", len(meta)) + meta + struct.pack("<I", len(ptx)) + ptx
              + s.get(".BTF", b""))
    gpu_dir = os.path.dirname(os.path.abspath(gpu_objects[0])) if gpu_objects else samples
    for name, reqs in daemon_seeds(repo, samples, gpu_dir):
        write(os.path.join(out, "daemon", name),
              "".join(json.dumps(r) + "\n" for r in reqs).encode())
    for obj, m, key, value in (("xdp_router", "routes", "18000000c0a80100",
                                "04000000020000000000a0200000000b"),
                               ("xdp_proto_count", ".bss", "00000000", "0500000000000000"),
                               ("xdp_percpu_stats", "stats", "00000000", "")):
        path = os.path.join(gpu_dir, obj + ".gpu.o")
        reqs = [{"id": 1, "cmd": "prog load", "args": {"path": path}},
                {"id": 2, "cmd": "net attach", "args": {"prog": 1, "device": "net_null0"}},
                {"id": 3, "cmd": "map update", "args": {"name": m, "key": key, "value": value}},
                "!", "!", {"id": 4, "cmd": "map dump", "args": {"name": m}},
                {"id": 5, "cmd": "prog show", "args": {"id": 1}}, "!", "!",
                {"id": 6, "cmd": "net detach", "args": {"port": "1"}}]
        write(os.path.join(out, "daemon", "faults-" + obj),
              "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in reqs).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())

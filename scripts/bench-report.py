#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes docs/PERFORMANCE.md from what `scripts/bench.sh device` measured
# (ebpf-gpu-bench's JSON), the GPU's nvidia-smi line and ptxas's resource
# report of every kernel; plots (PNG) when matplotlib is importable. The
# Markdown is complete without the plots. Standard library only otherwise.

import argparse
import datetime
import json
import os
import re
import sys

# The end-to-end sections (a module beside this script).
from bench_report_e2e import (e2e_section, forward_gpus_section, forward_scaling_section,
                              forward_section, runner_section)

SAMPLES = {
    "port_filter": ("samples/xdp_port_filter.c", "bench/cuda/port_filter.cu"),
    "lb": ("samples/xdp_lb.c", "bench/cuda/lb.cu"),
    "router": ("samples/xdp_router.c", "bench/cuda/router.cu"),
    "conntrack": ("samples/xdp_conntrack.c", "bench/cuda/conntrack.cu"),
    "ddos_cms": ("samples/xdp_ddos_cms.c", "bench/cuda/ddos_cms.cu"),
    "rate_limit": ("samples/xdp_rate_limit.c", "bench/cuda/rate_limit.cu"),
    "l4lb": ("samples/xdp_l4lb.c", "bench/cuda/l4lb.cu"),
    "tcp_mss": ("samples/xdp_tcp_mss.c", "bench/cuda/tcp_mss.cu"),
}

# Why a compiled program can trail its twin, by program: what its PTX
# shows (scripts/bench.sh prepare keeps both; ebpf-gpu-cc --emit=ptx).
STRUCTURE = {
    "lb": "a per-CPU array: each block claims a group of per-CPU slices before its packets (a bit of "
          "its multiprocessor's word: two L2 round trips while the block's warps wait at a barrier) and "
          "frees it after them (a release), where the twin counts in shared memory",
    "router": "an LPM trie: one hashed bucket probe (link, hash, key words: dependent loads) per prefix "
              "length present, longest first, where the twin scans a 4-entry sorted table held in L1",
    "conntrack": "an LRU hash with chained buckets (lookups read links, hashes and keys with plain loads "
                 "that L1 serves for hot flows; a bucket lock and fences on insert and delete) where the twin "
                 "probes an open-addressed table (one strong 16-byte load a slot)",
    "ddos_cms": "four array lookups and atomics, as the twin, plus a per-CPU counter (group claim)",
    "rate_limit": "an LRU hash as the firewall's (lookups from L1 for hot sources), but the program's own "
                  "reads of the bucket (tokens, refill time) are strong loads through L2, because it writes them "
                  "in place from many threads, where the twin reads a hot source's tokens with plain loads the "
                  "L1 cache serves (racing); and its time moves with the settled state's element placement",
    "l4lb": "a hash-map VIP lookup and an LRU-hash connection lookup per packet (links, hashes and keys "
            "from L1 when there), three array lookups, a per-CPU array (group claim) and "
            "bpf_xdp_adjust_head, where the twin scans a 5-entry VIP table, probes an open-addressed "
            "connection table (one strong 16-byte load a slot) and counts in shared memory",
    "tcp_mss": "the same loop over the options as the twin, with a bounds check against the packet's end "
               "on every access the verifier asked for, and atomics on an array for its counters where "
               "the twin counts in shared memory",
}


# Issue 16's goal: every pair at this ratio (compiled / twin) or better.
TARGET = 0.95

def ptxas_resources(path):
    """Registers, stack frame, spill stores/loads of the kernel in a ptxas -v log."""
    try:
        text = open(path).read()
    except OSError:
        return None
    regs = re.findall(r"Used (\d+) registers", text)
    stack = re.findall(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", text)
    if not regs:
        return None
    # The batch kernel is the last function ptxas reports (helpers come first
    # when they are not inlined); take the entry with the most registers.
    r = max(int(x) for x in regs)
    s = max((tuple(int(v) for v in t) for t in stack), default=(0, 0, 0))
    return {"regs": r, "stack": s[0], "spill_st": s[1], "spill_ld": s[2]}


def gpps(mpps):
    return "%.2f" % (mpps / 1000.0)


def gpu_vs_cpu(w, host, pairs, n):
    """The GPU suite's resident throughput against the host back end on 1 and all cores."""
    counts = sorted({t["threads"] for p in host["programs"] for t in p["host"]})
    dists = sorted({t.get("prefetch", 0) for p in host["programs"] for t in p["host"]})
    most = max(counts)
    w("## GPU vs CPU: the host back end on the GPU machine's CPU")
    w("")
    w("The same %d packets, resident in host memory in the same buffers, through the host back end" % host["packets"])
    w("(the program JIT-compiled for this CPU by LLVM's ORC JIT, run through libebpf-gpu's C API as an")
    w("application would: `bench/tools/ebpf-gpu-host-bench.cpp`, each thread on a lane of its own, bursts")
    w("of 256 packets run where they lie, `ebpf_gpu_lane__run_burst`) on")
    w("one core and on all %d cores (%s), measured in the same `scripts/bench.sh device` run as the GPU" % (
        host["cpus"], host["cpu"]))
    w("numbers above. One thread per core, pinned, each a contiguous share of the packets; a pass is timed")
    w("from the start signal to the last thread's end; the bytes programs can have written are restored")
    w("before every pass, outside the timed span (as on the GPU). %d warm-up passes, then up to %d timed" % (
        host["warmup"], host["reps"]))
    w("(fewer past a time budget: the count is in the table); median; Mpps = packets / median pass.")
    w("*prefetch 0* is the host back end's loop (context, call, verdict: nothing fetched ahead);")
    w("*prefetch D* also prefetches the packet D ahead's first bytes (`ebpf_gpu_run_opts.prefetch`),")
    w("as a CPU data plane would. The")
    w("packets are in DRAM, not in the cache a NIC would have written them to, so the CPU waits for each")
    w("packet's first line unless it prefetches.")
    w("Verdicts checked first, on these packets: the filter, LB and router give every packet the same")
    w("verdict, redirect target, bounds and output bytes on %d threads as on one; the firewall settles on" % most)
    w("one thread and then decides exactly alike on %d; the count-min sketch's verdicts (a 1-thread pass," % most)
    w("then a %d-thread pass, from a zero sketch) are within bounds computed from the packets." % most)
    w("All threads share one program and its maps, as the runtime's `forward` workers do; each thread is")
    w("a CPU of its own for the per-CPU maps (a value per thread, as the kernel's per CPU). The GPU")
    w("column is the compiled program's kernel")
    w("throughput on packets resident in GPU memory (the first table): neither side includes getting")
    w("packets in or out.")
    w("")
    gpu = {p["name"]: p for p in pairs}
    head = "| program | GPU compiled Mpps |"
    rule = "|---|---|"
    for d in dists:
        head += " host 1 core Mpps (prefetch %d) | host %d cores Mpps (prefetch %d) | %d cores / 1 core | GPU / 1 core | GPU / %d cores |" % (
            d, most, d, most, most)
        rule += "---|---|---|---|---|"
    w(head + " timed passes |")
    w(rule + "---|")
    for p in host["programs"]:
        by = {(t["threads"], t.get("prefetch", 0)): t for t in p["host"]}
        g = gpu.get(p["name"], {}).get("compiled_mpps")
        row = "| %s | %s |" % (p["name"], "%.1f" % g if g else "-")
        reps = []
        for d in dists:
            one, all_ = by.get((1, d)), by.get((most, d))
            if not one or not all_:
                row += " - | - | - | - | - |"
                continue
            row += " %.2f | %.2f | %.2f | %s | %s |" % (
                one["mpps"], all_["mpps"], all_["mpps"] / one["mpps"],
                "%.0fx" % (g / one["mpps"]) if g else "-", "%.1fx" % (g / all_["mpps"]) if g else "-")
            reps += [str(one["reps"]), str(all_["reps"])]
        w(row + " %s |" % " / ".join(reps))
    w("")
    if host["packets"] != n:
        w("(The host ran %d packets, the GPU %d: the ratios compare rates.)" % (host["packets"], n))
        w("")


def ids_section(w, ids, host):
    """The matching pairs (issue 18): xdp_ids and its twin with 100 to 10,000
    rules on 1500-byte frames, against the host back end on all cores."""
    frame, line = 1500, 8.2  # Mpps of 100 Gbit/s at 1500-byte frames (+ FCS, preamble, gap)
    n = ids["packets"]
    w("## Payload matching: xdp_ids, 1500-byte frames")
    w("")
    w("`samples/xdp_ids.c` (the kfunc `ebpf_gpu_match`: an Aho-Corasick DFA over the TCP/UDP payload, drop on a")
    w("match, per-rule hit counters) against its hand-written twin `bench/cuda/ids.cu` (same parsing and DFA")
    w("bytes: the harness copies the compiled pattern map's content into the twin, `twin-map=rules:ids_dfa`),")
    w("with 100, 1,000 and 10,000 patterns of Emerging Threats Open rules (`bench/rules`), on %d HTTP" % n)
    w("requests of 1500-byte frames (`ebpf-gpu-trafgen --payload http --frame-size 1500 --rules et-10000.rules`,")
    w("a small fraction carrying a rule, no other payload matching any), resident in GPU memory, every verdict")
    w("checked equal first; %d warm-up, %d timed repetitions, median. Gbit/s counts the frames' bytes; 100GbE" % (
        ids["warmup"], ids["reps"]))
    w("carries %.1f Mpps of them. The host back end ran %s on %s." % (
        line, "the same packets" if not host or host["packets"] == n else "the first %d of them" % host["packets"],
        "1 and all %d cores (%s)" % (host["cpus"], host["cpu"]) if host else "(not measured)"))
    w("")
    hosts = {}
    most = 0
    if host:
        most = max(t["threads"] for p in host["programs"] for t in p["host"])
        for p in host["programs"]:
            for t in p["host"]:
                if t["threads"] == most and t.get("prefetch", 0) == 0:
                    hosts[p["name"]] = t["mpps"]
    w("| rules | dropped | GPU compiled Mpps | Gbit/s | twin Mpps | compiled / twin | host %d cores Mpps | Gbit/s | GPU / host | 100GbE (%.1f Mpps) |" % (most, line))
    w("|---|---|---|---|---|---|---|---|---|---|")
    for p in ids["pairs"]:
        rules = p["name"].split("_")[-1]
        c, t = p["compiled_mpps"], p["cuda_mpps"]
        h = hosts.get(p["name"])
        w("| %s | %d | %.1f | %.0f | %.1f | %.3f%s | %s | %s | %s | %s |" % (
            "{:,}".format(int(rules)) if rules.isdigit() else rules, p["actions"][1], c, c * frame * 8 / 1000, t,
            p["ratio"], " **(< 0.95)**" if p["ratio"] < 0.95 else "",
            "%.2f" % h if h else "-", "%.1f" % (h * frame * 8 / 1000) if h else "-",
            "%.1fx%s" % (c / h, "" if c / h >= 10 else " **(< 10x)**") if h else "-",
            "yes" if c >= line else "**no**"))
    w("")
    w("Goals (issue 18): compiled at least 0.95x its twin, at least 10x the host back end on all cores, and")
    w("%.1f Mpps (100 Gbit/s of 1500-byte frames) with 10,000 rules: kernel throughput here, packets already" % line)
    w("in GPU memory; the end-to-end path (PCIe, batching) is measured for the port filter below.")
    w("")


def kernel_vs_host(w, kj, lscpu_path, command_path):
    """The kernel's JIT through BPF_PROG_TEST_RUN against the host back end, same machine."""
    model, cpus = kj["cpu"], kj["cpus"]
    if lscpu_path and os.path.exists(lscpu_path):
        info = dict(l.split(":", 1) for l in open(lscpu_path) if ":" in l)
        model = info.get("Model name", model).strip()
        cpus = info.get("CPU(s)", cpus).strip()
        hyper = info.get("Hypervisor vendor", "").strip()
        if hyper:
            model += " (a %s virtual machine)" % hyper
    command = open(command_path).read().strip() if command_path and os.path.exists(command_path) else "?"
    w("## The Linux kernel's JIT vs the host back end (on the build machine, not the GPU machine)")
    w("")
    w("Measured by `scripts/bench.sh prepare` on **%s, %s CPUs** (%s), where BPF test runs are" % (
        model, cpus, kj["kernel_settings"]))
    w("allowed (the GPU machine gives no BPF privileges we rely on): a same-machine ratio, not comparable")
    w("with the GPU machine's numbers above. `BPF_PROG_TEST_RUN` with `repeat` %d on each of %d packets" % (
        kj["kernel_repeat"], kj["programs"][0]["kernel"]["packets"] if kj["programs"] else 0))
    w("spread over %d packets of the same generator (`--seed 9`), pinned to one CPU; the kernel times the" % kj["packets"])
    w("runs itself (no system call inside) and reports their mean; the table gives the median of that over")
    w("the packets (robust to a run a neighbour interrupted; means in kernel-jit.json). A packet's runs see it as the previous")
    w("run left it (the router lowers its TTL each time; the firewall's and sketch's state builds up). The")
    w("host back end then runs the same packets on the same CPU the same way, timed around each packet's")
    w("runs (it sets up a fresh context every run; the kernel does not). For the filter, LB and router the")
    w("kernel's verdict, length and bytes on each packet's first run equal the host back end's. This is")
    w("not the NIC path: no driver, no DMA, no page pool. The streaming column is the host back end on all")
    w("%d packets on one thread (a pass over buffers in memory, as in the GPU-machine table)." % kj["packets"])
    w("")
    w("Command: `%s`" % command)
    w("")
    base = next((p for p in kj["programs"] if p["name"] == "pass_all"), None)
    if base:
        w("`pass_all` is `return XDP_PASS;` (samples/xdp_pass_drop.c): what the kernel's test-run loop and")
        w("the host's call and context cost by themselves; the net columns take it off the others.")
        w("")
    w("| program | kernel JIT ns/packet (Mpps) | host JIT ns/packet (Mpps), same packets and runs | kernel / host time | net of pass_all: kernel / host ns | host JIT streaming, 1 thread, Mpps |")
    w("|---|---|---|---|---|---|")
    for p in kj["programs"]:
        k, h = p["kernel"], p["host_repeat"]
        one = {t["threads"]: t for t in p["host"]}.get(1)
        net = "-"
        if base and p is not base:
            net = "%.1f / %.1f" % (k["ns_per_packet"] - base["kernel"]["ns_per_packet"],
                                   h["ns_per_packet"] - base["host_repeat"]["ns_per_packet"])
        w("| %s | %.1f (%.1f) | %.1f (%.1f) | %.2f | %s | %s |" % (
            p["name"], k["ns_per_packet"], k["mpps"], h["ns_per_packet"], h["mpps"],
            k["ns_per_packet"] / h["ns_per_packet"], net, "%.2f" % one["mpps"] if one else "-"))
    w("")


def read_variants(path):
    """(pair, registers) -> (compiled ms, twin ms) from ebpf-gpu-bench's table."""
    out = {}
    for line in open(path):
        f = line.split()
        m = re.match(r"^(\w+)_r(\d+)$", f[0]) if f else None
        if m and len(f) >= 9:
            try:
                out[(m.group(1), int(m.group(2)))] = (float(f[1]), float(f[5]))
            except ValueError:
                pass
    return out


def twin_kernel(kernels):
    return next((k for k in kernels if k != "ebpfgpu_xdp_batch"), None)


def stall_text(k, n=3):
    return ", ".join("%s %.0f%%" % (r, 100 * v) for r, v in list(k.get("stalls", {}).items())[:n])


def profile_diagnosis(kernels):
    """What the profile says about a compiled kernel against its twin."""
    c, t = kernels.get("ebpfgpu_xdp_batch"), kernels.get(twin_kernel(kernels))
    if not c or not t:
        return "profile incomplete"
    out = ["profile: %.0f us vs %.0f us under ncu" % (c.get("duration_us", 0), t.get("duration_us", 0))]
    if c.get("occupancy_pct", 0) + 10 < t.get("occupancy_pct", 0):
        out.append("occupancy %.0f%% vs %.0f%% (%d registers vs %d)" % (
            c["occupancy_pct"], t["occupancy_pct"], c.get("registers", 0), t.get("registers", 0)))
    cs, ts = c.get("stalls", {}), t.get("stalls", {})
    for reason, what in (("barrier", "waiting at barriers (the per-CPU group claim before a block's packets)"),
                         ("membar", "memory fences (bucket locks, group release)"),
                         ("long_sb", "waiting on memory (L1 misses, L2 and DRAM round trips)")):
        if cs.get(reason, 0) > ts.get(reason, 0) + 0.05:
            out.append("%s: %.0f%% of warp samples vs %.0f%%" % (what, 100 * cs[reason], 100 * ts.get(reason, 0)))
    if c.get("samples") and t.get("samples"):
        out.append("warp samples %d vs %d (%.2fx the twin's)" % (c["samples"], t["samples"], c["samples"] / t["samples"]))
    hot = c.get("hot", [])[:3]
    if hot:
        out.append("hottest compiled SASS: " + "; ".join("`%s` %.0f%% (%s)" % (h["sass"], 100 * h["share"], h["reason"]) for h in hot))
    return ", ".join(out)


def profile_section(w, pairs, profiles):
    w("## Where the time goes (Nsight Compute)")
    w("")
    w("`ncu --clock-control none (speed of light, occupancy, warp states, source counters)` on each pair's checked launches (`scripts/bench.sh profile`,")
    w("in the same device run; a converging pair's last, settled pass). Durations are under the profiler.")
    w("Stall shares are of all warp samples (long_sb: waiting on a memory load; barrier: at bar.sync;")
    w("membar: at a fence). Per-instruction pages: `profiles.tar.gz` beside this report's data.")
    w("")
    w("| program | kernel | us | registers | occupancy achieved / theoretical | warp samples | top stalls |")
    w("|---|---|---|---|---|---|---|")
    for p in pairs:
        ks = profiles.get(p["name"])
        if not ks:
            continue
        for label, name in (("compiled", "ebpfgpu_xdp_batch"), ("twin", twin_kernel(ks))):
            k = ks.get(name)
            if not k:
                continue
            w("| %s | %s `%s` | %.1f | %d | %.0f%% / %.0f%% | %d | %s |" % (
                p["name"], label, name, k.get("duration_us", 0), k.get("registers", 0),
                k.get("occupancy_pct", 0), k.get("theoretical_occupancy_pct", 0), k.get("samples", 0),
                stall_text(k)))
    w("")


def parse_args(argv=None):
    """The report's inputs (see --help)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--gpu", help="nvidia-smi line")
    ap.add_argument("--json2", help="a second ebpf-gpu-bench --json of the same suite in the same lease "
                    "(the Stability section)")
    ap.add_argument("--ptxas", help="folder of ptxas -v logs, NAME.compiled.txt / NAME.cuda.txt")
    ap.add_argument("--commit", default="unknown")
    ap.add_argument("--profiles", help="folder of profile-NAME.json (scripts/ncu-summary.py)")
    ap.add_argument("--compile-times", help="NAME MEDIAN_MS MIN_MS lines: ebpf-gpu-cc to .gpu.o "
                    "(scripts/bench.sh prepare, build machine)")
    ap.add_argument("--compile-machine", help="the build machine, a line (cores, CPU)")
    ap.add_argument("--load-json", help="an ebpf-gpu-bench --json whose load times to report instead "
                    "of --json's (a run made for them)")
    ap.add_argument("--variants", help="ebpf-gpu-bench's output for the register-budget variants "
                    "(suite-variants.txt: NAME_rN = the pair compiled with --max-registers=N)")
    ap.add_argument("--command", default="scripts/bench.sh prepare; scripts/bench.sh device")
    ap.add_argument("--out", required=True)
    ap.add_argument("--plots", help="folder for PNG plots (skipped without matplotlib)")
    ap.add_argument("--plotted", help="folder holding the plots one run already drew from the same data "
                    "(listed, not drawn again: a report regenerated without matplotlib)")
    ap.add_argument("--runner", help="ebpf-gpu-runner-bench --json output (the GPU batch path)")
    ap.add_argument("--host", help="ebpf-gpu-host-bench --json output from the GPU machine (1 and all cores)")
    ap.add_argument("--ids-json", help="ebpf-gpu-bench --json of the matching pairs (scripts/bench.sh's suite-ids)")
    ap.add_argument("--ids-host", help="ebpf-gpu-host-bench --json of the matching programs, same packets")
    ap.add_argument("--kernel-jit", help="ebpf-gpu-host-bench --kernel --json output (build machine)")
    ap.add_argument("--kernel-jit-lscpu", help="lscpu of the machine that measured --kernel-jit")
    ap.add_argument("--kernel-jit-command", help="file with the command that measured --kernel-jit")
    ap.add_argument("--forward-scaling",
                    help="markdown of scripts/bench-forward.sh (forward-scaling.md), included as is")
    ap.add_argument("--forward-gpus",
                    help="JSON lines of `forward --gpus LIST --json` runs (bench.sh forward_gpus)")
    ap.add_argument("--forward", help="JSON lines of `forward --json` runs through the gen port, "
                    "each with 'batch' and 'how' (mode:path[:zero-copy]) added")
    return ap.parse_args(argv)


def header(w, data, gpu, commit, n):
    """Title, machine and method."""
    today = datetime.date.today().isoformat()
    w("# Performance")
    w("")
    w("Compiled XDP programs (`ebpf-gpu-cc --target=sm_90`) against hand-written CUDA twins of the same")
    w("programs (`nvcc -ptx -arch=sm_90 -O3`), both JIT-compiled by the driver and run through the same")
    w("batch ABI on the same packets. Generated by `scripts/bench-report.py` from one run of")
    w("`scripts/bench.sh device`; do not edit the tables by hand.")
    w("")
    w("- machine: %s (%s), one GPU" % (data["device"], gpu))
    w("- date: %s; commit: %s" % (today, commit))
    w("- reproduce: `scripts/bench.sh prepare` on the build machine, then `scripts/bench.sh device` on the")
    w("  GPU machine with `.bench-carry` carried (one call, well under 10 minutes); `OUT` names the folder")
    w("  that receives `bench.json`, `bench.txt`, this file and the plots.")
    w("")
    w("## Method")
    w("- Packets: `ebpf-gpu-trafgen --count %d --seed 9 --tcp-options` (mixed traffic: 62%% IPv4 TCP/UDP, ICMP," % n)
    w("  IPv6, VLAN, IP options, ARP, truncated frames; 60% minimum-size; Zipf over 1024 flows; SYNs with TCP")
    w("  options, 5% of them malformed), each in its own")
    w("  buffer with XDP's 256 bytes of headroom, resident in GPU memory. Before every launch the frames")
    w("  are restored to their original bytes (the LBs, the router and the MSS clamp rewrite them), outside the")
    w("  timed span.")
    w("- Correctness before any time is kept, per pair (the harness stops on the first failure):")
    w("  - order-independent programs (filter, LB, router, MSS clamp): every verdict, data offset, length, redirect")
    w("    target and every output byte of every packet equal between compiled program and twin;")
    w("  - the stateful firewall, the rate limiter and the Katran-shaped balancer (l4lb): each program runs")
    w("    passes over the packets until two passes decide alike (the firewall's flow table has settled: every")
    w("    flow's SYN seen; every source's bucket is empty; every connection in the balancer's table), then")
    w("    the settled verdicts and bytes must be equal; the twin's refused-insert")
    w("    counter must be 0 (its table never fills);")
    w("  - the count-min sketch: verdicts depend on the order packets reach the counters, so each program's")
    w("    verdicts in two passes from zero sketches are checked against bounds computed on the host from the")
    w("    packets (drop when the source's estimate before the pass is past the threshold, pass when its")
    w("    estimate after the pass is not; in between either is right), packets it does not count must agree,")
    w("    and the twin's sketch must hold every addition.")
    w("- Timing: %d warm-up then %d repetitions, interleaved (compiled, twin, compiled, ...) so drift hits" % (data["warmup"], data["reps"]))
    w("  both alike; each launch timed with CUDA events around `cuLaunchKernel`; median reported (min and p90")
    w("  beside it). Throughput = packets / median. The firewall, the rate limiter and l4lb are timed from their")
    w("  settled state: it is saved once both programs have settled (the compiled program's maps, the twin's")
    w("  tables) and restored before every timed launch, outside the timed span, so every repetition does")
    w("  the same work. The sketch counts on across repetitions, as in service.")
    if data.get("placement") == "relaid":
        w("  Before it is saved, the compiled program's hashed maps are relaid in key order (the same contents,")
        w("  element i the i-th smallest key; one more pass must decide as the settled ones), so every run")
        w("  times one placement, not the one the settle passes' race to insert left; the twins keep theirs.")
    w("- Grids: a thread per packet for every program and twin. Programs with per-CPU maps (LB, router,")
    w("  count-min) run each block as a group of per-CPU slices it claims (docs/MAPS.md). Twins count in")
    w("  shared memory per block and add to global counters once per block.")
    w("- End to end: batches of %d-byte frames (each packet's first bytes, as a runtime that stages headers" % data["e2e_frame"])
    w("  copies them) and their descriptors in pinned host memory; per batch: copy in, kernel, verdicts out on")
    w("  one stream, host waits; host clock around the whole, %d batches per size after %d warm-up," % (data["e2e_reps"], data["warmup"]))
    w("  compiled and twin interleaved. Mpps = batch / p50 latency (one batch in flight, no overlap).")
    w("  Hash-map reclamation between batches (compiled firewall) is outside the timed span.")
    w("")


def kernel_section(w, pairs, n):
    """The compiled-vs-twin table and the checks; returns the pairs under TARGET."""
    w("## Kernel throughput, %d packets resident in GPU memory" % n)
    w("")
    w("| program | check | compiled median ms (min / p90) | twin median ms (min / p90) | compiled Gpps | twin Gpps | compiled / twin | grid threads compiled / twin |")
    w("|---|---|---|---|---|---|---|---|")
    below = []
    for p in pairs:
        c, t = p["compiled_ms"], p["cuda_ms"]
        ratio = p["ratio"]
        mark = "" if ratio >= TARGET else " **(< %s)**" % TARGET
        if ratio < TARGET:
            below.append(p)
        w("| %s (`%s`) | %s | %.4f (%.4f / %.4f) | %.4f (%.4f / %.4f) | %s | %s | %.3f%s | %s / %s |" % (
            p["name"], p["program"], p["check"], c["median"], c["min"], c["p90"], t["median"], t["min"], t["p90"],
            gpps(p["compiled_mpps"]), gpps(p["cuda_mpps"]), ratio, mark, p.get("compiled_grid", "?"), p.get("cuda_grid", "?")))
    w("")
    w("Checks passed:")
    w("")
    names = ["ABORTED", "DROP", "PASS", "TX", "REDIRECT"]
    for p in pairs:
        acts = ", ".join("%s %d" % (names[i], v) for i, v in enumerate(p["actions"]) if v)
        w("- %s: %s (compiled verdicts: %s)" % (p["name"], p["check_note"], acts))
    w("")
    return below


STABLE = 0.03


def stability_section(w, pairs, second):
    """Each pair's ratio in two runs of the suite in one lease, every object
    loaded afresh, and how far apart they are (the goal: within STABLE)."""
    again = {p["name"]: p for p in second["pairs"]}
    w("## Stability: two runs of the suite")
    w("")
    w("The suite's kernels run twice in one lease (`scripts/bench.sh device`: the second run loads every")
    w("object again; %d repetitions each), compiled / twin in each run and the difference; the goal is" % second["reps"])
    w("a difference within %.2f." % STABLE)
    w("")
    w("| program | run 1 | run 2 | difference | compiled ms run 1 / run 2 | twin ms run 1 / run 2 |")
    w("|---|---|---|---|---|---|")
    unstable = []
    for p in pairs:
        q = again.get(p["name"])
        if not q:
            w("| %s | %.3f | - | - | %.4f / - | %.4f / - |" % (
                p["name"], p["ratio"], p["compiled_ms"]["median"], p["cuda_ms"]["median"]))
            continue
        d = abs(p["ratio"] - q["ratio"])
        mark = "" if d <= STABLE else " **(> %.2f)**" % STABLE
        if d > STABLE:
            unstable.append(p["name"])
        w("| %s | %.3f | %.3f | %.3f%s | %.4f / %.4f | %.4f / %.4f |" % (
            p["name"], p["ratio"], q["ratio"], d, mark, p["compiled_ms"]["median"],
            q["compiled_ms"]["median"], p["cuda_ms"]["median"], q["cuda_ms"]["median"]))
    w("")
    w("Apart by more than %.2f: %s." % (STABLE, ", ".join(unstable) if unstable else "none"))
    w("")


def resources_section(w, pairs, ptxas):
    """ptxas -v's registers and local memory, compiled and twin."""
    if ptxas and os.path.isdir(ptxas):
        w("## Kernel resources (ptxas -v, sm_90)")
        w("")
        w("| program | compiled regs | compiled stack / spill st / spill ld (bytes) | twin regs | twin stack / spill st / spill ld |")
        w("|---|---|---|---|---|")
        for p in pairs:
            rc = ptxas_resources(os.path.join(ptxas, p["name"] + ".compiled.txt"))
            rt = ptxas_resources(os.path.join(ptxas, p["name"] + ".cuda.txt"))
            f = lambda r: ("%d" % r["regs"], "%d / %d / %d" % (r["stack"], r["spill_st"], r["spill_ld"])) if r else ("?", "?")
            w("| %s | %s | %s | %s | %s |" % ((p["name"],) + f(rc) + f(rt)))
        w("")


def load_section(w, pairs, data, a):
    """Compile times (build machine) and load times (GPU machine)."""
    load_src = json.load(open(a.load_json)) if a.load_json and os.path.exists(a.load_json) else data
    loads = {p["name"]: p for p in load_src["pairs"] if "compiled_load_ms" in p}
    compiles = {}
    if a.compile_times and os.path.exists(a.compile_times):
        for line in open(a.compile_times):
            f = line.split()
            if len(f) == 3:
                compiles[f[0]] = (float(f[1]), float(f[2]))
    if loads or compiles:
        w("## Compile and load times")
        w("")
        machine = open(a.compile_machine).read().split(None, 1) if a.compile_machine and os.path.exists(a.compile_machine) else []
        w("*compile*: `ebpf-gpu-cc PROG.o --target=sm_90 -o PROG.gpu.o` (verify, lift, optimise, NVPTX), 5 runs")
        w("on the build machine%s (`scripts/bench.sh prepare`), median (fastest). *load*: `GpuProgram::load`" %
          (" (%s cores, %s)" % (machine[0], machine[1].strip()) if len(machine) == 2 else ""))
        w("on the GPU machine: the driver JIT-compiles the PTX (`cuModuleLoadDataEx`), the maps are allocated")
        w("and bound; the twin's the same way%s." % (
            " (measured in a separate run of the same suite: `--load-json`)" if load_src is not data else ""))
        w("")
        w("| program | compile ms | load ms, compiled | load ms, twin |")
        w("|---|---|---|---|")
        for p in pairs:
            c, l = compiles.get(p["name"]), loads.get(p["name"])
            w("| %s | %s | %s | %s |" % (p["name"], "%.1f (%.1f)" % c if c else "-",
                                         "%.1f" % l["compiled_load_ms"] if l else "-",
                                         "%.1f" % l["cuda_load_ms"] if l else "-"))
        w("")


def variants_section(w, pairs, variants):
    """The pairs built with a register budget."""
    if variants:
        w("## Register budgets (`ebpf-gpu-cc --max-registers=N`)")
        w("")
        w("The same pairs with the compiled program built with a register budget (PTX `.maxnreg`, as")
        w("nvcc's `-maxrregcount`): fewer registers let more threads share a multiprocessor, at the price")
        w("of spills to local memory. Same run, same packets, same checks; the default build is the table")
        w("above. No budget is the compiler's default: it helps the firewall and hurts the rate limiter.")
        w("")
        w("| program | budget | compiled median ms | twin median ms | compiled / twin | default build compiled / twin |")
        w("|---|---|---|---|---|---|")
        by_name = {p["name"]: p for p in pairs}
        for (name, regs), v in sorted(variants.items()):
            base = by_name.get(name)
            w("| %s | %d | %.4f | %.4f | %.3f | %s |" % (name, regs, v[0], v[1], v[1] / v[0],
                                                     "%.3f" % base["ratio"] if base else "-"))
        w("")


def below_section(w, below, variants, profiles, ptxas):
    """Each pair under TARGET with what explains it."""
    w("## Below %sx" % TARGET)
    w("")
    if not below:
        w("None: every compiled program reached at least %sx its twin in this run." % TARGET)
    else:
        for p in below:
            note = []
            if p["name"] in STRUCTURE:
                note.append("structure: " + STRUCTURE[p["name"]])
            if p.get("compiled_kernel"):
                note.append("the loader ran the " + p["compiled_kernel"])
            tuned = [(r, v[1] / v[0]) for (n, r), v in variants.items() if n == p["name"]]
            if tuned:
                best = max(tuned, key=lambda x: x[1])
                note.append("with `--max-registers=%d`: %.3fx (Register budgets, above)" % best)
            prof = profiles.get(p["name"])
            if prof:
                note.append(profile_diagnosis(prof))
            rc = ptxas_resources(os.path.join(ptxas or "", p["name"] + ".compiled.txt")) if ptxas else None
            rt = ptxas_resources(os.path.join(ptxas or "", p["name"] + ".cuda.txt")) if ptxas else None
            if rc and rt and rc["stack"] > rt["stack"]:
                funcs = os.path.join(ptxas, p["name"] + ".compiled.funcs.txt")
                extra = open(funcs).read().strip() if os.path.exists(funcs) else ""
                note.append("the compiled kernel has a %d-byte stack frame in local memory and %d registers "
                            "(twin: %d, %d); from its PTX: %s" % (rc["stack"], rc["regs"], rt["stack"], rt["regs"],
                                                                  extra or "see ebpf-gpu-cc --emit=ptx"))
            w("- %s: %.3fx. %s." % (p["name"], p["ratio"], "; ".join(note) or "not analysed (no profile)"))
    w("")










def sources_section(w, pairs):
    """Where each program and twin comes from."""
    w("## Sources")
    w("")
    for p in pairs:
        src = SAMPLES.get(p["name"])
        if src:
            w("- %s: `%s`, twin `%s`" % (p["name"], src[0], src[1]))
    w("- harness: `bench/tools/ebpf-gpu-bench.cpp`; suite: written by `scripts/bench.sh prepare`")
    w("- CPU side: `bench/tools/ebpf-gpu-host-bench.cpp` (host back end; `--kernel`: the kernel's JIT)")
    w("")


def draw_plots(w, pairs, runner, a):
    """PNG plots where matplotlib is there (or those one run drew)."""
    plots = []
    if a.plots:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            fig, ax = plt.subplots(figsize=(7, 3.5))
            xs = range(len(pairs))
            ax.bar([x - 0.2 for x in xs], [p["compiled_mpps"] / 1000 for p in pairs], 0.4, label="compiled")
            ax.bar([x + 0.2 for x in xs], [p["cuda_mpps"] / 1000 for p in pairs], 0.4, label="hand-written CUDA")
            ax.set_xticks(list(xs))
            ax.set_xticklabels([p["name"] for p in pairs])
            ax.set_ylabel("Gpps (packets resident in HBM)")
            ax.legend()
            fig.tight_layout()
            fig.savefig(os.path.join(a.plots, "perf-kernel.png"), dpi=120)
            plots.append(("perf-kernel.png", "Kernel throughput, compiled vs hand-written"))
            if any(p["e2e"] for p in pairs):
                fig, ax = plt.subplots(figsize=(7, 4))
                for p in pairs:
                    if p["e2e"]:
                        ax.plot([e["batch"] for e in p["e2e"]], [e["compiled_mpps"] for e in p["e2e"]], marker="o", label=p["name"])
                ks = sorted(ANCHOR_E2E_MPPS)
                ax.plot(ks, [ANCHOR_E2E_MPPS[k] for k in ks], "k--", label="anchor (DESIGN.md)")
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_xlabel("packets per batch")
                ax.set_ylabel("Mpps (compiled, end to end)")
                ax.legend(fontsize=8)
                fig.tight_layout()
                fig.savefig(os.path.join(a.plots, "perf-e2e.png"), dpi=120)
                plots.append(("perf-e2e.png", "End to end by batch size"))
            if runner:
                fig, ax = plt.subplots(figsize=(7, 4))
                frame = min(r["frame"] for r in runner)
                for mode in sorted({r["mode"] for r in runner}):
                    for path in sorted({r["path"] for r in runner}):
                        rs = [r for r in runner if r["mode"] == mode and r["path"] == path and r["frame"] == frame]
                        if rs:
                            ax.plot([r["batch"] for r in rs], [r.get("gpu_mpps", r["batch"] / r["p50_us"]) for r in rs],
                                    marker="o", label="%s, %s" % (mode, path))
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_xlabel("packets per batch")
                ax.set_ylabel("Mpps at run p50 (%d-byte frames)" % frame)
                ax.legend(fontsize=8)
                fig.tight_layout()
                fig.savefig(os.path.join(a.plots, "perf-modes.png"), dpi=120)
                plots.append(("perf-modes.png", "GPU batch path by batch size, mode and data path"))
        except Exception as e:  # plots are optional
            print("bench-report: no plots (%s)" % e, file=sys.stderr)
    if not plots and a.plotted:
        titles = {"perf-kernel.png": "Kernel throughput, compiled vs hand-written",
                  "perf-e2e.png": "End to end by batch size",
                  "perf-modes.png": "GPU batch path by batch size, mode and data path"}
        plots = [(f, t) for f, t in titles.items() if os.path.exists(os.path.join(a.plotted, f))]
    if plots:
        w("## Plots")
        w("")
        for f, title in plots:
            w("![%s](perf/%s)" % (title, f))
        w("")


def read_json(path):
    """An optional input: its JSON, or None where the path is not given or not there."""
    return json.load(open(path)) if path and os.path.exists(path) else None


def read_jsonl(path):
    """JSON lines (blank lines skipped)."""
    return [json.loads(l) for l in open(path) if l.strip()]


def read_profiles(folder, pairs):
    """name -> profile-NAME.json's kernels, for the pairs profiled."""
    profiles = {}
    if folder and os.path.isdir(folder):
        for p in pairs:
            f = os.path.join(folder, "profile-%s.json" % p["name"])
            if os.path.exists(f):
                profiles[p["name"]] = json.load(open(f))["kernels"]
    return profiles




def write_report(path, md):
    """All or nothing: a failed run leaves no partial report."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(md))
    os.replace(tmp, path)


def main():
    a = parse_args()
    data = json.load(open(a.json))
    gpu = open(a.gpu).read().strip() if a.gpu and os.path.exists(a.gpu) else data["device"]
    n = data["packets"]
    pairs = data["pairs"]
    md = []
    w = md.append
    header(w, data, gpu, a.commit, n)
    below = kernel_section(w, pairs, n)
    if a.json2 and os.path.exists(a.json2):
        stability_section(w, pairs, json.load(open(a.json2)))
    host = read_json(a.host)
    if host:
        gpu_vs_cpu(w, host, pairs, n)
    if a.ids_json and os.path.exists(a.ids_json):
        ids_section(w, json.load(open(a.ids_json)), read_json(a.ids_host))
    kjit = read_json(a.kernel_jit)
    if kjit:
        kernel_vs_host(w, kjit, a.kernel_jit_lscpu, a.kernel_jit_command)
    profiles = read_profiles(a.profiles, pairs)
    if profiles:
        profile_section(w, pairs, profiles)
    resources_section(w, pairs, a.ptxas)
    load_section(w, pairs, data, a)
    variants = read_variants(a.variants) if a.variants and os.path.exists(a.variants) else {}
    variants_section(w, pairs, variants)
    below_section(w, below, variants, profiles, a.ptxas)
    e2e_section(w, pairs)
    runner = json.load(open(a.runner))["results"] if a.runner else []
    forward = read_jsonl(a.forward) if a.forward else []
    if runner:
        runner_section(w, runner)
    if forward:
        forward_section(w, forward)
    gpus_runs = read_jsonl(a.forward_gpus) if a.forward_gpus and os.path.exists(a.forward_gpus) else []
    if gpus_runs:
        forward_gpus_section(w, gpus_runs)
    if a.forward_scaling:
        forward_scaling_section(w, a.forward_scaling)
    sources_section(w, pairs)
    draw_plots(w, pairs, runner, a)
    write_report(a.out, md)


if __name__ == "__main__":
    main()

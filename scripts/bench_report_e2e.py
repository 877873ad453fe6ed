#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# docs/PERFORMANCE.md's end-to-end sections, for scripts/bench-report.py:
# the copy-in + kernel + verdicts-out path of one stream (ebpf-gpu-bench),
# the runtime's GPU batch path (ebpf-gpu-runner-bench), `forward` through
# the generator port, over several GPUs, and bench-forward.sh's tables.
# Each writes Markdown lines through `w`. Standard library only.

# DESIGN.md's measured anchors: copy batch in + kernel + verdicts out, one
# stream, 64-byte frames, hand-written filter (H100 80GB HBM3, 2026-11-22).
ANCHOR_E2E_MPPS = {32: 2.6, 256: 18.7, 4096: 177.0, 65536: 658.0}


def e2e_section(w, pairs):
    """Copy in + kernel + verdicts out, one stream."""
    if any(p["e2e"] for p in pairs):
        w("## End to end: copy in + kernel + verdicts out, one stream")
        w("")
        w("Batch latency p50 / p99 (us) and Mpps at p50. Anchor: DESIGN.md's hand-written filter on the same")
        w("path (H100, 64-byte frames).")
        w("")
        w("| program | batch | compiled p50 / p99 us | compiled Mpps | twin p50 / p99 us | twin Mpps | anchor Mpps |")
        w("|---|---|---|---|---|---|---|")
        for p in pairs:
            for e in p["e2e"]:
                anchor = ANCHOR_E2E_MPPS.get(e["batch"])
                w("| %s | %d | %.1f / %.1f | %.1f | %.1f / %.1f | %.1f | %s |" % (
                    p["name"], e["batch"], e["compiled_us"]["median"], e["compiled_us"]["p99"], e["compiled_mpps"],
                    e["cuda_us"]["median"], e["cuda_us"]["p99"], e["cuda_mpps"], "%.1f" % anchor if anchor else "-"))
        w("")


def runner_section(w, runner):
    """The runtime's GPU batch path by mode, data path, batch and frame."""
    if runner:
        w("## The runtime's GPU batch path: mode x data path x batch x frame size")
        w("")
        w("`ebpf-gpu-runner-bench` (bench/tools/ebpf-gpu-runner-bench.cpp) drives `loader::GpuRunner` as the")
        w("runtime does, with the compiled port filter: per batch, the host stages the packets in pinned")
        w("memory (the CPU's copy: XDP's 256 bytes of headroom and tailroom around each), then `run()` until")
        w("the verdicts are on the host. *launch*: one kernel launch per batch; *persistent*: one kernel")
        w("polling a doorbell ring in pinned memory. *copy*: batches copied to GPU memory and back;")
        w("*mapped*: the kernel reads and writes the pinned batch over PCIe. Every combination's verdicts")
        w("and bytes equal one-packet launches on the first 4096 packets before it is timed. Run p50/p99:")
        w("the batch latency the GPU path adds; Mpps at p50 = batch / run p50; with staging: one host")
        w("thread staging and running one batch at a time.")
        w("")
        w("| frame | batch | mode | path | run p50 / p99 us | Mpps at run p50 | staging p50 us | Mpps with staging |")
        w("|---|---|---|---|---|---|---|---|")
        for r in runner:
            w("| %d | %d | %s | %s | %.1f / %.1f | %.2f | %.1f | %.2f |" % (
                r["frame"], r["batch"], r["mode"], r["path"], r["p50_us"], r["p99_us"],
                r.get("gpu_mpps", r["batch"] / r["p50_us"]), r.get("staging_p50_us", 0), r["mpps"]))
        w("")


def forward_section(w, forward):
    """`forward` through the generator port."""
    if forward:
        w("## End to end through the DPDK runtime (`forward`, generator port, 64-byte frames)")
        w("")
        w("`ebpf-gpu-loader forward PROG.gpu.o --port gen --gen-pcap P --gen-frame 64 --batch B")
        w("--gpu-mode M --gpu-data D [--zero-copy]`: one worker lcore receives from an rx ring that another")
        w("core of the same process keeps full (DPDK rings through `rte_eth_from_rings`), batches, runs the")
        w("batch on the GPU and acts on the verdicts (XDP_PASS without an exception port: freed and counted).")
        w("*zero-copy*: the program runs on the mbufs in place (their pool mapped for the GPU), with no copy")
        w("into a batch. Mpps over the busy time (first packet received to last batch done); batch latency")
        w("from the data plane (a batch's first packet received to its last one sent or freed). How this")
        w("scales with workers: `scripts/bench-forward.sh` (its section below, when given).")
        w("")
        w("| batch | mode:path | packets | Mpps | batch p50 / p99 us |")
        w("|---|---|---|---|---|")
        for f in forward:
            # batch_latency_us since the one data plane; gpu_batch_latency_us before.
            l = f.get("batch_latency_us", f.get("gpu_batch_latency_us", {}))
            w("| %d | %s | %d | %.2f | %.1f / %.1f |" % (
                f["batch"], f["how"], f["packets"], f["packets"] / f["busy_seconds"] / 1e6,
                l.get("p50", -1), l.get("p99", -1)))
        w("")


def forward_gpus_section(w, runs):
    """`forward --gpus`: the same workers over one GPU and a GPU list."""
    have = runs[0]["machine_gpus"]
    w("## End to end over several GPUs (`forward --gpus`, generator port)")
    w("")
    w("`ebpf-gpu-loader forward PROG.gpu.o --port gen --gen-pcap P --gen-frame F --gen-lcores 2")
    w("--queues W --batch 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gpus LIST`: W workers,")
    w("worker i on entry i mod the list's length, each entry a context with its own module and map")
    w("copies (docs/RUNTIME.md, \"Several GPUs\"). Mpps over the busy time; the ratio is to `--gpus 1`.")
    w("F: 64-byte frames for the port filter and the LB (the GPU is not their limit), 1500-byte HTTP")
    w("frames for the IDS with 10,000 rules (`ids`: heavy work a packet).")
    if have < 2:
        w("**This machine has %d GPU**: the list `0,0` is two contexts of GPU 0, which measures what a"
          " second context costs, not what a second GPU gains; the 2-GPU figures need a machine with two." % have)
    w("")
    w("| program | frame | --gpus | workers | packets | Mpps | Gbit/s | vs --gpus 1 |")
    w("|---|---|---|---|---|---|---|---|")
    base = {}
    for r in runs:
        mpps = r["packets"] / r["busy_seconds"] / 1e6 if r["busy_seconds"] else 0.0
        if r["gpu_list"] == "1":
            base[r["program_file"]] = mpps
        b = base.get(r["program_file"])
        frame = r.get("frame", 64)
        w("| %s | %d | %s | %d | %d | %.2f | %.1f | %s |" % (
            r["program_file"], frame, r["gpu_list"], r["workers"], r["packets"], mpps,
            mpps * frame * 8 / 1e3, "%.2fx" % (mpps / b) if b else "-"))
    w("")


def forward_scaling_section(w, path):
    """scripts/bench-forward.sh's tables (scripts/forward-report.py), as they are."""
    with open(path) as f:
        for line in f.read().rstrip("\n").split("\n"):
            w(line)
    w("")

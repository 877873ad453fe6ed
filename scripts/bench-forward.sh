#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# End to end through `ebpf-gpu-loader forward` and its generator port
# (issue 20: line rate end to end), in two halves:
#   scripts/bench-forward.sh prepare  (here) the LLVM-free loader with DPDK
#       (GPU back end), a loader with LLVM linked in (host back end), the
#       programs compiled for sm_90 and as eBPF objects, the traffic, in
#       .fwd-carry/
#   scripts/bench-forward.sh device   (on the GPU machine, .fwd-carry
#       carried) the generator's ceiling (the null back end), the port
#       filter through the GPU by workers x batch x control mode, the host
#       back end on the same cores and traffic, the load balancer and the
#       stateful firewall through both, batch latency, and the persistent
#       lanes (a kernel per worker, batches in flight) against launch mode;
#       one JSON line a run in $OUT/forward-scaling.jsonl and a table on
#       stdout; the daemon's data plane (section daemon, not in the default
#       list) in $OUT/daemon-scaling.jsonl.
# Knobs: FWD_MS (each run's traffic, default 1500 ms), FWD_WORKERS
# (default "1 2 4 8"), FWD_BATCHES (default "256 4096 65536"), FWD_GEN
# (generator lcores, default 6: with 8 workers and the main lcore, 15 of the
# GPU machine's 16 CPUs), FWD_SECTIONS (default "ceiling replay gpu host
# programs latency lanes").
set -euo pipefail
cd "$(dirname "$0")/.."
CARRY=.fwd-carry
PROGRAMS=(
  "port_filter xdp_port_filter.o"
  "lb xdp_lb.o"
  "conntrack xdp_conntrack.o"
)

prepare() {
  . scripts/dpdk-carry.sh
  bash scripts/build.sh
  rm -rf "$CARRY"
  mkdir -p "$CARRY/programs"
  dpdk_carry "$CARRY/dpdk.tar.xz"
  # The host back end is the ORC JIT: a loader with LLVM (and libbpf,
  # libelf) linked in statically, DPDK too.
  cmake -S . -B build-static -G Ninja -DCMAKE_BUILD_TYPE=Release -DEBPF_GPU_STATIC_LLVM=ON \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
  ninja -C build-static ebpf-gpu-loader
  local host=build-static/host-carry
  rm -rf "$host" && mkdir -p "$host/lib"
  strip -o "$host/ebpf-gpu-loader" build-static/tools/ebpf-gpu-loader
  ldd build-static/tools/ebpf-gpu-loader | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' | xargs -r cp -L -t "$host/lib/"
  strip "$host"/lib/*
  tar -cf - -C "$host" . | xz -T2 -6 >"$CARRY/host.tar.xz"
  local entry name obj
  for entry in "${PROGRAMS[@]}"; do
    read -r name obj <<<"$entry"
    build/tools/ebpf-gpu-cc "build/samples/$obj" --target=sm_90 -o "$CARRY/programs/$name.gpu.o"
    cp "build/samples/$obj" "$CARRY/programs/$name.o"
  done
  cp samples/xdp_lb.maps "$CARRY/programs/lb.maps"
  # 20,000 packets of the mixed traffic (Zipf flows); the generator cuts
  # them to 64-byte frames.
  build/tools/ebpf-gpu-trafgen -o "$CARRY/traffic.pcap" --count 20000 --seed 9 >/dev/null
  du -sh "$CARRY"
}

# One forward run: NAME BACKEND PROGRAM WORKERS BATCH [extra args]; one
# JSON line to the results, one line of text to stdout.
run() {
  local name=$1 backend=$2 prog=$3 workers=$4 batch=$5
  shift 5
  local dir=/tmp/fwd object=$CARRY/programs/$prog.gpu.o maps=()
  if [[ $backend != gpu ]]; then
    dir=/tmp/fwd-host object=$CARRY/programs/$prog.o
  fi
  [[ -f $CARRY/programs/$prog.maps ]] && maps=(--map-file "$CARRY/programs/$prog.maps")
  if LD_LIBRARY_PATH=$dir/lib timeout -k 5 90 "$dir/ebpf-gpu-loader" forward "$object" --backend "$backend" \
      --port gen --gen-pcap "$CARRY/traffic.pcap" --gen-frame 64 --gen-lcores "${FWD_GEN:-6}" \
      --queues "$workers" --batch "$batch" --duration-ms "${FWD_MS:-1500}" "${maps[@]}" "$@" \
      --json >/tmp/fwd.json 2>/tmp/fwd.err; then
    python3 - /tmp/fwd.json "$name" "$backend" "$prog" "$workers" "$batch" "$*" "${FWD_GEN:-6}" \
      >>"$OUT/forward-scaling.jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r.update(name=sys.argv[2], backend=sys.argv[3], prog=sys.argv[4], workers=int(sys.argv[5]),
         batch=int(sys.argv[6]), args=sys.argv[7], gen_lcores=int(sys.argv[8]))
mpps = r["packets"] / r["busy_seconds"] / 1e6 if r["busy_seconds"] else 0
r["mpps"] = mpps
l = r.get("batch_latency_us", {})
lost = r["packets"] - sum(a["packets"] for a in r["actions"].values())
# Worker time per packet: all of it (workers x busy time), and the parts
# spent starting batches, waiting for a slot and acting on verdicts; the
# rest is receiving and staging.
w = r.get("worker_ns", {})
n = max(r["packets"], 1)
total = r["workers"] * r["busy_seconds"] * 1e9 / n
sub, wait, act = (w.get(k, 0) / n for k in ("submit", "wait", "act"))
r["ns_per_packet"] = dict(total=total, submit=sub, wait=wait, act=act,
                          rx=total - sub - wait - act)
rt = r.get("gpu_round_trip_us", {})
print("%-10s %-5s %-12s gen %d workers %2d batch %6d %-34s %8.2f Mpps  p50 %8.1f us  p99 %8.1f us"
      "  gen %6.1f Mpps  unaccounted %d  ns/pkt: %.1f = rx %.1f + submit %.1f + wait %.1f + act %.1f%s" % (
    r["name"], r["backend"], r["prog"], r["gen_lcores"], r["workers"], r["batch"], r["args"], mpps,
    l.get("p50", -1), l.get("p99", -1), r.get("generated", 0) / r["seconds"] / 1e6, lost,
    total, total - sub - wait - act, sub, wait, act,
    "  GPU round trip p50 %.1f p99 %.1f us" % (rt["p50"], rt["p99"]) if rt else ""),
    file=sys.stderr)
print(json.dumps(r))
PY
  else
    echo "$name $backend $prog workers $workers batch $batch $*: FAILED" >&2
    cat /tmp/fwd.err >&2
  fi
}

# One daemon run: NAME BACKEND PROGRAM WORKERS BATCH [prog load args]: a
# daemon of WORKERS workers, the program loaded, a net_null port of WORKERS
# rx queues (64-byte packets) attached, its rx rate over FWD_MS between two
# `stats`; one JSON line to $OUT/daemon-scaling.jsonl, one line to stderr.
daemon_run() {
  local name=$1 backend=$2 prog=$3 workers=$4 batch=$5
  shift 5
  local dir=/tmp/fwd object=$CARRY/programs/$prog.gpu.o sock=/tmp/fwd-daemon.sock pid i
  if [[ $backend != gpu ]]; then
    dir=/tmp/fwd-host object=$CARRY/programs/$prog.o
  fi
  rm -f "$sock"
  LD_LIBRARY_PATH=$dir/lib "$dir/ebpf-gpu-loader" daemon --socket "$sock" --workers "$workers" \
    >/tmp/fwd-daemon.log 2>&1 &
  pid=$!
  for i in $(seq 200); do [[ -S $sock ]] && break; sleep 0.05; done
  local c=(env LD_LIBRARY_PATH="$dir/lib" "$dir/ebpf-gpu-loader" --socket "$sock")
  if "${c[@]}" prog load "$object" "$@" >/dev/null &&
    "${c[@]}" net attach 1 net_null0,size=64 --queues "$workers" --batch "$batch" >/dev/null; then
    python3 - "$name" "$backend" "$prog" "$workers" "$batch" "$*" "${FWD_MS:-1500}" "${c[@]}" \
      >>"$OUT/daemon-scaling.jsonl" <<'PY'
import json, subprocess, sys, time
name, backend, prog, workers, batch, args, ms = sys.argv[1:8]
client = sys.argv[8:]
def sample():
    p = json.loads(subprocess.run(client + ["--json", "stats"], check=True,
                                  capture_output=True, text=True).stdout)["ports"][0]
    acted = sum(a["packets"] for a in p["actions"].values())
    return time.monotonic(), p["rx_packets"], acted, p["errors"]["exec_failed"]
time.sleep(0.3)  # past the first batches
t0, rx0, a0, f0 = sample()
time.sleep(int(ms) / 1000)
t1, rx1, a1, f1 = sample()
r = dict(name=name, backend=backend, prog=prog, workers=int(workers), batch=int(batch), args=args,
         seconds=t1 - t0, rx=rx1 - rx0, acted=a1 - a0, exec_failed=f1 - f0,
         mpps=(a1 - a0) / (t1 - t0) / 1e6)
print("%-10s %-5s %-12s daemon workers %2d batch %6d %-40s %8.2f Mpps acted (rx %.2f, exec_failed %d)" % (
    name, backend, prog, r["workers"], r["batch"], args, r["mpps"], r["rx"] / r["seconds"] / 1e6,
    r["exec_failed"]), file=sys.stderr)
print(json.dumps(r))
PY
  else
    echo "$name $backend $prog daemon workers $workers batch $batch $*: FAILED" >&2
  fi
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" || echo "daemon exit $? ($name $backend $prog $workers $batch $*)" >&2
  [[ -s /tmp/fwd-daemon.log ]] && grep -iE "error|fail" /tmp/fwd-daemon.log | head -5 >&2 || true
}

device() {
  : "${OUT:?OUT must name the output folder}"
  mkdir -p /tmp/fwd && tar -xJf "$CARRY/dpdk.tar.xz" -C /tmp/fwd
  mkdir -p /tmp/fwd-host && tar -xJf "$CARRY/host.tar.xz" -C /tmp/fwd-host
  # Hugepages, as in production (the loader falls back to --no-huge).
  echo 4096 >/proc/sys/vm/nr_hugepages 2>/dev/null || true
  mkdir -p /mnt/huge && (mountpoint -q /mnt/huge || mount -t hugetlbfs nodev /mnt/huge) || true
  grep -E "HugePages_(Total|Free)" /proc/meminfo || true
  nproc; nvidia-smi --query-gpu=name --format=csv,noheader || true
  lscpu | grep -E "^(Model name|Thread|Core|Socket|L2|L3|NUMA node0)" || true
  : >"$OUT/forward-scaling.jsonl"
  local sections=${FWD_SECTIONS:-ceiling replay gpu host programs latency lanes} w b d
  local workers=${FWD_WORKERS:-1 2 4 8} batches=${FWD_BATCHES:-256 4096 65536}
  for section in $sections; do
    echo "== $(date +%T) $section" >&2
    case $section in
    ceiling) # the generator and the data plane alone
      for w in $workers; do run ceiling null port_filter "$w" 4096 --zero-copy; done
      for g in 1 2 4; do FWD_GEN=$g run ceiling null port_filter 8 4096 --zero-copy; done
      # Mbufs sized for 64-byte frames (a pool that fits the caches better).
      for w in $workers; do run ceiling null port_filter "$w" 4096 --zero-copy --max-frame 128; done
      run ceiling null port_filter 1 256 --zero-copy ;;
    replay) # the generator replaying its frames (--gen-replay), on 4 lcores
      for g in 1 2 4; do FWD_GEN=$g run replay null port_filter 8 4096 --zero-copy --gen-replay; done
      for w in $workers; do
        FWD_GEN=4 run replay gpu port_filter "$w" 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay
      done
      FWD_GEN=4 run replay gpu port_filter 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay --gpu-stage off
      FWD_GEN=4 run replay host port_filter 8 4096 --zero-copy --gen-replay
      FWD_GEN=6 run replay gpu port_filter 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay
      FWD_GEN=4 run replay gpu port_filter 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay --max-frame 128
      # Scaling with every other CPU generating: 1 and 8 workers, 7 lcores,
      # and the generator's and the data plane's own ceiling there (null).
      for w in 1 8; do
        FWD_GEN=7 run replay gpu port_filter "$w" 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay --max-frame 128
        FWD_GEN=7 run replay null port_filter "$w" 4096 --zero-copy --gen-replay --max-frame 128
      done
      FWD_GEN=4 run replay gpu conntrack 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay
      FWD_GEN=4 run replay host conntrack 8 4096 --zero-copy --gen-replay ;;
    gpu)
      for b in $batches; do
        for w in $workers; do
          run gpu gpu port_filter "$w" "$b" --gpu-mode launch --gpu-data mapped --zero-copy
        done
      done
      for w in $workers; do
        run gpu gpu port_filter "$w" 4096 --gpu-mode launch --gpu-data mapped --zero-copy --max-frame 128
      done
      # Every CPU: 8 workers, 7 generator lcores, the main one.
      FWD_GEN=7 run gpu null port_filter 8 4096 --zero-copy --max-frame 128
      FWD_GEN=7 run gpu gpu port_filter 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --max-frame 128
      CUDA_DEVICE_MAX_CONNECTIONS=8 run gpu gpu port_filter 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy
      run gpu gpu port_filter 8 4096 --gpu-mode launch --gpu-data copy
      run gpu gpu port_filter 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --depth 1
      run gpu gpu port_filter 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --depth 6
      for w in 1 4; do
        run gpu gpu port_filter "$w" 4096 --gpu-mode persistent --gpu-data mapped --zero-copy
      done ;;
    host)
      for w in $workers; do run host host port_filter "$w" 4096 --zero-copy; done ;;
    lanes) # persistent lanes: a kernel per worker, batches in flight
      for d in 1 2 3 4; do
        run lanes gpu port_filter 1 256 --gpu-mode persistent --gpu-data mapped --zero-copy --timeout-us 20 --depth "$d"
      done
      run lanes gpu port_filter 1 256 --gpu-mode launch --gpu-data mapped --zero-copy --timeout-us 20 --depth 2
      run lanes gpu port_filter 1 32 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5 --depth 1
      run lanes gpu port_filter 1 32 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5
      for w in $workers; do
        FWD_GEN=4 run lanes gpu port_filter "$w" 4096 --gpu-mode persistent --gpu-data mapped --zero-copy --gen-replay
        FWD_GEN=4 run lanes gpu port_filter "$w" 256 --gpu-mode persistent --gpu-data mapped --zero-copy --gen-replay
      done
      FWD_GEN=4 run lanes gpu port_filter 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay
      FWD_GEN=4 run lanes gpu port_filter 8 256 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay
      FWD_GEN=4 run lanes gpu lb 8 4096 --gpu-mode persistent --gpu-data mapped --zero-copy --gen-replay
      # In place: the worker writes descriptors only, as in launch mode.
      for w in 1 8; do
        FWD_GEN=4 run lanes gpu port_filter "$w" 4096 --gpu-mode persistent --gpu-data mapped --zero-copy --gen-replay --gpu-stage off
      done
      FWD_GEN=4 run lanes gpu port_filter 8 256 --gpu-mode persistent --gpu-data mapped --zero-copy --gen-replay --gpu-stage off
      FWD_GEN=4 run lanes gpu lb 8 4096 --gpu-mode persistent --gpu-data mapped --zero-copy --gen-replay --gpu-stage off
      # Every other CPU generating, mbufs for 64-byte frames: how the lanes
      # scale where the generator is not the limit, launch mode and the
      # generator's own ceiling (null) beside.
      for w in $workers; do
        FWD_GEN=7 run lanes gpu port_filter "$w" 4096 --gpu-mode persistent --gpu-data mapped --zero-copy --gen-replay --max-frame 128
      done
      for w in 1 8; do
        FWD_GEN=7 run lanes gpu port_filter "$w" 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay --max-frame 128
        FWD_GEN=7 run lanes null port_filter "$w" 4096 --zero-copy --gen-replay --max-frame 128
      done
      FWD_GEN=4 run lanes gpu lb 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gen-replay ;;
    daemon) # the daemon's data plane: lanes per worker against one batch at a time
      : >"$OUT/daemon-scaling.jsonl"
      for w in 1 4 8; do
        daemon_run daemon gpu port_filter "$w" 4096 --gpu-mode launch --gpu-path mapped
        # A launch size keeps its batches on the executor's one runner
        # (run(), one batch of the program at a time): the daemon before lanes.
        daemon_run daemon gpu port_filter "$w" 4096 --gpu-mode launch --gpu-path mapped --launch-size 4096
        daemon_run daemon host port_filter "$w" 4096
      done
      daemon_run daemon gpu conntrack 8 4096 --gpu-mode launch --gpu-path mapped ;;
    programs)
      for p in lb conntrack; do
        run programs gpu "$p" 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy
        # Beside it, packets read and written where they are (no staging).
        run programs gpu "$p" 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --gpu-stage off
        run programs host "$p" 8 4096 --zero-copy
        # Mbufs sized for 64-byte frames (+ headroom) for both back ends.
        run programs gpu "$p" 8 4096 --gpu-mode launch --gpu-data mapped --zero-copy --max-frame 128
        run programs host "$p" 8 4096 --zero-copy --max-frame 128
        # Fewer workers, every other CPU generating (several lcores a ring):
        # the back ends side by side where the generator is not the limit.
        for w in 2 4; do
          FWD_GEN=$((14 - w)) run programs gpu "$p" "$w" 4096 --gpu-mode launch --gpu-data mapped --zero-copy
          FWD_GEN=$((14 - w)) run programs host "$p" "$w" 4096 --zero-copy
        done
      done ;;
    latency)
      run latency gpu port_filter 1 256 --gpu-mode launch --gpu-data mapped --zero-copy --timeout-us 20
      run latency gpu port_filter 1 256 --gpu-mode persistent --gpu-data mapped --zero-copy --timeout-us 20
      run latency gpu port_filter 1 32 --gpu-mode persistent --gpu-data mapped --zero-copy --timeout-us 5
      # One batch in flight: no batch waits behind another.
      run latency gpu port_filter 1 256 --gpu-mode launch --gpu-data mapped --zero-copy --timeout-us 20 --depth 1
      run latency gpu port_filter 1 32 --gpu-mode persistent --gpu-data mapped --zero-copy --timeout-us 5 --depth 1
      run latency gpu port_filter 1 32 --gpu-mode launch --gpu-data mapped --zero-copy --timeout-us 5 --depth 1
      # The latency mode: a persistent kernel of one block (no other block to
      # wake and count back in), small batches.
      run latency gpu port_filter 1 32 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5
      run latency gpu port_filter 1 64 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5
      run latency gpu port_filter 2 32 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5
      run latency gpu port_filter 1 16 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5
      run latency gpu port_filter 1 256 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 20
      run latency gpu port_filter 1 256 --gpu-mode launch --gpu-data mapped --zero-copy --timeout-us 20 --depth 2
      # Staged: one PCIe round trip for the packet instead of one per
      # dependent load of the program's parse.
      run latency gpu port_filter 1 256 --gpu-mode launch --gpu-data mapped --zero-copy --timeout-us 20 --gpu-stage on
      run latency gpu port_filter 1 256 --gpu-mode launch --gpu-data mapped --zero-copy --timeout-us 20 --depth 2 --gpu-stage on
      run latency gpu lb 1 32 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5
      # Persistent lanes reading packets in place (no first bytes copied by
      # the worker before the post: 256 x ~25 ns of the round trip).
      for d in 1 2 4; do
        run latency gpu port_filter 1 256 --gpu-mode persistent --gpu-data mapped --zero-copy --timeout-us 20 --gpu-stage off --depth "$d"
      done
      run latency gpu port_filter 1 256 --gpu-mode persistent --gpu-data mapped --zero-copy --timeout-us 20 --depth 2
      run latency gpu port_filter 1 32 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5 --gpu-stage off
      for s in on off; do
        run latency gpu port_filter 1 32 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5 --depth 1 --gpu-stage "$s"
        run latency gpu port_filter 1 64 --gpu-mode persistent --gpu-blocks 1 --gpu-data mapped --zero-copy --timeout-us 5 --depth 1 --gpu-stage "$s"
      done ;;
    esac
  done
  python3 scripts/forward-report.py "$OUT/forward-scaling.jsonl" >"$OUT/forward-scaling.md"
}

case "${1:-}" in
prepare) prepare ;;
device) device ;;
*)
  echo "usage: $0 prepare|device" >&2
  exit 2
  ;;
esac

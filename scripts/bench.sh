#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Benchmarks of compiled XDP programs against their hand-written CUDA twins
# (issue 7), in two halves:
#   scripts/bench.sh prepare   (here) build the LLVM-free harness and the
#       traffic generator, compile the five samples to .gpu.o for sm_90 and
#       their twins (bench/cuda/*.cu) to PTX with nvcc, record ptxas's
#       register/spill/stack report of both, check each twin's logic on the
#       host (compiled as C++, one packet after another) against the host
#       back end's verdicts and output bytes, stage it all in .bench-carry/
#   scripts/bench.sh device    (on the GPU machine, .bench-carry carried)
#       generate the packets, run the suite (every verdict checked before a
#       time is kept, then kernel timings on packets resident in GPU memory
#       and end-to-end batches), write $OUT/bench.json, $OUT/PERFORMANCE.md
#       (docs/PERFORMANCE.md, regenerated) and plots when matplotlib is there.
#   scripts/bench.sh spread    (on the GPU machine) the converging pairs'
#       run-to-run spread, relaid and raced settled state (bench/NOTES.md,
#       round 15): $OUT/spread.txt.
# The CPU side: `prepare` also builds ebpf-gpu-host-bench with LLVM linked
# in (the host back end is the ORC JIT; nothing of LLVM is on the GPU
# machine), carried gzipped, and times the Linux kernel's JIT
# (BPF_PROG_TEST_RUN) against the host back end HERE, where BPF test runs
# are allowed (kernel-jit.json: this machine's numbers, labelled so);
# `device` runs the host back end on the same packets as the GPU suite on
# one core and on every core of the GPU machine (host.json).
# Knobs for the device half: BENCH_PACKETS (default 4000000), BENCH_REPS
# (200), BENCH_E2E (32,256,4096,65536), BENCH_E2E_REPS (500), BENCH_HOST_REPS
# (10), BENCH_HOST_SECONDS (2: per program, thread count and prefetch
# distance, no repetition starts past it once 3 are timed). For prepare: BENCH_KERNEL_JIT=0 skips
# the kernel-JIT run. BENCH_HOST=0, given to prepare and device alike, leaves the host back end
# out (no static-LLVM build of ebpf-gpu-host-bench, 19 MB less carry, no GPU-vs-CPU table): for
# calls that time or profile the GPU pairs only.
# Payload matching (issue 18): samples/xdp_ids.c against its twin
# bench/cuda/ids.cu with 100, 1,000 and 10,000 Emerging Threats patterns
# (bench/rules), on 1500-byte HTTP frames of their own (ebpf-gpu-trafgen
# --payload http, BENCH_IDS_MATCH of them (default 0.01) carrying a rule),
# and the host back end on the same packets: BENCH_IDS_PACKETS (default
# 1000000), BENCH_IDS_REPS (50), BENCH_IDS_HOST_PACKETS (the host back end
# on the first 100000 of them: a core scans 10,000 rules at ~0.03 Mpps on
# the build machine), BENCH_IDS_HOST_SECONDS (10). `device`
# runs it only with BENCH_IDS=1 (the rest alone takes ~405 s of a 600-s
# call); `scripts/bench.sh device-ids` runs it by itself (its own call) and
# writes $OUT/PERFORMANCE-ids.md: the matching table and the pairs' kernel
# rows.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/dpdk-carry.sh
CARRY=.bench-carry
# name  object:section  twin source  twin kernel
PAIRS=(
  "port_filter xdp_port_filter.o:xdp_port_filter port_filter cuda_port_filter"
  "lb xdp_lb.o:xdp_lb lb cuda_lb"
  "router xdp_router.o:xdp_router router cuda_router"
  "conntrack xdp_conntrack.o: conntrack cuda_conntrack"
  "ddos_cms xdp_ddos_cms.o: ddos_cms cuda_ddos_cms"
  "rate_limit xdp_rate_limit.o: rate_limit cuda_rate_limit"
  "l4lb xdp_l4lb.o: l4lb cuda_l4lb"
  "tcp_mss xdp_tcp_mss.o: tcp_mss cuda_tcp_mss"
)
# How each program's verdicts are checked (ebpf-gpu-bench and -host-bench).
# l4lb converges: its connection table fills in the first pass (the
# verdicts do not depend on it, the work does: later passes hit).
declare -A CHECK=([conntrack]=converge [ddos_cms]=cms:400 [rate_limit]=converge:6 [l4lb]=converge)
# The matching pairs: one object and twin, a rule set each (the pattern
# map sized for the largest: 10,000 rules compile to 151.5 MB).
IDS_RULES=(100 1000 10000)
IDS_MAP_SIZE=rules=268435456
# The suite's traffic (every pair, the twin check, the profiles): SYNs
# carry TCP options (since issue 16, for tcp_mss; the rest of every packet
# is the traffic of the same seed without them).
TRAFGEN_SUITE=(--seed 9 --tcp-options)

# The suite of ebpf-gpu-host-bench: the same programs, sections and map
# files, as eBPF objects in folder $1 (map files in $2).
host_suite() {
  local entry name obj section twin kernel
  echo "# name  eBPF object, section, map file, how verdicts are checked"
  for entry in "${PAIRS[@]}"; do
    read -r name obj twin kernel <<<"$entry"
    section=${obj#*:} obj=${obj%%:*}
    echo "$name object=$1/$obj${section:+ section=$section}$([[ -f samples/${obj%.o}.maps ]] &&
      echo " maps=$2/${obj%.o}.maps") check=${CHECK[$name]:-exact}"
  done
}

# The kernel's JIT against the host back end, on this machine (root and a
# kernel that test-runs XDP): BPF_PROG_TEST_RUN with repeat on 256 of the
# twin check's 100,000 packets, the host back end the same way on the same
# packets and CPU, and the host back end streaming them on one thread
# (wall time ~1 minute, mostly the kernel's RCU waits around each test run).
kernel_jit() {
  local cmd=(build/bench/ebpf-gpu-host-bench --suite build/bench-host-suite.txt
    --pcap build/bench-twin-traffic.pcap --threads 1 --reps 5 --warmup 1 --kernel
    --json "$CARRY/kernel-jit.json")
  # First a program that only returns XDP_PASS: what the test-run loop
  # (and the host's call and context) cost by themselves.
  { echo "pass_all object=build/samples/xdp_pass_drop.o section=xdp_pass_all"
    host_suite build/samples samples; } >build/bench-host-suite.txt
  if [[ ${BENCH_KERNEL_JIT:-1} == 0 ]]; then
    echo "kernel JIT: skipped (BENCH_KERNEL_JIT=0)"
  elif "${cmd[@]}" >"$CARRY/kernel-jit.txt" 2>&1; then
    cat "$CARRY/kernel-jit.txt"
    lscpu >"$CARRY/kernel-jit-lscpu.txt"
    echo "build/tools/ebpf-gpu-trafgen -o build/bench-twin-traffic.pcap --count 100000 ${TRAFGEN_SUITE[*]};" \
      "${cmd[*]}" >"$CARRY/kernel-jit.cmd"
  else
    echo "kernel JIT: not measured (needs root and BPF_PROG_TEST_RUN):" >&2
    cat "$CARRY/kernel-jit.txt" >&2
    rm -f "$CARRY/kernel-jit.json"
  fi
}

# Every frame of pcap $1 as a hex line (what twin-host-run writes).
pcap_hex() {
  python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
at = 24
while at < len(d):
    n = struct.unpack_from("<I", d, at + 8)[0]
    print(d[at + 16:at + 16 + n].hex())
    at += 16 + n
PY
}

# The rule sets of the matching pairs in folder $1: all of
# bench/rules/et-open-10000.rules and every 10th and 100th of its patterns
# (each subset inside the larger ones), and a map file naming each.
ids_rules() {
  local n
  for n in "${IDS_RULES[@]}"; do
    grep -v '^#' bench/rules/et-open-10000.rules | awk -v k=$((10000 / n)) '(NR - 1) % k == 0' >"$1/et-$n.rules"
    [[ $(wc -l <"$1/et-$n.rules") == "$n" ]] || { echo "bench: et-$n.rules: not $n rules" >&2; return 1; }
    echo "rules:@et-$n.rules" >"$1/ids-$n.maps"
  done
}

# The IDS twin's logic on the host against the host back end running
# xdp_ids (as check_twins): HTTP frames with 30% carrying one of the 1,000
# rules, the same with 10,000 rules, and the suite's mixed traffic (short,
# truncated, non-IPv4 frames) with 100 rules.
check_ids_twin() {
  local tmp=build/bench-twin n traffic run
  mkdir -p "$tmp"
  ids_rules "$tmp"
  g++ -std=c++20 -O1 -Icore/include -Iabi/include -Ibench/host -DTWIN_SOURCE="\"../cuda/ids.cu\"" \
    -DTWIN_KERNEL=cuda_ids -DTWIN_IDS bench/host/twin-host-run.cpp build/abi/libebpfgpu_abi.a -o "$tmp/ids"
  build/tools/ebpf-gpu-trafgen -o "$tmp/ids-http-1000.pcap" --count 20000 --payload http \
    --rules "$tmp/et-1000.rules" --match-rate 0.3 --seed 9 >/dev/null
  build/tools/ebpf-gpu-trafgen -o "$tmp/ids-http-10000.pcap" --count 5000 --payload http \
    --rules "$tmp/et-10000.rules" --match-rate 0.3 --seed 9 >/dev/null
  for run in http-1000:1000 http-10000:10000 mixed:100; do
    traffic=$tmp/ids-${run%%:*}.pcap n=${run#*:}
    [[ ${run%%:*} == mixed ]] && traffic=build/bench-twin-traffic.pcap
    "$tmp/ids" "$traffic" "$tmp/ids.twin.txt" "$tmp/ids.twin.hex" "$tmp/ids-$n.maps"
    build/tools/ebpf-gpu-loader run build/samples/xdp_ids.o --backend host --pcap "$traffic" \
      --map-file "$tmp/ids-$n.maps" --map-size "$IDS_MAP_SIZE" --verdicts "$tmp/ids.host.txt" \
      --out "$tmp/ids.host.pcap" >/dev/null
    pcap_hex "$tmp/ids.host.pcap" >"$tmp/ids.host.hex"
    if cmp -s "$tmp/ids.twin.txt" "$tmp/ids.host.txt" && cmp -s "$tmp/ids.twin.hex" "$tmp/ids.host.hex"; then
      echo "ids ($n rules, ${run%%:*} traffic): twin and host back end agree on $(wc -l <"$tmp/ids.host.txt") packets:" \
        "$(cut -d' ' -f2 "$tmp/ids.host.txt" | sort | uniq -c | awk '{printf " %s %d", $2, $1}')"
    else
      echo "ids ($n rules, ${run%%:*} traffic): the twin DIFFERS from the host back end (see $tmp/ids.*)" >&2
      return 1
    fi
  done
}

# The twins' logic, serially on the host, against the host back end running
# the sample itself: same verdicts, lengths and output bytes on every packet
# (serial order, so the stateful programs compare exactly too).
check_twins() {
  local traffic=build/bench-twin-traffic.pcap tmp=build/bench-twin
  mkdir -p "$tmp"
  build/tools/ebpf-gpu-trafgen -o "$traffic" --count 100000 "${TRAFGEN_SUITE[@]}"
  local entry name obj section twin kernel sect maps
  for entry in "${PAIRS[@]}"; do
    read -r name obj twin kernel <<<"$entry"
    section=${obj#*:} obj=${obj%%:*} sect=() maps=()
    [[ -n $section ]] && sect=(--section "$section")
    [[ -f samples/${obj%.o}.maps ]] && maps=(--map-file "samples/${obj%.o}.maps")
    g++ -std=c++20 -O1 -Icore/include -Ibench/host -DTWIN_SOURCE="\"../cuda/$twin.cu\"" \
      -DTWIN_KERNEL="$kernel" -DTWIN_"${twin^^}" bench/host/twin-host-run.cpp -o "$tmp/$twin"
    "$tmp/$twin" "$traffic" "$tmp/$name.twin.txt" "$tmp/$name.twin.hex" \
      ${maps[@]+"${maps[1]}"}
    build/tools/ebpf-gpu-loader run "build/samples/$obj" "${sect[@]}" --backend host \
      --pcap "$traffic" "${maps[@]}" --verdicts "$tmp/$name.host.txt" --out "$tmp/$name.host.pcap" >/dev/null
    pcap_hex "$tmp/$name.host.pcap" >"$tmp/$name.host.hex"
    if cmp -s "$tmp/$name.twin.txt" "$tmp/$name.host.txt" && cmp -s "$tmp/$name.twin.hex" "$tmp/$name.host.hex"; then
      echo "$name: twin and host back end agree on 100000 packets (verdicts, lengths, output bytes):" \
        "$(cut -d' ' -f2 "$tmp/$name.host.txt" | sort | uniq -c | awk '{printf " %s %d", $2, $1}')"
    else
      echo "$name: the twin DIFFERS from the host back end (see $tmp/$name.*)" >&2
      return 1
    fi
  done
}

prepare() {
  bash scripts/build.sh
  cmake -S . -B build-gpu -G Ninja -DEBPF_GPU_WITH_COMPILER=OFF -DEBPF_GPU_WITH_DPDK=OFF \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
  ninja -C build-gpu ebpf-gpu-trafgen ebpf-gpu-bench ebpf-gpu-runner-bench
  # The host back end's harness carries the LLVM components it uses, linked
  # statically (as gpu-check.sh's conformance plugin), stripped, gzipped.
  if [[ ${BENCH_HOST:-1} == 1 ]]; then
    cmake -S . -B build-static -G Ninja -DCMAKE_BUILD_TYPE=Release -DEBPF_GPU_STATIC_LLVM=ON \
      -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
    ninja -C build-static ebpf-gpu-host-bench
  fi
  rm -rf "$CARRY"
  mkdir -p "$CARRY"/{bin,programs,ptxas}
  cp build-gpu/tools/ebpf-gpu-trafgen build-gpu/bench/ebpf-gpu-bench \
    build-gpu/bench/ebpf-gpu-runner-bench "$CARRY/bin/"
  if [[ ${BENCH_HOST:-1} == 1 ]]; then
    strip -o "$CARRY/bin/ebpf-gpu-host-bench" build-static/bench/ebpf-gpu-host-bench
    gzip -9 "$CARRY/bin/ebpf-gpu-host-bench"
  fi
  # The runtime's end-to-end runs need the DPDK loader.
  dpdk_carry "$CARRY/dpdk.tar.xz"
  local nvcc=/usr/local/cuda/bin/nvcc ptxas=/usr/local/cuda/bin/ptxas p=$CARRY/programs
  check_twins
  check_ids_twin
  local entry name obj section twin kernel sect
  for entry in "${PAIRS[@]}"; do
    read -r name obj twin kernel <<<"$entry"
    section=${obj#*:} obj=${obj%%:*} sect=()
    [[ -n $section ]] && sect=(--section "$section")
    build/tools/ebpf-gpu-cc "build/samples/$obj" "${sect[@]}" --target=sm_90 -o "$p/$name.gpu.o"
    build/tools/ebpf-gpu-cc "build/samples/$obj" "${sect[@]}" --target=sm_90 --emit=ptx \
      -o "build/bench-$name.compiled.ptx"
    "$nvcc" -ptx -arch=sm_90 -O3 -Icore/include "bench/cuda/$twin.cu" -o "$p/$twin.cuda.ptx"
    # Both PTX must assemble for sm_90 here; the report quotes their resources.
    for which in compiled cuda; do
      local ptx=build/bench-$name.compiled.ptx
      [[ $which == cuda ]] && ptx=$p/$twin.cuda.ptx
      "$ptxas" -arch=sm_90 -O3 -v "$ptx" -o /dev/null >"$CARRY/ptxas/$name.$which.txt" 2>&1
    done
    # What the compiled kernel calls rather than inlines, and its local memory.
    local funcs depots
    funcs=$(grep -E '^\.func' "build/bench-$name.compiled.ptx" | grep -oE 'ebpfgpu_[a-z_]+' | sort -u | tr '\n' ' ' || true)
    depots=$(grep -oE '__local_depot[0-9]+\[[0-9]+\]' "build/bench-$name.compiled.ptx" | tr '\n' ' ' || true)
    echo "called functions: ${funcs:-none}; calls: $(grep -c 'call.uni' "build/bench-$name.compiled.ptx" || true); local depots: ${depots:-none}" \
      >"$CARRY/ptxas/$name.compiled.funcs.txt"
  done
  # Compile times of ebpf-gpu-cc (this machine): each program 5 times to a
  # .gpu.o, median and fastest, ms.
  : >"$CARRY/compile-times.txt"
  for entry in "${PAIRS[@]}"; do
    read -r name obj twin kernel <<<"$entry"
    section=${obj#*:} obj=${obj%%:*} sect=()
    [[ -n $section ]] && sect=(--section "$section")
    local times=() k t0
    for k in 1 2 3 4 5; do
      t0=$(date +%s%N)
      build/tools/ebpf-gpu-cc "build/samples/$obj" "${sect[@]}" --target=sm_90 -o "build/bench-$name.timed.gpu.o"
      times+=($((($(date +%s%N) - t0) / 1000)))
    done
    rm -f "build/bench-$name.timed.gpu.o"
    printf '%s\n' "${times[@]}" | sort -n | awk -v n="$name" '{v[NR]=$1} END {printf "%s %.1f %.1f\n", n, v[3]/1000, v[1]/1000}' \
      >>"$CARRY/compile-times.txt"
  done
  (nproc; grep -m1 "model name" /proc/cpuinfo | cut -d: -f2) | tr '\n' ' ' >"$CARRY/compile-machine.txt"
  # The matching pairs: one object (its pattern map sized for 10,000
  # rules), one twin, a rule set and map file per pair.
  build/tools/ebpf-gpu-cc build/samples/xdp_ids.o --target=sm_90 --map-size="$IDS_MAP_SIZE" -o "$p/ids.gpu.o"
  build/tools/ebpf-gpu-cc build/samples/xdp_ids.o --target=sm_90 --map-size="$IDS_MAP_SIZE" \
    --system-atomics -o "$p/ids.sys.gpu.o"
  build/tools/ebpf-gpu-cc build/samples/xdp_ids.o --target=sm_90 --map-size="$IDS_MAP_SIZE" --emit=ptx \
    -o build/bench-ids.compiled.ptx
  "$nvcc" -ptx -arch=sm_90 -O3 -Icore/include bench/cuda/ids.cu -o "$p/ids.cuda.ptx"
  ids_rules "$p"
  cp build/samples/xdp_ids.o "$p/"
  local n
  for n in "${IDS_RULES[@]}"; do
    "$ptxas" -arch=sm_90 -O3 -v build/bench-ids.compiled.ptx -o /dev/null >"$CARRY/ptxas/ids_$n.compiled.txt" 2>&1
    "$ptxas" -arch=sm_90 -O3 -v "$p/ids.cuda.ptx" -o /dev/null >"$CARRY/ptxas/ids_$n.cuda.txt" 2>&1
  done
  { echo "# name  compiled program, twin, rules, how verdicts are checked (1500-byte HTTP frames)"
    for n in "${IDS_RULES[@]}"; do
      echo "ids_$n compiled=$p/ids.gpu.o ptx=$p/ids.cuda.ptx kernel=cuda_ids maps=$p/ids-$n.maps twin-map=rules:ids_dfa"
    done; } >"$CARRY/suite-ids.txt"
  { echo "# name  eBPF object, map file, map size, how verdicts are checked"
    for n in "${IDS_RULES[@]}"; do
      echo "ids_$n object=$p/xdp_ids.o maps=$p/ids-$n.maps map-size=$IDS_MAP_SIZE check=exact"
    done; } >"$CARRY/host-suite-ids.txt"
  cp samples/xdp_lb.maps samples/xdp_router.maps samples/xdp_l4lb.maps samples/xdp_tcp_mss.maps "$p/"
  for entry in "${PAIRS[@]}"; do
    read -r name obj twin kernel <<<"$entry"
    cp "build/samples/${obj%%:*}" "$p/"
  done
  # Register-budget variants (ebpf-gpu-cc --max-registers), timed by
  # `device` against the same twins in a suite of their own (not in the
  # report): BENCH_VARIANTS="NAME:REGISTERS ..." (default below; none: skip).
  : >"$CARRY/suite-variants.txt"
  local variant vname regs line
  for variant in ${BENCH_VARIANTS-conntrack:40 conntrack:32 rate_limit:40 rate_limit:32}; do
    [[ $variant == none ]] && break
    vname=${variant%%:*} regs=${variant#*:}
    for entry in "${PAIRS[@]}"; do
      read -r name obj twin kernel <<<"$entry"
      [[ $name == "$vname" ]] || continue
      section=${obj#*:} obj=${obj%%:*} sect=()
      [[ -n $section ]] && sect=(--section "$section")
      build/tools/ebpf-gpu-cc "build/samples/$obj" "${sect[@]}" --target=sm_90 \
        --max-registers="$regs" -o "$p/$name.r$regs.gpu.o"
    done
  done
  host_suite "$p" "$p" >"$CARRY/host-suite.txt"
  kernel_jit
  cat >"$CARRY/suite.txt" <<SUITE
# name  compiled program, twin, tables for both, how verdicts are checked
port_filter compiled=$p/port_filter.gpu.o ptx=$p/port_filter.cuda.ptx kernel=cuda_port_filter
lb compiled=$p/lb.gpu.o ptx=$p/lb.cuda.ptx kernel=cuda_lb maps=$p/xdp_lb.maps twin-array=backend_macs:lb_macs twin-array=tx_ports:lb_ports
router compiled=$p/router.gpu.o ptx=$p/router.cuda.ptx kernel=cuda_router maps=$p/xdp_router.maps twin-sorted=routes:router_routes:router_route_count
conntrack compiled=$p/conntrack.gpu.o ptx=$p/conntrack.cuda.ptx kernel=cuda_conntrack twin-zero=ct_refused twin-state=ct_slots check=converge
ddos_cms compiled=$p/ddos_cms.gpu.o ptx=$p/ddos_cms.cuda.ptx kernel=cuda_ddos_cms check=cms:400
rate_limit compiled=$p/rate_limit.gpu.o ptx=$p/rate_limit.cuda.ptx kernel=cuda_rate_limit twin-zero=rl_refused twin-state=rl_slots check=converge:6
l4lb compiled=$p/l4lb.gpu.o ptx=$p/l4lb.cuda.ptx kernel=cuda_l4lb maps=$p/xdp_l4lb.maps twin-sorted=vips:l4lb_vips:l4lb_vip_count twin-array=ring:l4lb_ring twin-array=reals:l4lb_reals twin-array=lb_config:l4lb_config twin-zero=l4lb_refused twin-state=l4lb_slots check=converge
tcp_mss compiled=$p/tcp_mss.gpu.o ptx=$p/tcp_mss.cuda.ptx kernel=cuda_tcp_mss maps=$p/xdp_tcp_mss.maps twin-array=mss_clamp:tcp_mss_clamp
SUITE
  # The converging pairs twice each, NAME_a and NAME_b with the same objects
  # (`spread`): how far one object's time moves within a run and between runs.
  awk '/check=converge/ { n = $1; $1 = ""; print n "_a" $0; print n "_b" $0 }' \
    "$CARRY/suite.txt" >"$CARRY/suite-spread.txt"
  # The variants' suite: each as its pair's line with the variant's object.
  for variant in ${BENCH_VARIANTS-conntrack:40 conntrack:32 rate_limit:40 rate_limit:32}; do
    [[ $variant == none ]] && break
    vname=${variant%%:*} regs=${variant#*:}
    line=$(grep "^$vname " "$CARRY/suite.txt") || continue
    line=${line/compiled=$p\/$vname.gpu.o/compiled=$p/$vname.r$regs.gpu.o}
    echo "${vname}_r$regs ${line#* }" >>"$CARRY/suite-variants.txt"
  done
  cp scripts/bench-report.py scripts/bench_report_e2e.py "$CARRY/"
  git rev-parse --short HEAD >"$CARRY/commit" 2>/dev/null || echo unknown >"$CARRY/commit"
  du -sh "$CARRY"
}

# forward over a GPU list (issue 22): the port filter and the load balancer
# through the generator port, the same workers on 1 GPU and on 2 (4 where
# the machine has them), or, on a machine of one GPU, on two contexts of it
# (--gpus 0,0: the cost of a second context, not a second GPU's gain).
# $1: the output folder, $2: the traffic. JSON lines in forward-gpus.jsonl,
# with the machine's GPU count and the frame size, for the report's table.
# The port filter and the LB run 64-byte frames of $2, where the GPU is not
# the limit; the IDS with 10,000 rules (xdp_ids) 1500-byte HTTP frames,
# where it can be (heavy work a packet).
forward_gpus() {
  local out=$1 pcap=$2 have lists prog gpus extra traffic frame obj ids=/tmp/bench-gpus-ids.pcap
  have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
  lists="1 0,0"
  ((have >= 2)) && lists="1 2"
  ((have >= 4)) && lists="1 2 4"
  echo "== $(date +%T) forward over GPUs ($have on this machine): ${lists// / and }"
  "$CARRY/bin/ebpf-gpu-trafgen" -o "$ids" --count 100000 --seed 9 --payload http --frame-size 1500 \
    --rules "$CARRY/programs/et-10000.rules" --match-rate "${BENCH_IDS_MATCH:-0.01}" >/dev/null
  : >"$out/forward-gpus.jsonl"
  for prog in port_filter lb ids; do
    extra=() traffic=$pcap frame=64
    [[ $prog == lb ]] && extra=(--map-file "$CARRY/programs/xdp_lb.maps")
    obj=$CARRY/programs/$prog.gpu.o
    # xdp_ids adds to an array every GPU shares: its build with system-scope
    # atomics (docs/MAPS.md, "Several GPUs"), on one GPU too.
    [[ $prog == ids ]] && extra=(--map-file "$CARRY/programs/ids-10000.maps") traffic=$ids frame=1500 \
      obj=$CARRY/programs/ids.sys.gpu.o
    for gpus in $lists; do
      if LD_LIBRARY_PATH=/tmp/dpdk/lib timeout -k 5 60 /tmp/dpdk/ebpf-gpu-loader forward \
          "$obj" "${extra[@]}" --port gen --gen-pcap "$traffic" --gen-frame "$frame" \
          --gen-lcores 2 --queues "${BENCH_GPUS_WORKERS:-4}" --batch 4096 --timeout-us 1000 \
          --count "$((frame == 64 ? ${BENCH_GPUS_PACKETS:-16000000} : ${BENCH_GPUS_PACKETS_1500:-4000000}))" \
          --gpu-mode launch --gpu-data mapped --zero-copy \
          --gpus "$gpus" --json >/tmp/fwd.json 2>"$out/forward-gpus.err"; then
        python3 - /tmp/fwd.json "$prog" "$gpus" "$have" "$frame" >>"$out/forward-gpus.jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["program_file"], r["gpu_list"], r["machine_gpus"] = sys.argv[2], sys.argv[3], int(sys.argv[4])
r["frame"] = int(sys.argv[5])
print("forward --gpus %-4s %-12s %4d B: %8.2f Mpps, %d workers" % (
    r["gpu_list"], r["program_file"], r["frame"], r["packets"] / r["busy_seconds"] / 1e6, r["workers"]),
    file=sys.stderr)
print(json.dumps(r))
PY
      else
        echo "forward --gpus $gpus $prog: FAILED" >&2
        cat "$out/forward-gpus.err" >&2
      fi
    done
  done
  rm -f "$ids"
}

# forward_gpus alone (its own call): $OUT/forward-gpus.jsonl, a line a run
# on stderr; the report's table comes from a full `device` run.
device_gpus() {
  local out=${OUT:-/tmp/bench-out} pcap=/tmp/bench-runtime.pcap
  mkdir -p "$out" /tmp/dpdk
  [[ -x /tmp/dpdk/ebpf-gpu-loader ]] || tar -xJf "$CARRY/dpdk.tar.xz" -C /tmp/dpdk
  "$CARRY/bin/ebpf-gpu-trafgen" -o "$pcap" --count 200000 --seed 9
  forward_gpus "$out" "$pcap"
  rm -f "$pcap"
}

device() {
  local out=${OUT:-/tmp/bench-out} bin=$CARRY/bin
  mkdir -p "$out"
  if [[ ! -x $bin/ebpf-gpu-bench || ! -f $CARRY/suite.txt ]]; then
    echo "bench: $CARRY is missing or incomplete: run 'scripts/bench.sh prepare' first and carry $CARRY" >&2
    return 1
  fi
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader \
    >"$out/gpu.txt" 2>/dev/null || echo "unknown (nvidia-smi failed)" >"$out/gpu.txt"
  echo "GPU: $(cat "$out/gpu.txt")"
  # Fail in seconds, not after the traffic, when there is no usable GPU.
  "$bin/ebpf-gpu-bench" --probe
  local packets=${BENCH_PACKETS:-4000000} pcap=/tmp/bench-traffic.pcap
  echo "== $(date +%T) traffic: $packets packets (ebpf-gpu-trafgen ${TRAFGEN_SUITE[*]})"
  "$bin/ebpf-gpu-trafgen" -o "$pcap" --count "$packets" "${TRAFGEN_SUITE[@]}"
  echo "== $(date +%T) suite"
  "$bin/ebpf-gpu-bench" --suite "$CARRY/suite.txt" --pcap "$pcap" \
    --reps "${BENCH_REPS:-200}" --warmup 20 \
    --e2e "${BENCH_E2E:-32,256,4096,65536}" --e2e-reps "${BENCH_E2E_REPS:-500}" \
    --json "$out/bench.json" | tee "$out/bench.txt"
  # The suite's kernels once more, every object loaded afresh (the goal's
  # "the same object within 0.03 between two runs": the report's Stability
  # section). BENCH_STABILITY=0 skips it.
  if [[ ${BENCH_STABILITY:-1} == 1 ]]; then
    echo "== $(date +%T) suite, second run (stability)"
    "$bin/ebpf-gpu-bench" --suite "$CARRY/suite.txt" --pcap "$pcap" \
      --reps "${BENCH_REPS:-200}" --warmup 20 --json "$out/bench-2.json" | tee "$out/bench-2.txt"
  fi
  if [[ -s $CARRY/suite-variants.txt ]]; then
    echo "== $(date +%T) register-budget variants (not in the report)"
    "$bin/ebpf-gpu-bench" --suite "$CARRY/suite-variants.txt" --pcap "$pcap" \
      --reps "${BENCH_REPS:-200}" --warmup 20 | tee "$out/variants.txt" || true
  fi
  # Where the kernels' time goes: Nsight Compute on every pair (the report's
  # profile section; ~2.5 minutes). BENCH_PROFILE=none skips it.
  if [[ ${BENCH_PROFILE:-} != none ]]; then
    profile "$out/profile" || true
  fi
  # The host back end (LLVM ORC JIT) on the same packets, resident in host
  # memory: one core, then every core.
  if [[ ${BENCH_HOST:-1} != 1 ]]; then
    echo "== host back end: not run (BENCH_HOST=0): the report has no GPU-vs-CPU table"
  else
    echo "== $(date +%T) host back end: 1 core and all $(nproc) cores"
    gzip -dc "$CARRY/bin/ebpf-gpu-host-bench.gz" >/tmp/ebpf-gpu-host-bench
    chmod +x /tmp/ebpf-gpu-host-bench
    # A failure here costs the report its GPU-vs-CPU table, not the GPU runs.
    # Prefetch 0 is the runtime's own loop; 8: the next packets' first bytes
    # fetched ahead, as a CPU data plane would.
    if ! /tmp/ebpf-gpu-host-bench --suite "$CARRY/host-suite.txt" --pcap "$pcap" --threads 1,all \
      --prefetch 0,8 --reps "${BENCH_HOST_REPS:-10}" --warmup 2 \
      --max-seconds "${BENCH_HOST_SECONDS:-2}" \
      --json "$out/host.json" | tee "$out/host.txt"; then
      echo "host back end: FAILED (above); the report has no GPU-vs-CPU table" >&2
      rm -f "$out/host.json"
    fi
  fi
  if [[ ${BENCH_IDS:-0} == 1 ]]; then
    ids_device "$out"
  fi
  rm -f /tmp/ebpf-gpu-host-bench
  rm -f "$pcap"
  # The runtime runs take their packets from 200,000 of the same traffic.
  pcap=/tmp/bench-runtime.pcap
  "$bin/ebpf-gpu-trafgen" -o "$pcap" --count 200000 --seed 9
  echo "== $(date +%T) the GPU batch path by mode, data path, batch and frame size"
  "$bin/ebpf-gpu-runner-bench" --gpu-object "$CARRY/programs/port_filter.gpu.o" --pcap "$pcap" \
    --batches "${BENCH_RUNNER_BATCHES:-1,32,256,4096,65536}" --frames 64,512,1500 \
    --seconds "${BENCH_RUNNER_SECONDS:-0.25}" --json "$out/runner.json" | tee "$out/runner.txt"
  echo "== $(date +%T) end to end through forward: the generator port, 64-byte frames"
  mkdir -p /tmp/dpdk && tar -xJf "$CARRY/dpdk.tar.xz" -C /tmp/dpdk
  : >"$out/forward.jsonl"
  local batch how mode path zc count
  for batch in ${BENCH_FORWARD_BATCHES:-32 256 4096 65536}; do
    # About a second of traffic at the rates each batch size reaches.
    count=$((batch < 256 ? 500000 : (batch < 4096 ? 4000000 : 16000000)))
    for how in launch:copy launch:mapped launch:mapped:zero-copy persistent:copy \
               persistent:mapped persistent:mapped:zero-copy; do
      IFS=: read -r mode path zc <<<"$how"
      local extra=()
      [[ -n $zc ]] && extra=(--zero-copy)
      if LD_LIBRARY_PATH=/tmp/dpdk/lib timeout -k 5 60 /tmp/dpdk/ebpf-gpu-loader forward \
          "$CARRY/programs/port_filter.gpu.o" --port gen --gen-pcap "$pcap" --gen-frame 64 \
          --batch "$batch" --timeout-us 1000 --count "$count" --gpu-mode "$mode" \
          --gpu-data "$path" "${extra[@]}" --json >/tmp/fwd.json 2>"$out/forward.err"; then
        python3 - /tmp/fwd.json "$batch" "$how" >>"$out/forward.jsonl" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["batch"], r["how"] = int(sys.argv[2]), sys.argv[3]
l = r.get("batch_latency_us", {})
print("forward %-28s batch %6d: %8.2f Mpps, batch p50 %.1f us p99 %.1f us" % (
    r["how"], r["batch"], r["packets"] / r["busy_seconds"] / 1e6, l.get("p50", -1), l.get("p99", -1)),
    file=sys.stderr)
print(json.dumps(r))
PY
      else
        echo "forward $how batch $batch: FAILED" >&2
        cat "$out/forward.err" >&2
      fi
    done
  done
  forward_gpus "$out" "$pcap"
  rm -f "$pcap"
  echo "== $(date +%T) report"
  # The kernel JIT was measured by prepare, on the build machine.
  local kjit=()
  [[ -f $CARRY/kernel-jit.json ]] && kjit=(--kernel-jit "$CARRY/kernel-jit.json"
    --kernel-jit-lscpu "$CARRY/kernel-jit-lscpu.txt" --kernel-jit-command "$CARRY/kernel-jit.cmd")
  local ids=()
  [[ -f $out/bench-ids.json ]] && ids=(--ids-json "$out/bench-ids.json")
  [[ -f $out/host-ids.json ]] && ids+=(--ids-host "$out/host-ids.json")
  [[ -f $out/bench-2.json ]] && ids+=(--json2 "$out/bench-2.json")
  python3 "$CARRY/bench-report.py" --json "$out/bench.json" --gpu "$out/gpu.txt" \
    ${ids[@]+"${ids[@]}"} \
    --runner "$out/runner.json" --forward "$out/forward.jsonl" \
    --forward-gpus "$out/forward-gpus.jsonl" \
    --ptxas "$CARRY/ptxas" --commit "$(cat "$CARRY/commit")" --host "$out/host.json" \
    --profiles "$out/profile" --variants "$out/variants.txt" \
    --compile-times "$CARRY/compile-times.txt" --compile-machine "$CARRY/compile-machine.txt" \
    ${kjit[@]+"${kjit[@]}"} \
    --command "scripts/bench.sh prepare; scripts/bench.sh device" \
    --out "$out/PERFORMANCE.md" --plots "$out"
  # What comes back from the device machine is a few files: the plots and
  # the data in one archive each.
  (cd "$out" && tar -cf plots.tar --remove-files ./*.png 2>/dev/null || true)
  (cd "$out" && tar -cf data.tar --remove-files bench.json bench-2.json bench-2.txt gpu.txt host.json host.txt \
    bench-ids.json bench-ids.txt host-ids.json host-ids.txt \
    runner.json runner.txt \
    forward.jsonl forward.err forward-gpus.jsonl forward-gpus.err variants.txt profile \
    2>/dev/null || true)
  echo "wrote $out/PERFORMANCE.md (copy to docs/PERFORMANCE.md; plots.tar to docs/perf/)"
}

# The matching pairs on the GPU machine ($1: the output folder;
# /tmp/ebpf-gpu-host-bench unpacked by device): 1500-byte HTTP frames, a
# fraction BENCH_IDS_MATCH carrying one of the 10,000 rules, the rest none;
# the compiled program against its twin with each rule set (every verdict
# checked first), then the host back end on 1 and all cores.
ids_device() {
  local out=$1 pcap=/tmp/bench-ids.pcap p=$CARRY/programs
  echo "== $(date +%T) payload matching: ${BENCH_IDS_PACKETS:-1000000} 1500-byte HTTP frames"
  "$CARRY/bin/ebpf-gpu-trafgen" -o "$pcap" --count "${BENCH_IDS_PACKETS:-1000000}" --seed 9 \
    --payload http --frame-size 1500 --rules "$p/et-10000.rules" --match-rate "${BENCH_IDS_MATCH:-0.01}"
  "$CARRY/bin/ebpf-gpu-bench" --suite "$CARRY/suite-ids.txt" --pcap "$pcap" \
    --reps "${BENCH_IDS_REPS:-50}" --warmup 5 --json "$out/bench-ids.json" | tee "$out/bench-ids.txt" ||
    echo "payload matching on the GPU: FAILED (above)" >&2
  if [[ ${BENCH_HOST:-1} == 1 ]]; then
    /tmp/ebpf-gpu-host-bench --suite "$CARRY/host-suite-ids.txt" --pcap "$pcap" --threads 1,all \
      --packets "${BENCH_IDS_HOST_PACKETS:-100000}" --prefetch 0 --reps 5 --warmup 1 --max-seconds "${BENCH_IDS_HOST_SECONDS:-10}" \
      --json "$out/host-ids.json" | tee "$out/host-ids.txt" ||
      { echo "payload matching on the host back end: FAILED (above)" >&2; rm -f "$out/host-ids.json"; }
  else
    echo "payload matching on the host back end: not run (BENCH_HOST=0)"
  fi
  rm -f "$pcap"
}

# Nsight Compute profiles of chosen pairs (on the GPU machine, .bench-carry
# carried): each pair's first launches (the checks: compiled, then twin;
# a converging pair's settle passes) with the sections the report reads
# (speed of light, launch, occupancy, warp states, source counters with
# stall samples, memory workload), clocks left alone. For each pair, in $1 (default $OUT): profile-NAME.json, the
# summary scripts/bench-report.py reads (scripts/ncu-summary.py), and in
# profiles.tar.gz the details page and the per-instruction SASS page with
# warp stall samples. BENCH_PROFILE names the pairs (default: all),
# BENCH_PROFILE_PACKETS the packets (default 2000000). Returns 1 when the
# machine has no ncu.
profile() {
  local out=${1:-${OUT:-/tmp/bench-out}} bin=$CARRY/bin pcap=/tmp/bench-profile.pcap name
  local ncu raw=/tmp/bench-profiles names
  ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
  if [[ -z $ncu ]]; then
    echo "bench: no ncu (Nsight Compute) on this machine: no profiles" >&2
    return 1
  fi
  names=${BENCH_PROFILE:-$(awk '!/^#/ && NF {print $1}' "$CARRY/suite.txt")}
  mkdir -p "$out"
  rm -rf "$raw" && mkdir -p "$raw"
  "$bin/ebpf-gpu-trafgen" -o "$pcap" --count "${BENCH_PROFILE_PACKETS:-2000000}" "${TRAFGEN_SUITE[@]}"
  for name in $names; do
    local dir=$raw/$name launches=2
    mkdir -p "$dir"
    grep "^$name " "$CARRY/suite.txt" >"$dir/suite.txt"
    # Stateful pairs settle first (N or N + 1 passes each for converge:N on
    # the suite's traffic), then one timed launch each from the settled
    # state: profile all of it, the settled launches last.
    if [[ $(cat "$dir/suite.txt") =~ check=converge(:([0-9]+))? ]]; then
      launches=$((2 * (${BASH_REMATCH[2]:-2} + 2)))
    fi
    echo "== $(date +%T) profile $name ($launches launches)"
    if ! "$ncu" --clock-control none --import-source no --section SpeedOfLight \
      --section LaunchStats --section Occupancy --section WarpStateStats \
      --section SourceCounters --section MemoryWorkloadAnalysis \
      -k regex:'ebpfgpu_xdp_batch|cuda_' -c "$launches" -o "$dir/$name" \
      "$bin/ebpf-gpu-bench" --suite "$dir/suite.txt" --pcap "$pcap" --reps 1 --warmup 0 \
      >"$dir/run.txt" 2>&1; then
      tail -20 "$dir/run.txt" >&2
      echo "profile $name: FAILED" >&2
      continue
    fi
    "$ncu" -i "$dir/$name.ncu-rep" --page details >"$dir/details.txt"
    "$ncu" -i "$dir/$name.ncu-rep" --page source --csv --print-source sass >"$dir/sass.csv" 2>&1 || true
    rm -f "$dir/$name.ncu-rep"
    python3 scripts/ncu-summary.py "$dir" >"$out/profile-$name.json" || rm -f "$out/profile-$name.json"
  done
  tar -czf "$out/profiles.tar.gz" -C "$raw" .
  rm -rf "$raw" "$pcap"
}

# The matching pairs alone on the GPU machine (.bench-carry carried).
device_ids() {
  local out=${OUT:-/tmp/bench-out}
  mkdir -p "$out"
  if [[ ! -f $CARRY/suite-ids.txt ]]; then
    echo "bench: $CARRY is missing or incomplete: run 'scripts/bench.sh prepare' first and carry $CARRY" >&2
    return 1
  fi
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader \
    >"$out/gpu.txt" 2>/dev/null || echo "unknown (nvidia-smi failed)" >"$out/gpu.txt"
  "$CARRY/bin/ebpf-gpu-bench" --probe
  if [[ ${BENCH_HOST:-1} == 1 ]]; then
    gzip -dc "$CARRY/bin/ebpf-gpu-host-bench.gz" >/tmp/ebpf-gpu-host-bench
    chmod +x /tmp/ebpf-gpu-host-bench
  fi
  ids_device "$out"
  rm -f /tmp/ebpf-gpu-host-bench
  [[ -f $out/bench-ids.json ]] || return 1
  local host=()
  [[ -f $out/host-ids.json ]] && host=(--ids-host "$out/host-ids.json")
  python3 "$CARRY/bench-report.py" --json "$out/bench-ids.json" --gpu "$out/gpu.txt" \
    --ids-json "$out/bench-ids.json" ${host[@]+"${host[@]}"} --ptxas "$CARRY/ptxas" \
    --commit "$(cat "$CARRY/commit")" --command "scripts/bench.sh prepare; scripts/bench.sh device-ids" \
    --out "$out/PERFORMANCE-ids.md"
  echo "wrote $out/PERFORMANCE-ids.md"
}

# The settled state's spread (bench/NOTES.md, round 15): the converging
# pairs twice each in one suite, timed from their relaid settled state and
# from the raced one (--keep-placement), two runs of each; spread.txt gives
# each pair's compiled and twin medians in the four entries of a mode and
# how far apart they are, as a share of their median.
spread() {
  local out=${OUT:-/tmp/bench-out} bin=$CARRY/bin pcap=/tmp/bench-spread.pcap run mode extra
  mkdir -p "$out"
  [[ -s $CARRY/suite-spread.txt ]] || { echo "bench: no $CARRY/suite-spread.txt: run 'scripts/bench.sh prepare'" >&2; return 1; }
  "$bin/ebpf-gpu-trafgen" -o "$pcap" --count "${BENCH_PACKETS:-4000000}" "${TRAFGEN_SUITE[@]}" >/dev/null
  for run in 1 2; do
    for mode in relaid raced; do
      extra=()
      [[ $mode == raced ]] && extra=(--keep-placement)
      echo "== $(date +%T) $mode, run $run"
      "$bin/ebpf-gpu-bench" --suite "$CARRY/suite-spread.txt" --pcap "$pcap" \
        --reps "${BENCH_REPS:-20}" --warmup 6 ${extra[@]+"${extra[@]}"} \
        --json "$out/spread-$mode-$run.json" >"$out/spread-$mode-$run.txt"
    done
  done
  rm -f "$pcap"
  python3 - "$out" <<'PY' | tee "$out/spread.txt"
import json, sys
out = sys.argv[1]
print("mode    pair        compiled ms (a1 b1 a2 b2)            spread  twin ms (a1 b1 a2 b2)                spread")
for mode in ("relaid", "raced"):
    runs = [json.load(open("%s/spread-%s-%d.json" % (out, mode, r)))["pairs"] for r in (1, 2)]
    names = sorted({p["name"][:-2] for p in runs[0]})
    for n in names:
        entries = [next(p for p in runs[r] if p["name"] == n + "_" + w)
                   for r in (0, 1) for w in ("a", "b")]
        def row(key):
            v = [e[key]["median"] for e in entries]
            med = sorted(v)[len(v) // 2]
            return " ".join("%.4f" % x for x in v), (max(v) - min(v)) / med
        c, cs = row("compiled_ms")
        t, ts = row("cuda_ms")
        print("%-7s %-11s %s  %5.1f%%  %s  %5.1f%%" % (mode, n, c, 100 * cs, t, 100 * ts))
PY
}

case "${1:-}" in
prepare) prepare ;;
spread) spread ;;
device-ids) device_ids ;;
device-gpus) device_gpus ;;
profile) profile ;;
check-twins) check_twins && check_ids_twin ;;
device) device ;;
*)
  echo "usage: $0 prepare|device|device-ids|device-gpus|profile|check-twins|spread" >&2
  exit 2
  ;;
esac

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# GPU checks on the lent GPU machine, in two halves:
#   scripts/gpu-check.sh prepare   (here) build everything, compile the
#       conformance programs and the samples to .gpu.o, make traffic and the
#       host back end's expected results, and stage it all in .gpu-carry/
#   scripts/gpu-check.sh device    (on the GPU machine, with .gpu-carry
#       carried) run bpf_conformance on the GPU (through the conformance
#       plugin's --gpu mode, and through the loader from precompiled
#       objects) and the samples on the GPU,
#       compare every verdict and output byte with the host back end, then
#       benchmark the compiled port filter against its hand-written CUDA
#       twin (bench/cuda/port_filter.cu) on 1M packets in GPU memory.
#       The checks of tests/gpu-device run there too, through the lit and
#       FileCheck the carry brings (`device-suite` runs them alone); the
#       sections below are the checks not yet moved into that suite.
# The device half needs no LLVM, libbpf or libpcap: the loader it runs is
# built with EBPF_GPU_WITH_COMPILER=OFF and links only libc, and the plugin
# carries the LLVM components it uses, linked statically.
#   scripts/gpu-check.sh prepare-api / device-api   the C API (libebpf-gpu
#       built the same way, the tests/api programs on it) in a carry of its
#       own, .gpu-carry-api (tests/gpu-device/api; docs/API.md)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/dpdk-carry.sh
CARRY=.gpu-carry
PACKETS=100000
# The samples' traffic (prepare_samples makes it; later stages read it).
TRAFFIC=build/gpu-check-traffic.pcap

# The token buckets' refill times are the clock's: masked before comparing
# (samples/xdp_rate_limit.c refills too slowly for a run to see one).
mask_clock() {
  sed -E 's/^(rate_buckets\{[0-9a-f]+\} = [0-9a-f]{16})[0-9a-f]{16}$/\1T/'
}

# What the GPU machine runs without the compiler (no LLVM, libbpf, libpcap
# or DPDK), the C and C++ runtimes linked in (libebpf-gpu's too).
configure_gpu_build() {
  cmake -S . -B build-gpu -G Ninja -DEBPF_GPU_WITH_COMPILER=OFF -DEBPF_GPU_WITH_DPDK=OFF \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" \
    -DCMAKE_SHARED_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
}

# The tools the GPU machine runs (built without the compiler), the
# conformance plugin unless GPU_CHECK_SKIP_CONFORMANCE=1, in a new carry.
prepare_tools() {
  bash scripts/build.sh
  configure_gpu_build
  ninja -C build-gpu ebpf-gpu-loader ebpf-gpu-trafgen ebpf-gpu-bench ebpf-gpu-runner-bench
  # The conformance plugin compiles on the spot, so it carries LLVM with it:
  # linked statically (only the components it uses), stripped, compressed.
  # GPU_CHECK_SKIP_CONFORMANCE=1 leaves it out (a build of its own, and 19 MB
  # of the device tool's 64 MiB carry) for a device-suite call that skips
  # conformance/ too.
  local plugin=1
  [[ ${GPU_CHECK_SKIP_CONFORMANCE:-0} == 1 ]] && plugin=0
  if ((plugin)); then
    cmake -S . -B build-static -G Ninja -DCMAKE_BUILD_TYPE=Release -DEBPF_GPU_STATIC_LLVM=ON \
      -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
    ninja -C build-static ebpf-gpu-conformance-plugin
  fi
  rm -rf "$CARRY"
  mkdir -p "$CARRY"/{bin,conformance,samples,bench}
  cp build-gpu/tools/ebpf-gpu-loader build-gpu/tools/ebpf-gpu-trafgen \
    build-gpu/bench/ebpf-gpu-bench build-gpu/bench/ebpf-gpu-runner-bench "$CARRY/bin/"
  if ((plugin)); then
    strip -o "$CARRY/bin/ebpf-gpu-conformance-plugin" build-static/tools/ebpf-gpu-conformance-plugin
    gzip -9 "$CARRY/bin/ebpf-gpu-conformance-plugin"
  fi
}

# The benchmark pairs the GPU suite and `device` run: the port filter and
# the IDS against their hand-written twins, and two converging pairs.
prepare_pairs() {
  # Benchmark pair, both as PTX for the H100/H200 (sm_90), JIT-compiled by the driver.
  build/tools/ebpf-gpu-cc build/samples/xdp_port_filter.o --target=sm_90 \
    -o "$CARRY/bench/xdp_port_filter.sm90.gpu.o"
  /usr/local/cuda/bin/nvcc -ptx -arch=sm_90 -O3 -Icore/include \
    bench/cuda/port_filter.cu -o "$CARRY/bench/port_filter.cuda.ptx"
  # The payload-matching pair (issue 18): xdp_ids with its pattern map
  # sized for 10,000 rules, and its twin (tests/gpu-device/kfuncs/ids-twin.test).
  build/tools/ebpf-gpu-cc build/samples/xdp_ids.o --target=sm_90 --map-size=rules=268435456 \
    -o "$CARRY/bench/xdp_ids.sm90.gpu.o"
  /usr/local/cuda/bin/nvcc -ptx -arch=sm_90 -O3 -Icore/include \
    bench/cuda/ids.cu -o "$CARRY/bench/ids.cuda.ptx"
  # Two converging pairs, timed from their relaid settled state
  # (tests/gpu-device/stateful/settled-relay.test).
  local name
  for name in conntrack rate_limit; do
    build/tools/ebpf-gpu-cc "build/samples/xdp_$name.o" --target=sm_90 \
      -o "$CARRY/bench/xdp_$name.sm90.gpu.o"
    /usr/local/cuda/bin/nvcc -ptx -arch=sm_90 -O3 -Icore/include \
      "bench/cuda/$name.cu" -o "$CARRY/bench/$name.cuda.ptx"
  done
}

# bpf_conformance's programs as .gpu.o files, and the suite's expectations.
prepare_conformance() {
  cp tests/conformance/run-conformance.py "$CARRY/"
  # The suite as the build found it: ../shared/conformance (assembled
  # already) or the upstream one scripts/setup.sh fetched (assembled by the build).
  local suite=../shared/conformance hex=../shared/conformance/hex
  if [[ ! -d $hex ]]; then
    suite=.deps/bpf_conformance hex=build/tests/conformance-hex
  fi
  cp -r "$suite/tests" "$suite/negative" "$CARRY/conformance/"
  cp -r "$hex" "$CARRY/conformance/hex"
  for hex in "$CARRY"/conformance/hex/*.hex; do
    build/tools/ebpf-gpu-cc --input=hex --platform=raw --no-verify "$hex" \
      -o "$CARRY/conformance/$(basename "$hex" .hex).gpu.o"
  done
}

# The samples over the generated traffic ($TRAFFIC): each as .gpu.o and
# the host back end's verdicts, packets and maps as digests
# (tests/gpu-device/samples).
prepare_samples() {
  # Traffic (regenerated on the device: the generator is deterministic), and
  # digests of what the host back end decides on it.
  build/tools/ebpf-gpu-trafgen -o "$TRAFFIC" --count "$PACKETS" --seed 3
  sha256sum <"$TRAFFIC" | cut -d' ' -f1 >"$CARRY/samples/traffic.sha256"
  local progs=(xdp_pass_drop.o:xdp_pass_all xdp_pass_drop.o:xdp_drop_ipv6
               xdp_port_filter.o:xdp_port_filter xdp_proto_count.o:xdp_proto_count
               xdp_mac_swap.o:xdp_mac_swap xdp_vlan.o:xdp_vlan
               xdp_patterns.o:ipv6_ext xdp_patterns.o:tcp_opts xdp_patterns.o:load_bytes
               xdp_patterns.o:ttl_dec xdp_flow_count.o:xdp_flow_count
               xdp_percpu_stats.o:xdp_percpu_stats xdp_router.o:xdp_router xdp_lb.o:xdp_lb
               xdp_dispatch.o:xdp_dispatch xdp_ipip.o:xdp_ipip_encap xdp_ipip.o:xdp_ipip_decap
               xdp_l4lb.o:xdp_l4lb)
  # samples/list names them (scripts/gpu-sanitizer.sh runs each; each has
  # its tests/gpu-device/samples/PROGRAM.test, as tools.test checks).
  : >"$CARRY/samples/list"
  for spec in "${progs[@]}"; do
    local obj=${spec%%:*} prog=${spec##*:} maps=()
    [[ -f samples/$prog.maps ]] && maps=(--map-file "samples/$prog.maps")
    build/tools/ebpf-gpu-cc "build/samples/$obj" --section "$prog" -o "$CARRY/samples/$prog.gpu.o"
    build/tools/ebpf-gpu-loader run "build/samples/$obj" --section "$prog" --backend host \
      --pcap "$TRAFFIC" --out "build/$prog.host.pcap" --verdicts "build/$prog.host.txt" \
      --dump-maps "build/$prog.host.maps" "${maps[@]}" >/dev/null
    sha256sum <"build/$prog.host.maps" | cut -d' ' -f1 >"$CARRY/samples/$prog.host.maps.sha256"
    sha256sum <"build/$prog.host.txt" | cut -d' ' -f1 >"$CARRY/samples/$prog.host.txt.sha256"
    sha256sum <"build/$prog.host.pcap" | cut -d' ' -f1 >"$CARRY/samples/$prog.host.pcap.sha256"
    echo "$prog" >>"$CARRY/samples/list"
  done
  # No byte of one packet in another (issue 17): the headroom that
  # bpf_xdp_adjust_meta/head expose is zero on the GPU too, whose batch
  # slots are reused (the list's batches of 256 in every mode and data
  # path), where a packet finding another's bytes is dropped, and what the
  # program leaves unwritten goes out as the host's zeros.
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/loader/headroom-zeroed.c -o build/headroom.o
  build/tools/ebpf-gpu-cc build/headroom.o -o "$CARRY/samples/headroom.gpu.o"
  build/tools/ebpf-gpu-loader run build/headroom.o --backend host --pcap "$TRAFFIC" \
    --out build/headroom.host.pcap --verdicts build/headroom.host.txt \
    --dump-maps build/headroom.host.maps >/dev/null
  local what
  for what in maps txt pcap; do
    sha256sum <"build/headroom.host.$what" | cut -d' ' -f1 >"$CARRY/samples/headroom.host.$what.sha256"
  done
  echo headroom >>"$CARRY/samples/list"
  # A shared array and bloom filter changed from every GPU (issue 22,
  # tests/gpu-device/multigpu/shared-maps.test): built with system-scope
  # atomics (one copy for several GPUs) and without (refused there).
  /usr/bin/clang-19 -O2 -g -target bpf -mcpu=v3 -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/gpu-device/Inputs/shared_counts.c -o build/shared_counts.o
  build/tools/ebpf-gpu-cc build/shared_counts.o --system-atomics \
    -o "$CARRY/samples/shared_counts.sys.gpu.o"
  build/tools/ebpf-gpu-cc build/shared_counts.o -o "$CARRY/samples/shared_counts.gpu.o"
  # The MSS clamp on the same traffic with TCP options on its SYNs (the
  # plain traffic has none to clamp): its own digests, listed as the others.
  build/tools/ebpf-gpu-trafgen -o build/gpu-check-opts.pcap --count "$PACKETS" --seed 3 --tcp-options
  build/tools/ebpf-gpu-cc build/samples/xdp_tcp_mss.o -o "$CARRY/samples/xdp_tcp_mss.gpu.o"
  build/tools/ebpf-gpu-loader run build/samples/xdp_tcp_mss.o --backend host --pcap build/gpu-check-opts.pcap \
    --map-file samples/xdp_tcp_mss.maps --out build/xdp_tcp_mss.host.pcap --verdicts build/xdp_tcp_mss.host.txt \
    --dump-maps build/xdp_tcp_mss.host.maps >/dev/null
  for what in maps txt pcap; do
    sha256sum <"build/xdp_tcp_mss.host.$what" | cut -d' ' -f1 >"$CARRY/samples/xdp_tcp_mss.host.$what.sha256"
  done
  echo xdp_tcp_mss >>"$CARRY/samples/list"
}

# Programs whose state orders their packets, one packet a batch on the GPU
# (tests/gpu-device/serial and stateful).
prepare_serial() {
  # Order-dependent state (a firewall opening flows on SYN) matches the
  # kernel's packet-by-packet semantics on the GPU with one packet a batch.
  build/tools/ebpf-gpu-cc build/samples/xdp_conntrack.o -o "$CARRY/samples/xdp_conntrack.gpu.o"
  build/tools/ebpf-gpu-trafgen -o build/gpu-check-ct.pcap --count 2000 --seed 3
  build/tools/ebpf-gpu-loader run build/samples/xdp_conntrack.o --backend host \
    --pcap build/gpu-check-ct.pcap --verdicts build/ct.host.txt --dump-maps build/ct.host.maps >/dev/null
  cat build/ct.host.txt build/ct.host.maps | sha256sum | cut -d' ' -f1 >"$CARRY/samples/ct.sha256"
  # The same firewall through forward's pipelined lanes, one packet a batch
  # from one queue: the GPU's hash map is reclaimed on the device after
  # every batch, on the one stream of its batches; the host's result is
  # what that must give (the generator sends the pcap in order; tests/
  # gpu-device/forward/conntrack-reclaim-serial.test).
  build/tools/ebpf-gpu-loader forward build/samples/xdp_conntrack.o --backend host --port gen \
    --gen-pcap build/gpu-check-ct.pcap --gen-lcores 1 --queues 1 --batch 1 --count 20000 \
    --check-maps --dump-maps --json 2>/dev/null | python3 -c "
import json, sys
r = json.load(sys.stdin)
print(json.dumps({'actions': {a: v['packets'] for a, v in r['actions'].items()}, 'maps': r['maps']}, sort_keys=True))" \
    >"$CARRY/samples/ct-forward.host.json"
  # The count-min sketch drops by what it counted so far: also one a batch.
  build/tools/ebpf-gpu-cc build/samples/xdp_ddos_cms.o -o "$CARRY/samples/xdp_ddos_cms.gpu.o"
  build/tools/ebpf-gpu-loader run build/samples/xdp_ddos_cms.o --backend host \
    --pcap build/gpu-check-ct.pcap --verdicts build/cms.host.txt --dump-maps build/cms.host.maps >/dev/null
  cat build/cms.host.txt build/cms.host.maps | sha256sum | cut -d' ' -f1 >"$CARRY/samples/cms.sha256"
  # Order-dependent samples (state that one packet's verdict leaves for the
  # next), one packet a batch on the GPU (tests/gpu-device/serial):
  # "OBJECT:PROGRAM" each, with samples/PROGRAM.maps when there is one.
  for spec in xdp_tenant_policy.o:xdp_tenant_policy xdp_flow_export.o:xdp_flow_export \
              xdp_rate_limit.o:xdp_rate_limit; do
    local obj=${spec%%:*} prog=${spec##*:} maps=()
    [[ -f samples/$prog.maps ]] && maps=(--map-file "samples/$prog.maps")
    build/tools/ebpf-gpu-cc "build/samples/$obj" --section "$prog" -o "$CARRY/samples/$prog.gpu.o"
    build/tools/ebpf-gpu-loader run "build/samples/$obj" --section "$prog" --backend host \
      --pcap build/gpu-check-ct.pcap --verdicts "build/$prog.serial.txt" --out "build/$prog.serial.pcap" \
      --dump-maps "build/$prog.serial.maps" --events "build/$prog.serial.events" "${maps[@]}" >/dev/null
    cat "build/$prog.serial.txt" "build/$prog.serial.pcap" <(mask_clock <"build/$prog.serial.maps") \
      "build/$prog.serial.events" | sha256sum | cut -d' ' -f1 >"$CARRY/samples/$prog.serial.sha256"
  done
  # An LPM trie the program inserts into and deletes from (its present-
  # length bitmap set on the GPU, recomputed between batches): serial as the
  # samples above, and under 65,536 threads a launch (--check-maps).
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/loader/lpm-churn.c -o build/lpm_churn.o
  build/tools/ebpf-gpu-cc build/lpm_churn.o -o "$CARRY/samples/lpm_churn.gpu.o"
  build/tools/ebpf-gpu-loader run build/lpm_churn.o --backend host --batch 1 \
    --pcap build/gpu-check-ct.pcap --verdicts build/lpm_churn.serial.txt --out build/lpm_churn.serial.pcap \
    --dump-maps build/lpm_churn.serial.maps --events build/lpm_churn.serial.events >/dev/null
  cat build/lpm_churn.serial.{txt,pcap,maps,events} | sha256sum | cut -d' ' -f1 \
    >"$CARRY/samples/lpm_churn.serial.sha256"
}

# The helpers of issue 17 (tests/gpu-device/helpers and serial).
prepare_helpers() {
  # Helpers of issue 17 whose results are data (bpf_xdp_get_buff_len,
  # bpf_check_mtu without a table, bpf_map_lookup_percpu_elem,
  # bpf_strncmp, bpf_loop, the bpf_iter_num kfuncs, queue, stack and bloom
  # filter maps, bpf_for_each_map_elem, bpf_spin_lock, the XDP dynptrs,
  # bpf_snprintf, the SYN cookie helpers' deterministic results, the kfunc
  # bpf_xdp_pull_data): serial as the
  # samples above ("FILE:PROGRAM", FILE in
  # tests/lit/loader); with the forwarding table, bpf_check_mtu from the
  # WAN link; and the helpers
  # whose results differ by machine (the clocks, the NUMA node), whose
  # programs PASS only where the properties the kernel's values have hold
  # (tests/gpu-device/helpers).
  local spec
  for spec in buff-len-numa.c:buff_len check-mtu.c:mtu_cases map-lookup-percpu-elem.c:percpu_elem \
              strncmp.c:cmp bpf-loop.c:loop_opts bpf-for.c:for_opts for-each-map-elem.c:each_elem \
              for-each-map-elem.c:each_churn for-each-map-elem.c:each_inner spin-lock.c:locked_count \
              spin-lock-update.c:locked_update spin-lock-global.c:global_locked \
              ktime-coarse-tai.c:coarse_vs_ktime \
              ktime-coarse-tai.c:tai_monotonic queue-stack-bloom.c:qsb \
              buff-len-numa.c:numa dynptr.c:dynptr_tunnel dynptr.c:dynptr_edges \
              dynptr-copy.c:dynptr_copy \
              snprintf.c:fmt syncookie.c:cookies pull-data.c:pull strtol.c:strtox \
              strtol.c:cases ringbuf-query.c:query; do
    local src=${spec%%:*} prog=${spec##*:}
    /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
      -c "tests/lit/loader/$src" -o "build/helper17_${src%.c}.o"
    build/tools/ebpf-gpu-cc "build/helper17_${src%.c}.o" --section "$prog" -o "$CARRY/samples/$prog.gpu.o"
    case $prog in
    coarse_vs_ktime | tai_monotonic | numa | query) ;;
    *)
      build/tools/ebpf-gpu-loader run "build/helper17_${src%.c}.o" --section "$prog" --backend host \
        --pcap build/gpu-check-ct.pcap --verdicts "build/$prog.serial.txt" --out "build/$prog.serial.pcap" \
        --dump-maps "build/$prog.serial.maps" --events "build/$prog.serial.events" >/dev/null
      cat "build/$prog.serial.txt" "build/$prog.serial.pcap" <(mask_clock <"build/$prog.serial.maps") \
        "build/$prog.serial.events" | sha256sum | cut -d' ' -f1 >"$CARRY/samples/$prog.serial.sha256" ;;
    esac
  done
  build/tools/ebpf-gpu-loader run build/helper17_check-mtu.o --section mtu_cases --backend host \
    --pcap build/gpu-check-ct.pcap --fib tests/lit/loader/Inputs/fib.fib --ingress-ifindex 3 \
    --verdicts build/mtu_cases.fib.txt --dump-maps build/mtu_cases.fib.maps >/dev/null
  cat build/mtu_cases.fib.{txt,maps} | sha256sum | cut -d' ' -f1 >"$CARRY/samples/mtu_cases.fib.sha256"
}

# ebpf-gpu's kfuncs: payload matching and classification (issue 18,
# tests/gpu-device/kfuncs).
prepare_kfuncs() {
  # ebpf_gpu_match (issue 18): the IDS sample over traffic and 1,200 rules
  # that tests/lit/loader/Inputs/ids-traffic.py writes (deterministic for a
  # seed: the GPU machine writes the same files, checked by their digest);
  # the host's verdicts and maps as a digest.
  build/tools/ebpf-gpu-cc build/samples/xdp_ids.o -o "$CARRY/samples/xdp_ids.gpu.o"
  python3 tests/lit/loader/Inputs/ids-traffic.py gen --seed 11 --rules 1200 --packets 10000 \
    --rate 0.3 build/ids
  cat build/ids.rules build/ids.pcap | sha256sum | cut -d' ' -f1 >"$CARRY/samples/ids-traffic.sha256"
  build/tools/ebpf-gpu-loader run build/samples/xdp_ids.o --backend host --pcap build/ids.pcap \
    --map-set rules:@build/ids.rules --verdicts build/ids.host.txt --dump-maps build/ids.host.maps \
    >/dev/null
  cat build/ids.host.txt build/ids.host.maps | sha256sum | cut -d' ' -f1 >"$CARRY/samples/xdp_ids.sha256"
  # The regex subset and ebpf_gpu_match_all (issue 18): a test program that
  # keeps each packet's first match, count and bitmap, over traffic and
  # rules that tests/lit/loader/Inputs/regex-traffic.py writes
  # (deterministic for a seed, checked on the GPU machine by its digest);
  # the host's verdicts and maps as digests
  # (tests/gpu-device/kfuncs/match-regex.test).
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" -Iapi/include \
    -c tests/lit/loader/Inputs/match_all.c -o build/match_all.o
  build/tools/ebpf-gpu-cc build/match_all.o -o "$CARRY/samples/match_all.gpu.o"
  python3 tests/lit/loader/Inputs/regex-traffic.py gen --seed 11 --rules 60 --literals 20 \
    --packets 4000 build/rx
  python3 tests/lit/loader/Inputs/regex-traffic.py gen --seed 12 --rules 0 --literals 60 \
    --packets 4000 build/rx-lit
  cat build/rx.rules build/rx.pcap build/rx-lit.rules build/rx-lit.pcap | sha256sum | cut -d' ' -f1 \
    >"$CARRY/samples/regex-traffic.sha256"
  local rx
  for rx in rx rx-lit; do
    build/tools/ebpf-gpu-loader run build/match_all.o --backend host --pcap "build/$rx.pcap" \
      --map-set "rules:@build/$rx.rules" --verdicts "build/$rx.host.txt" \
      --dump-maps "build/$rx.host.maps" >/dev/null
  done
  cat build/rx.host.txt build/rx.host.maps | sha256sum | cut -d' ' -f1 >"$CARRY/samples/match_all.rx.sha256"
  cat build/rx-lit.host.txt build/rx-lit.host.maps | sha256sum | cut -d' ' -f1 \
    >"$CARRY/samples/match_all.lit.sha256"
  # Two automata in one pattern map (issue 18): the 10,000 ET literals and
  # five regexes that tests/lit/loader/Inputs/mixed-traffic.py writes, in
  # match_all's map sized for them; the host's verdicts and maps as a
  # digest (tests/gpu-device/kfuncs/match-mixed.test).
  build/tools/ebpf-gpu-cc build/match_all.o --map-size=rules=268435456 \
    -o "$CARRY/samples/match_all.big.gpu.o"
  python3 tests/lit/loader/Inputs/mixed-traffic.py rules --fold 256 bench/rules/et-open-10000.rules \
    build/mixed.rules
  python3 tests/lit/loader/Inputs/mixed-traffic.py gen --seed 18 --packets 4000 build/mixed.rules \
    build/mixed.pcap
  cat build/mixed.rules build/mixed.pcap | sha256sum | cut -d' ' -f1 >"$CARRY/samples/mixed-traffic.sha256"
  build/tools/ebpf-gpu-loader run build/match_all.o --backend host --pcap build/mixed.pcap \
    --map-size rules=268435456 --map-set rules:@build/mixed.rules --verdicts build/mixed.host.txt \
    --dump-maps build/mixed.host.maps >/dev/null
  cat build/mixed.host.txt build/mixed.host.maps | sha256sum | cut -d' ' -f1 \
    >"$CARRY/samples/match_all.mixed.sha256"
  # ebpf_gpu_classify (issue 18): the DDoS sample over traffic that
  # tests/lit/loader/Inputs/ddos-traffic.py writes (deterministic for a
  # seed, checked on the GPU machine by its digest) with its own model and
  # a random MLP; the host's serial verdicts and maps as digests.
  build/tools/ebpf-gpu-cc build/samples/xdp_ddos_classify.o -o "$CARRY/samples/xdp_ddos_classify.gpu.o"
  python3 tests/lit/loader/Inputs/ddos-traffic.py gen --seed 5 --packets 5000 build/ddos
  python3 tests/lit/loader/Inputs/ddos-traffic.py model --kind mlp --seed 1 build/ddos-mlp.model
  cat build/ddos.pcap build/ddos-mlp.model | sha256sum | cut -d' ' -f1 >"$CARRY/samples/ddos-traffic.sha256"
  build/tools/ebpf-gpu-loader run build/samples/xdp_ddos_classify.o --backend host --pcap build/ddos.pcap \
    --map-file samples/xdp_ddos_classify.maps --verdicts build/ddos.host.txt --dump-maps build/ddos.host.maps \
    >/dev/null
  cat build/ddos.host.txt build/ddos.host.maps | sha256sum | cut -d' ' -f1 \
    >"$CARRY/samples/xdp_ddos_classify.sha256"
  build/tools/ebpf-gpu-loader run build/samples/xdp_ddos_classify.o --backend host --pcap build/ddos.pcap \
    --map-set model:@build/ddos-mlp.model --verdicts build/ddos-mlp.host.txt \
    --dump-maps build/ddos-mlp.host.maps >/dev/null
  cat build/ddos-mlp.host.txt build/ddos-mlp.host.maps | sha256sum | cut -d' ' -f1 \
    >"$CARRY/samples/xdp_ddos_classify.mlp.sha256"
}

# Map kinds under many threads, broadcasts, cpumaps, xskmaps, RX metadata,
# event records and trace_printk (tests/gpu-device/maps, forward).
prepare_maps() {
  # Maps of maps under 100,000 concurrent threads: the counters reached
  # through the inner map references (atomic adds) and the outer maps are
  # order-independent, so they must equal the host's.
  build/tools/ebpf-gpu-loader run build/samples/xdp_tenant_policy.o --backend host --pcap "$TRAFFIC" \
    --map-file samples/xdp_tenant_policy.maps --dump-maps build/tenant.host.maps >/dev/null
  grep -E '^(tcp_stats|udp_stats|proto_stats|tenant_policy)' build/tenant.host.maps |
    sha256sum | cut -d' ' -f1 >"$CARRY/samples/tenant_counters.sha256"
  # Broadcasts and cpumaps (bpf_redirect_map with BPF_F_BROADCAST, into a
  # cpumap; issue 17): the programs of tests/lit/loader/broadcast.c and
  # cpumap.c with their map entries; the GPU's actions and where its
  # redirects went must be the host's (tests/gpu-device/maps/broadcast.test,
  # cpumap.test).
  local src
  for src in broadcast cpumap; do
    /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
      -c "tests/lit/loader/$src.c" -o "build/$src.o"
  done
  for spec in broadcast:multi:broadcast-map_all broadcast:all:broadcast-map_egress \
              broadcast:ports_all:broadcast-ports broadcast:ports_excl:broadcast-ports \
              cpumap:by_proto:cpumap; do
    local src=${spec%%:*} maps=${spec##*:} prog=${spec#*:}
    prog=${prog%%:*}
    build/tools/ebpf-gpu-cc "build/$src.o" --section "$prog" -o "$CARRY/samples/bcast_$prog.gpu.o"
    build/tools/ebpf-gpu-loader run "build/$src.o" --section "$prog" --backend host \
      --pcap "$TRAFFIC" --map-file "tests/lit/loader/Inputs/$maps.maps" --ingress-ifindex 2 |
      grep -E '^  (XDP_|redirect to)' >"$CARRY/samples/bcast_$prog.host.txt"
  done
  # xskmaps (issue 17): tests/lit/loader/xskmap.c's xsk_proto and to_xsk;
  # the GPU's actions and consumers must be the host's
  # (tests/gpu-device/maps/xskmap.test).
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/loader/xskmap.c -o build/xskmap.o
  for prog in xsk_proto to_xsk; do
    build/tools/ebpf-gpu-cc build/xskmap.o --section "$prog" -o "$CARRY/samples/$prog.gpu.o"
    build/tools/ebpf-gpu-loader run build/xskmap.o --section "$prog" --backend host \
      --pcap "$TRAFFIC" --map-file tests/lit/loader/Inputs/xskmap.maps |
      grep -E '^  (XDP_|redirect to)' >"$CARRY/samples/$prog.host.txt"
  done
  # The XDP RX metadata kfuncs (issue 17): tests/gpu-device/forward/
  # rx-metadata.test runs tests/lit/loader/rx-metadata.c's program on the
  # GPU, from `run` (-EOPNOTSUPP) and from a net_pcap port (timestamps).
  /usr/bin/clang-19 -O2 -g -target bpf -mcpu=v3 -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/loader/rx-metadata.c -o build/rx_meta.o
  build/tools/ebpf-gpu-cc build/rx_meta.o -o "$CARRY/samples/rx_meta.gpu.o"
  # Event records from 100,000 concurrent threads: per batch they come in
  # packet order, and new flows (one record per flow, whichever packet
  # inserts it) and drop samples are the host's; the ICMP ring overflows,
  # so which ICMP records fit depends on thread timing (their count does not).
  build/tools/ebpf-gpu-loader run build/samples/xdp_flow_export.o --backend host --pcap "$TRAFFIC" \
    --events build/flow_export.host.events --dump-maps build/flow_export.host.maps >/dev/null
  { grep -v '^icmp_records ' build/flow_export.host.events | LC_ALL=C sort
    grep -c '^icmp_records ' build/flow_export.host.events
    cat build/flow_export.host.maps; } | sha256sum | cut -d' ' -f1 >"$CARRY/samples/flow_export.sha256"
  # bpf_trace_printk: the GPU's lines are the host's, in another order.
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/loader/trace-printk.c -o build/trace_printk.o
  build/tools/ebpf-gpu-cc build/trace_printk.o -o "$CARRY/samples/trace_printk.gpu.o"
  build/tools/ebpf-gpu-loader run build/trace_printk.o --pcap "$TRAFFIC" --trace build/trace.host.txt >/dev/null
  LC_ALL=C sort build/trace.host.txt | sha256sum | cut -d' ' -f1 >"$CARRY/samples/trace.sha256"
}

# bpf_fib_lookup's table and the router over it (tests/gpu-device/helpers).
prepare_fib() {
  # bpf_fib_lookup: the table of tests/lit/loader/Inputs/fib.fib (read back
  # from a kernel namespace; tests/lit/loader/fib-lookup-kernel.test checks
  # the host back end against the kernel on it): every call of
  # fib-lookup.test, and the router from each ingress link over its traffic
  # and from link 2 over the generated traffic.
  local fib=tests/lit/loader/Inputs/fib.fib
  python3 tests/lit/loader/Inputs/fib-netns.py cases "$CARRY/samples/fib-cases.pcap" --with-src
  python3 tests/lit/loader/Inputs/fib-netns.py router-traffic "$CARRY/samples/fib-router.pcap"
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/loader/Inputs/fib_cases.c -o build/fib_cases.o
  build/tools/ebpf-gpu-cc build/fib_cases.o -o "$CARRY/samples/fib_cases.gpu.o"
  build/tools/ebpf-gpu-cc build/samples/xdp_fib_router.o -o "$CARRY/samples/xdp_fib_router.gpu.o"
  build/tools/ebpf-gpu-loader run build/fib_cases.o --pcap "$CARRY/samples/fib-cases.pcap" \
    --fib "$fib" --out build/fib-cases.host.pcap --verdicts build/fib-cases.host.txt >/dev/null
  cat build/fib-cases.host.txt build/fib-cases.host.pcap | sha256sum | cut -d' ' -f1 \
    >"$CARRY/samples/fib-cases.sha256"
  local ingress
  for ingress in 1 2 3 4; do
    build/tools/ebpf-gpu-loader run build/samples/xdp_fib_router.o --pcap "$CARRY/samples/fib-router.pcap" \
      --fib "$fib" --ingress-ifindex "$ingress" --out build/fib-router.host.pcap \
      --verdicts build/fib-router.host.txt --dump-maps build/fib-router.host.maps >/dev/null
    cat build/fib-router.host.{txt,pcap,maps} | sha256sum | cut -d' ' -f1 \
      >"$CARRY/samples/fib-router.$ingress.sha256"
  done
  build/tools/ebpf-gpu-loader run build/samples/xdp_fib_router.o --pcap "$TRAFFIC" --fib "$fib" \
    --ingress-ifindex 2 --out build/fib-router.gen.host.pcap --verdicts build/fib-router.gen.host.txt \
    --dump-maps build/fib-router.gen.host.maps >/dev/null
  cat build/fib-router.gen.host.{txt,pcap,maps} | sha256sum | cut -d' ' -f1 \
    >"$CARRY/samples/fib-router.gen.sha256"
}

# Maps under a million threads and the watchdog's program that never
# returns (tests/gpu-device/stress, stateful).
prepare_stress() {
  # Hash map stress: inserts, replaces, deletes and reads from 1M threads.
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/stress/hash_stress.c -o build/hash_stress.o
  build/tools/ebpf-gpu-cc build/hash_stress.o -o "$CARRY/samples/hash_stress.gpu.o"
  build/tools/ebpf-gpu-trafgen -o build/gpu-check-stress.pcap --count 1000000 --seed 9 --flows 100000
  build/tools/ebpf-gpu-loader run build/hash_stress.o --backend host --check-maps \
    --pcap build/gpu-check-stress.pcap --dump-maps "$CARRY/samples/hash_stress.host.maps" >/dev/null
  rm -f build/gpu-check-stress.pcap
  # Queue and stack maps: pushes and pops from 65,536 threads at once
  # (tests/gpu-device/stress/queue-stress.test checks the GPU's maps alone).
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/stress/queue_stress.c -o build/queue_stress.o
  build/tools/ebpf-gpu-cc build/queue_stress.o -o "$CARRY/samples/queue_stress.gpu.o"
  # Per-CPU slices handed out a block at a time (a thread per packet): no
  # two packets at once on one slice, none under another CPU's number.
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/stress/percpu_exclusive.c -o build/percpu_exclusive.o
  build/tools/ebpf-gpu-cc build/percpu_exclusive.o -o "$CARRY/samples/percpu_exclusive.gpu.o"
  # A hash map under 1M concurrent threads: the GPU's map must equal the one
  # the host builds packet by packet (the program is order-independent).
  build/tools/ebpf-gpu-trafgen -o build/gpu-check-1m.pcap --count 1000000 --seed 9
  build/tools/ebpf-gpu-loader run build/samples/xdp_flow_count.o --backend host \
    --pcap build/gpu-check-1m.pcap --dump-maps build/flow_count_1m.host.maps >/dev/null
  sha256sum <build/flow_count_1m.host.maps | cut -d' ' -f1 >"$CARRY/samples/flow_count_1m.sha256"
  rm -f build/gpu-check-1m.pcap
  # The persistent kernel's watchdog: a program that never returns (refused
  # by the verifier, so compiled without it).
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/stress/spin_forever.c -o build/spin_forever.o
  build/tools/ebpf-gpu-cc build/spin_forever.o --no-verify -o "$CARRY/samples/spin_forever.gpu.o"
  # BPF_F_LOCK's updates in place under 65,536 threads a launch
  # (tests/gpu-device/stress/spin-lock-update.test).
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" -DIN_PLACE_ONLY \
    -c tests/lit/loader/spin-lock-update.c -o build/locked_update_in_place.o
  build/tools/ebpf-gpu-cc build/locked_update_in_place.o -o "$CARRY/samples/locked_update_in_place.gpu.o"
}

# Cilium's XDP objects (issue 17; tests/lit/Inputs/cilium, tests/gpu-device/
# samples/cilium.test): each entry's program set compiled for the GPU
# (xz-compressed: their PTX is megabytes), and digests of the host back
# end's run over 400 packets (trafgen --seed 7, which the device writes
# again): verdicts, output packets, maps.
prepare_cilium() {
  mkdir -p "$CARRY/cilium"
  build/tools/ebpf-gpu-trafgen -o build/cilium.pcap --count 400 --seed 7 >/dev/null
  local spec
  for spec in cilium-core/bpf_xdp.o:xdp/entry:core cilium-core/bpf_xdp.o:tail_lb_ipv4:core_lb4 \
              cilium/bpf_xdp_dsr_linux.o:from-netdev:dsr cilium/bpf_xdp_snat_linux.o:from-netdev:snat \
              cilium/bpf_xdp.o:from-netdev:early; do
    local obj=${spec%%:*} rest=${spec#*:}
    local sec=${rest%%:*} name=${rest##*:}
    build/tools/ebpf-gpu-cc "tests/lit/Inputs/cilium/$obj" --section "$sec" -o "build/cilium-$name.gpu.o"
    xz -T0 -c "build/cilium-$name.gpu.o" >"$CARRY/cilium/$name.gpu.o.xz"
    build/tools/ebpf-gpu-loader run "tests/lit/Inputs/cilium/$obj" --section "$sec" --backend host \
      --pcap build/cilium.pcap --verdicts "build/cilium-$name.txt" --out "build/cilium-$name.pcap" \
      --dump-maps "build/cilium-$name.maps" >/dev/null
    cat "build/cilium-$name.txt" "build/cilium-$name.pcap" "build/cilium-$name.maps" |
      sha256sum | cut -d' ' -f1 >"$CARRY/cilium/$name.sha256"
  done
}

# Program array slots (issue 17): set at run time by name
# (tests/lit/loader/tail-calls-runtime.c, a --map-file the GPU machine gets
# in the carry) and by iproute2's "ID/KEY" sections
# (tests/lit/loader/legacy-tail-slots.c); the host's verdicts, output
# packets and maps as digests (tests/gpu-device/serial/tail-slots.test).
prepare_tail_slots() {
  mkdir -p "$CARRY/tail"
  build/tools/ebpf-gpu-trafgen -o build/tail.pcap --count 400 --seed 6 >/dev/null
  printf 'jumps:00000000:@to_tx\njumps:01000000:@to_drop\n' >"$CARRY/tail/slots.txt"
  local spec
  for spec in tail-calls-runtime.c:entry:runtime legacy-tail-slots.c:xdp:legacy; do
    local src=${spec%%:*} rest=${spec#*:}
    local sec=${rest%%:*} name=${rest##*:} slots=()
    [[ $name == runtime ]] && slots=(--map-file "$CARRY/tail/slots.txt")
    /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
      -c "tests/lit/loader/$src" -o "build/tail-$name.o"
    build/tools/ebpf-gpu-cc "build/tail-$name.o" --section "$sec" -o "$CARRY/tail/$name.gpu.o"
    build/tools/ebpf-gpu-loader run "build/tail-$name.o" --section "$sec" --backend host \
      --pcap build/tail.pcap "${slots[@]}" --verdicts "build/tail-$name.txt" \
      --out "build/tail-$name.pcap" --dump-maps "build/tail-$name.maps" >/dev/null
    cat "build/tail-$name.txt" "build/tail-$name.pcap" "build/tail-$name.maps" |
      sha256sum | cut -d' ' -f1 >"$CARRY/tail/$name.sha256"
  done
}

# Everything the device half needs, in .gpu-carry (the stages below, in
# order: later ones read the traffic and objects earlier ones made).
prepare() {
  prepare_tools
  prepare_pairs
  prepare_conformance
  prepare_samples
  prepare_serial
  prepare_helpers
  prepare_kfuncs
  prepare_maps
  prepare_fib
  prepare_stress
  prepare_cilium
  prepare_tail_slots
  # The DPDK runtime for the GPU machine: the loader with `forward` (DPDK
  # linked statically), without the compiler; the shared libraries DPDK's
  # drivers need travel beside it (Debian's, which run on the newer glibc there).
  dpdk_carry "$CARRY/dpdk.tar.xz"
  prepare_daemon
  prepare_suite
  du -sh "$CARRY"
}

# The GPU machine's lit suite (tests/gpu-device) runs from the carry: lit
# itself (pure Python), and FileCheck with the shared libraries a bare
# machine lacks (lib/, which its $ORIGIN/../lib run path finds; the C and
# C++ runtimes are the machine's) packed in filecheck.tar.xz (libz3 alone
# is 23 MB). Its programs and the host's results are the samples above.
prepare_suite() {
  local lit=/usr/lib/llvm-19/build/utils/lit dir=build/filecheck-carry
  rm -rf "$CARRY/lit" "$dir" && mkdir -p "$CARRY/lit" "$dir/bin" "$dir/lib"
  cp "$lit/lit.py" "$CARRY/lit/"
  cp -r "$lit/lit" "$CARRY/lit/"
  find "$CARRY/lit" -name __pycache__ -prune -exec rm -rf {} +
  strip -o "$dir/bin/FileCheck" /usr/lib/llvm-19/bin/FileCheck
  ldd /usr/lib/llvm-19/bin/FileCheck | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' | xargs -r cp -L -t "$dir/lib/"
  XZ_OPT=-9 tar -cJf "$CARRY/filecheck.tar.xz" -C "$dir" .
}

# The daemon on the GPU (tests/gpu-device/daemon) runs the DPDK loader
# prepare() carries (dpdk.tar.xz); its fault tests' programs and frames.
prepare_daemon() {
  mkdir -p "$CARRY/daemon"
  # Fault containment: a program that hangs on one kind of frame (refused
  # by the verifier, so compiled without it), one such frame, and 64 plain
  # frames.
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/stress/spin_on_marker.c -o build/spin_on_marker.o
  build/tools/ebpf-gpu-cc build/spin_on_marker.o --no-verify -o "$CARRY/samples/spin_on_marker.gpu.o"
  python3 - "$CARRY/daemon" <<'PY'
import struct, sys
def pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)) + fr)
macs = bytes.fromhex("020000000001020000000002")
pcap(sys.argv[1] + "/marker.pcap", [macs + b"\x88\xb5" + bytes(50)])
pcap(sys.argv[1] + "/plain.pcap", [macs + b"\x08\x00" + bytes(50)] * 64)
PY
}

# The C API (prepare-api, device-api): scripts/gpu-check-api.sh.
. scripts/gpu-check-api.sh

# The checks of tests/gpu-device, through the carry's lit (--param names:
# tests/gpu-device/lit.cfg.py); on_device=1 makes a GPU or DPDK loader that
# does not start here an error, not a reason to skip. A line a test, the
# output of those that fail, the slowest at the end.
# GPU_CHECK_SKIP_CONFORMANCE=1 leaves out bpf_conformance (conformance/);
# lit's own LIT_FILTER and LIT_FILTER_OUT pick tests (a --filter-out on
# lit's command line would replace LIT_FILTER_OUT, so the two are joined).
device_suite() {
  local out=$1 skip=()
  [[ -x /tmp/dpdk/ebpf-gpu-loader ]] || { mkdir -p /tmp/dpdk && tar -xJf "$CARRY/dpdk.tar.xz" -C /tmp/dpdk; }
  if [[ ${GPU_CHECK_SKIP_CONFORMANCE:-0} == 1 ]]; then
    echo "bpf_conformance skipped (GPU_CHECK_SKIP_CONFORMANCE=1)"
    skip=(--filter-out "conformance/${LIT_FILTER_OUT:+|$LIT_FILTER_OUT}")
  fi
  python3 "$CARRY/lit/lit.py" -v --time-tests --param carry="$CARRY" --param on_device=1 \
    --param dpdk=/tmp/dpdk --param exec_root=/tmp/gpu-check-lit \
    --xunit-xml-output "$out/gpu-device.xml" "${skip[@]}" tests/gpu-device
}

device() {
  local out=${OUT:-/tmp/gpu-check}
  mkdir -p "$out"
  nvidia-smi -L
  local bin=$CARRY/bin status=0
  echo "== the suite's tools start here: lit, and FileCheck with its carried libraries"
  local fc=/tmp/gpu-check-filecheck
  rm -rf "$fc" && mkdir -p "$fc"
  if python3 "$CARRY/lit/lit.py" --version && tar -xJf "$CARRY/filecheck.tar.xz" -C "$fc" &&
     "$fc/bin/FileCheck" --version && echo "CHECK: FileCheck runs" >"$fc/selfcheck.txt" &&
     echo "FileCheck runs" | "$fc/bin/FileCheck" "$fc/selfcheck.txt" &&
     ! echo "FileCheck fails" | "$fc/bin/FileCheck" "$fc/selfcheck.txt" 2>/dev/null; then
    echo "lit and FileCheck: ok"
  else
    echo "lit or FileCheck: FAILED to start (missing libraries? ldd $fc/bin/FileCheck)"
    status=1
  fi
  echo "== the GPU suite: tests/gpu-device through lit (one test at a time)"
  device_suite "$out" || status=1
  echo "== benchmark: compiled port filter vs hand-written CUDA, 1M packets in GPU memory"
  "$bin/ebpf-gpu-trafgen" -o /tmp/bench.pcap --count 1000000 --seed 9
  "$bin/ebpf-gpu-bench" --gpu-object "$CARRY/bench/xdp_port_filter.sm90.gpu.o" \
    --cuda-ptx "$CARRY/bench/port_filter.cuda.ptx" --cuda-kernel cuda_port_filter \
    --pcap /tmp/bench.pcap --reps 100 --json "$out/bench.json" || status=1
  return $status
}

# Real-world objects (docs/MAPS.md): after `scripts/realworld.sh SRC` and
# `prepare` here, stage each program's .gpu.o, its map entries and the host
# back end's results on the same traffic; on the device, run each on the GPU
# one packet a batch (the host's order: Katran's LRU and flood counters
# depend on it) and in one batch, and compare.
# Map dump lines holding clock values: what the mask matches beyond its
# group 1 is not compared (tests/lit/loader/Inputs/differential.py --mask).
mask_rw() {
  if [[ -n $1 ]]; then sed -E "s/$1/\\1T/"; else cat; fi
}

prepare_realworld() {
  local rw=${RW_WORK:-/tmp/ebpf-gpu-realworld} dst=$CARRY/realworld
  [[ -s $rw/manifest ]] || { echo "no $rw/manifest: run scripts/realworld.sh SRC first" >&2; exit 2; }
  [[ -x $CARRY/bin/ebpf-gpu-loader ]] || { echo "run scripts/gpu-check.sh prepare first" >&2; exit 2; }
  rm -rf "$dst" && mkdir -p "$dst"
  cp "$rw/traffic.pcap" "$dst/"
  : >"$dst/list"
  local name prog mapfile args mask id a maps
  while IFS='|' read -r name prog mapfile args mask; do
    id=$name.$prog
    maps=()
    cp "$rw/obj/$id.gpu.o" "$dst/"
    if [[ -n $mapfile ]]; then
      cp "$mapfile" "$dst/$id.maps"
      maps=(--map-file "$dst/$id.maps")
    fi
    read -ra a <<<"$args"
    build/tools/ebpf-gpu-loader run "$rw/obj/$name.o" --section "$prog" "${a[@]}" "${maps[@]}" \
      --backend host --pcap "$rw/traffic.pcap" --verdicts "build/rw.$id.txt" \
      --out "build/rw.$id.pcap" --dump-maps "build/rw.$id.maps" </dev/null >/dev/null
    cat "build/rw.$id.txt" "build/rw.$id.pcap" | sha256sum | cut -d' ' -f1 >"$dst/$id.packets.sha256"
    mask_rw "$mask" <"build/rw.$id.maps" | sha256sum | cut -d' ' -f1 >"$dst/$id.maps.sha256"
    echo "$id|$mask" >>"$dst/list"
  done <"$rw/manifest"
  echo "staged $(wc -l <"$dst/list") real-world programs in $dst"
}

device_realworld() {
  local r=$CARRY/realworld bin=$CARRY/bin out=${OUT:-/tmp/gpu-check} status=0 id mask maps
  mkdir -p "$out"
  echo "== real-world objects on the GPU against the host back end"
  while IFS='|' read -r id mask; do
    maps=()
    [[ -f $r/$id.maps ]] && maps=(--map-file "$r/$id.maps")
    "$bin/ebpf-gpu-loader" run "$r/$id.gpu.o" --pcap "$r/traffic.pcap" "${maps[@]}" --batch 1 \
      --verdicts "/tmp/rw.$id.txt" --out "/tmp/rw.$id.pcap" --dump-maps "/tmp/rw.$id.maps" \
      </dev/null >/dev/null ||
      { echo "$id: the GPU run failed"; status=1; continue; }
    if [[ $(cat "/tmp/rw.$id.txt" "/tmp/rw.$id.pcap" | sha256sum | cut -d' ' -f1) == $(cat "$r/$id.packets.sha256") &&
          $(mask_rw "$mask" <"/tmp/rw.$id.maps" | sha256sum | cut -d' ' -f1) == $(cat "$r/$id.maps.sha256") ]]; then
      echo "$id: $(wc -l <"/tmp/rw.$id.txt") packets one a batch, GPU and host agree (verdicts, packets, maps)"
    else
      echo "$id: one packet a batch, GPU and host DIFFER"
      cp "/tmp/rw.$id.txt" "/tmp/rw.$id.maps" "$out/" || true
      status=1
    fi
    "$bin/ebpf-gpu-loader" run "$r/$id.gpu.o" --pcap "$r/traffic.pcap" "${maps[@]}" \
      --verdicts "/tmp/rw.$id.b.txt" --out "/tmp/rw.$id.b.pcap" </dev/null >/dev/null ||
      { echo "$id: the GPU run in one batch failed"; status=1; continue; }
    if [[ $(cat "/tmp/rw.$id.b.txt" "/tmp/rw.$id.b.pcap" | sha256sum | cut -d' ' -f1) == $(cat "$r/$id.packets.sha256") ]]; then
      echo "$id: one batch, GPU and host agree (verdicts, packets)"
    else
      echo "$id: one batch, verdicts or packets differ from the host's serial run"
    fi
  done <"$r/list"
  return $status
}

case "${1:-}" in
prepare) prepare ;;
prepare-suite) prepare_suite ;;
prepare-cilium) prepare_cilium ;;
prepare-tail-slots) prepare_tail_slots ;;
device-suite)
  mkdir -p "${OUT:-/tmp/gpu-check}"
  device_suite "${OUT:-/tmp/gpu-check}"
  ;;
prepare-realworld) prepare_realworld ;;
device-realworld) device_realworld ;;
device) device ;;
prepare-daemon) prepare_daemon ;;
prepare-api) prepare_api ;;
device-api) device_api ;;
device-daemon)
  # The daemon's tests alone (tests/gpu-device/daemon).
  mkdir -p "${OUT:-/tmp/gpu-check}"
  LIT_FILTER='daemon/' device_suite "${OUT:-/tmp/gpu-check}"
  ;;
*)
  echo "usage: $0 prepare|device|prepare-suite|device-suite|prepare-daemon|device-daemon|prepare-api|device-api|prepare-realworld|device-realworld" >&2
  exit 2
  ;;
esac

# SPDX-License-Identifier: Apache-2.0
#
# The C API's part of scripts/gpu-check.sh (prepare-api, device-api),
# sourced by it: it shares its variables (CARRY, TRAFFIC) and helpers.

# The C API on the GPU machine (tests/gpu-device/api, its own lit suite):
# libebpf-gpu built without the compiler (build-gpu, beside the carried
# loader), tests/api's consumer and pcap_burst linked against it with an
# $ORIGIN run path, the .gpu.o files they run, the traffic, and digests of
# the host back end's results on it (verdicts and output packets from the
# loader's `run`, maps from pcap_burst on this build's library), with lit.
# A carry of its own, .gpu-carry-api (a few MB): the device takes 64 MiB
# in all, most of it .gpu-carry's.
API_CARRY=.gpu-carry-api
API_PROGS=(xdp_port_filter xdp_mac_swap xdp_vlan xdp_proto_count xdp_flow_count)
prepare_api() {
  [[ -x build/tools/ebpf-gpu-cc && -e build/api/libebpf-gpu.so ]] || bash scripts/build.sh
  configure_gpu_build
  ninja -C build-gpu ebpf-gpu
  local c=$API_CARRY s=build/samples w=build/api-carry p
  rm -rf "$c" "$w" && mkdir -p "$c"/{bin,lib,gpu} "$w/host"
  strip -o "$c/lib/libebpf-gpu.so.0" "$(readlink -f build-gpu/api/libebpf-gpu.so)"
  if ldd "$c/lib/libebpf-gpu.so.0" | grep -E 'LLVM|libbpf|libelf|libpcap|libstdc\+\+|librte'; then
    echo "FAIL: the GPU host's libebpf-gpu needs the libraries above" >&2
    exit 1
  fi
  for p in consumer pcap_burst; do
    cc -std=c11 -Wall -Werror -Iapi/include "tests/api/$p.c" -Lbuild-gpu/api -lebpf-gpu \
      -Wl,-rpath,'$ORIGIN/../lib' -o "$c/bin/$p"
  done
  # The programs: the samples, and tests/api's own (the ingress, maps
  # without keys); one eBPF object, which the library must refuse.
  for p in "${API_PROGS[@]}" xdp_config_count; do
    build/tools/ebpf-gpu-cc "$s/$p.o" -o "$c/gpu/$p.gpu.o"
  done
  cp "$s/xdp_port_filter.o" "$c/gpu/"
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/api/xdp_ctx.c -o "$w/xdp_ctx.o"
  build/tools/ebpf-gpu-cc "$w/xdp_ctx.o" --section xdp_ingress -o "$c/gpu/xdp_ingress.gpu.o"
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/loader/queue-stack-bloom.c -o "$w/qsb.o"
  build/tools/ebpf-gpu-cc "$w/qsb.o" --section qsb -o "$c/gpu/qsb.gpu.o"
  # Here already, without a GPU: the library refuses an eBPF object and
  # opens a .gpu.o.
  "$c/bin/consumer" --no-compiler "$c/gpu"
  # The host's results: run's verdicts and packets, pcap_burst's (on this
  # build's library, with the compiler) equal to them, and its maps.
  build/tools/ebpf-gpu-trafgen -o "$c/traffic.pcap" --count 10000 --seed 19
  cc -std=c11 -Wall -Werror -Iapi/include tests/api/pcap_burst.c -Lbuild/api -lebpf-gpu \
    -Wl,-rpath,"$PWD/build/api" -o "$w/pcap_burst"
  for p in "${API_PROGS[@]}"; do
    build/tools/ebpf-gpu-loader run "$s/$p.o" --backend host --pcap "$c/traffic.pcap" \
      --out "$w/host/$p.pcap" --verdicts "$w/host/$p.txt" >/dev/null
    "$w/pcap_burst" "$s/$p.o" "$c/traffic.pcap" "$w/$p" >/dev/null
    cmp "$w/$p.txt" "$w/host/$p.txt" && cmp "$w/$p.pcap" "$w/host/$p.pcap"
    mv "$w/$p.maps" "$w/host/"
  done
  (cd "$w/host" && sha256sum -- *.txt *.pcap *.maps) >"$c/host.sha256"
  prepare_api_patterns
  prepare_api_rx
  prepare_api_output "$w/pcap_burst"
  prepare_api_lanes
  local lit=/usr/lib/llvm-19/build/utils/lit
  mkdir -p "$c/lit"
  cp "$lit/lit.py" "$c/lit/"
  cp -r "$lit/lit" "$c/lit/"
  find "$c/lit" -name __pycache__ -prune -exec rm -rf {} +
  du -sh "$c"
}

# What a program leaves besides maps and packets, through the C API on the
# GPU (tests/gpu-device/api/output.test): the flow exporter's event records
# in bursts of one packet from ingress 1 as `run`'s (ebpf_gpu_prog__
# consume_events; maps checked by __check_maps), trace-printk.c's lines (__consume_trace; compared sorted:
# the GPU's threads write them in their own order), and the FIB router with
# its table from __set_fib_file. The host back end's results (`run`), which
# pcap_burst ($1, on this build's library) must equal here, as digests.
prepare_api_output() {
  local c=$API_CARRY s=build/samples w=build/api-carry/output burst=$1
  rm -rf "$w" && mkdir -p "$w/host" "$c/output"
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/loader/trace-printk.c -o "$w/trace_printk.o"
  build/tools/ebpf-gpu-cc "$w/trace_printk.o" -o "$c/gpu/trace_printk.gpu.o"
  build/tools/ebpf-gpu-cc "$s/xdp_flow_export.o" -o "$c/gpu/xdp_flow_export.gpu.o"
  build/tools/ebpf-gpu-cc "$s/xdp_fib_router.o" -o "$c/gpu/xdp_fib_router.gpu.o"
  cp tests/lit/loader/Inputs/fib.fib "$c/output/"
  python3 tests/lit/loader/Inputs/fib-netns.py router-traffic "$c/output/router.pcap"
  build/tools/ebpf-gpu-trafgen -o "$c/output/flows.pcap" --count 2000 --seed 3 >/dev/null
  build/tools/ebpf-gpu-loader run "$s/xdp_flow_export.o" --backend host \
    --pcap "$c/output/flows.pcap" --verdicts "$w/host/flow.txt" --events "$w/host/flow.events" \
    >/dev/null
  build/tools/ebpf-gpu-loader run "$w/trace_printk.o" --backend host --pcap "$c/traffic.pcap" \
    --trace "$w/trace.raw" >/dev/null
  sort "$w/trace.raw" >"$w/host/trace.sorted"
  build/tools/ebpf-gpu-loader run "$s/xdp_fib_router.o" --backend host --fib "$c/output/fib.fib" \
    --ingress-ifindex 2 --pcap "$c/output/router.pcap" --verdicts "$w/host/fib.txt" \
    --out "$w/host/fib.pcap" >/dev/null
  "$burst" "$s/xdp_flow_export.o" "$c/output/flows.pcap" "$w/flow" --batch 1 --ingress 1 \
    --check-maps >/dev/null
  "$burst" "$w/trace_printk.o" "$c/traffic.pcap" "$w/trace" >/dev/null
  sort "$w/trace.trace" >"$w/trace.sorted"
  "$burst" "$s/xdp_fib_router.o" "$c/output/router.pcap" "$w/fib" --fib "$c/output/fib.fib" \
    --ingress 2 >/dev/null
  for f in flow.txt flow.events trace.sorted fib.txt fib.pcap; do
    cmp "$w/$f" "$w/host/$f"
  done
  (cd "$w/host" && sha256sum -- *) >"$c/output/host.sha256"
}

# Workers on the GPU (tests/gpu-device/api/lanes.test): 4 threads, each
# with its own lane of one program (tests/lit/api/Inputs/lanes-user.c on
# the GPU host's library), lanes.c compiled; the test checks that every
# packet is counted in the shared maps.
prepare_api_lanes() {
  local c=$API_CARRY w=build/api-carry/lanes
  mkdir -p "$w"
  cc -std=gnu11 -Wall -Werror -pthread -Iapi/include tests/lit/api/Inputs/lanes-user.c \
    -Lbuild-gpu/api -lebpf-gpu -Wl,-rpath,'$ORIGIN/../lib' -o "$c/bin/lanes-user"
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/api/Inputs/lanes.c -o "$w/lanes.o"
  build/tools/ebpf-gpu-cc "$w/lanes.o" -o "$c/gpu/lanes.gpu.o"
}

# A pattern map's rules replaced between bursts on the GPU
# (tests/gpu-device/api/pattern-maps.test): tests/lit/api/Inputs/
# pattern-maps-user.c built on the GPU host's library, xdp_ids compiled with
# an 8192-byte pattern map, the rules files, and the same program's output
# on the host back end here (xdp_ids.o, the library with the compiler),
# which the device's must equal line for line.
prepare_api_patterns() {
  local c=$API_CARRY w=build/api-carry/patterns
  mkdir -p "$c/patterns" "$w"
  cc -std=c99 -Wall -Werror -Iapi/include tests/lit/api/Inputs/pattern-maps-user.c \
    -Lbuild-gpu/api -lebpf-gpu -Wl,-rpath,'$ORIGIN/../lib' -o "$c/bin/pattern-maps-user"
  cc -std=c99 -Wall -Werror -Iapi/include tests/lit/api/Inputs/pattern-maps-user.c \
    -Lbuild/api -lebpf-gpu -Wl,-rpath,"$PWD/build/api" -o "$w/pattern-maps-user"
  build/tools/ebpf-gpu-cc build/samples/xdp_ids.o --map-size rules=8192 \
    -o "$c/gpu/xdp_ids-8k.gpu.o"
  printf 'id:1 alpha-rule\nid:2 re:/bravo-r[u]le/\n' >"$c/patterns/a.rules"
  printf 'id:7 charlie-zz\n' >"$c/patterns/b.rules"
  printf 'id:1 fine\nid:2 re:/a(b/\n' >"$c/patterns/bad.rules"
  cp samples/xdp_ddos_classify.model "$c/patterns/"
  (cd "$c/patterns" && "$OLDPWD/$w/pattern-maps-user" host "$OLDPWD/build/samples/xdp_ids.o" \
    a.rules b.rules bad.rules xdp_ddos_classify.model) >"$c/patterns/host.txt"
}

# The rx callback on the GPU (tests/gpu-device/api/rx-callback.test):
# samples/dpdk_xdp_rx with DPDK linked statically and this carry's
# libebpf-gpu (no compiler) shared, packed stripped with the shared
# libraries DPDK's drivers need (Debian's, as dpdk_carry packs them) into
# rx.tar.xz; the programs as .gpu.o files, 3,000 packets, and `run`'s
# verdicts and output packets on the host back end, which the test
# compares with what the callback did (tests/lit/api/Inputs/compare-rx.py,
# as tests/lit/api/rx-callback.test does here on the host back end).
API_RX_PROGS=(xdp_port_filter xdp_mac_swap xdp_vlan)
prepare_api_rx() {
  local c=$API_CARRY s=build/samples w=build/api-carry/rx p
  if ! pkg-config --exists libdpdk; then
    echo "no DPDK here (pkg-config libdpdk): the rx callback's GPU test is left out" >&2
    return 0
  fi
  rm -rf "$w" && mkdir -p "$w/bin" "$w/lib" "$c/rx"
  # shellcheck disable=SC2046  # pkg-config's flags are words
  cc -std=gnu11 -O2 -Wall -Werror -Iapi/include $(pkg-config --static --cflags libdpdk) \
    samples/dpdk_xdp_rx.c -Lbuild-gpu/api -lebpf-gpu $(pkg-config --static --libs libdpdk) \
    -o "$w/dpdk_xdp_rx"
  strip -o "$w/bin/dpdk_xdp_rx" "$w/dpdk_xdp_rx"
  LD_LIBRARY_PATH=$c/lib ldd "$w/dpdk_xdp_rx" | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux[^/]*|libebpf-gpu)\.so' |
    xargs -r cp -L -t "$w/lib/"
  strip "$w"/lib/*
  XZ_OPT=-9 tar -cJf "$c/rx.tar.xz" -C "$w" bin lib
  # Here already, without a GPU: EAL, the pcap ports and the library start,
  # and the eBPF object is refused with the library's one message.
  build/tools/ebpf-gpu-trafgen -o "$c/rx/in.pcap" --count 3000 --seed 19
  if LD_LIBRARY_PATH=$w/lib:$c/lib "$w/bin/dpdk_xdp_rx" --no-huge -m 256 --no-pci --no-shconf \
    --no-telemetry --log-level=error --file-prefix=ebpf-gpu-api-rx \
    --vdev "net_pcap0,rx_pcap=$c/rx/in.pcap,tx_pcap=$w/tx.pcap" -- "$s/xdp_port_filter.o" \
    >"$w/refused.out" 2>&1 || ! grep -q 'built without the compiler' "$w/refused.out"; then
    cat "$w/refused.out" >&2
    echo "FAIL: the carried dpdk_xdp_rx did not start, or took an eBPF object" >&2
    exit 1
  fi
  for p in "${API_RX_PROGS[@]}"; do
    build/tools/ebpf-gpu-loader run "$s/$p.o" --backend host --pcap "$c/rx/in.pcap" \
      --out "$c/rx/$p.run.pcap" --verdicts "$c/rx/$p.v" >/dev/null
  done
  /usr/bin/clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
    -c tests/lit/api/Inputs/redirect_2.c -o "$w/redirect_2.o"
  build/tools/ebpf-gpu-cc "$w/redirect_2.o" -o "$c/gpu/redirect_2.gpu.o"
  build/tools/ebpf-gpu-loader run "$w/redirect_2.o" --backend host --pcap "$c/rx/in.pcap" \
    --out "$c/rx/redirect_2.run.pcap" --verdicts "$c/rx/redirect_2.v" >/dev/null
}

device_api() {
  nvidia-smi -L
  python3 "$API_CARRY/lit/lit.py" -v --param carry="$API_CARRY" --param on_device=1 \
    --param exec_root=/tmp/gpu-check-api tests/gpu-device/api
}

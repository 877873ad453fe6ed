#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets with clang-19 (ASan + UBSan) and runs each,
# one after the other, for SECONDS (default 60), seeded with the samples and
# the conformance programs (tests/fuzz/seed-corpus.py): fuzz_verifier (ELF
# reader, decoder, verifier) and fuzz_compile (the whole pipeline: verifier,
# lifter, LLVM, PTX or the host JIT and a run of what verified), and the
# loader's and daemon's inputs: fuzz_loader_text (--fib files, map entries
# and map files), fuzz_btf (the BTF pretty-printer of `map dump`),
# fuzz_gpu_object (the .gpu.o reader) and fuzz_daemon (the control
# protocol's JSON and every request, tests/fuzz/seed-loader-corpus.py
# seeding them from the repository's tests). TARGETS (default: the first
# two) names the ones to run. A crash leaves its input in build-fuzz/crashes/
# and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
TARGETS=${TARGETS:-fuzz_verifier fuzz_compile}
bash scripts/setup.sh >/dev/null
BUILD=build-fuzz
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEBPF_GPU_FUZZ=ON >/dev/null
# shellcheck disable=SC2086
ninja -C "$BUILD" $TARGETS samples >/dev/null
mkdir -p "$BUILD/crashes"
python3 tests/fuzz/seed-corpus.py "$BUILD/corpus" ../shared/conformance "$BUILD"/samples/*.o
# .gpu.o seeds: the samples compiled by ebpf-gpu-cc (the plain build's when
# there is one: the fuzz build's compiler is slow to build under ASan).
CC=build/tools/ebpf-gpu-cc
if [ ! -x "$CC" ]; then
  ninja -C "$BUILD" ebpf-gpu-cc >/dev/null
  CC=$BUILD/tools/ebpf-gpu-cc
fi
mkdir -p "$BUILD/gpu-seeds"
for o in "$BUILD"/samples/*.o; do
  "$CC" "$o" -o "$BUILD/gpu-seeds/$(basename "$o" .o).gpu.o" 2>/dev/null || true
done
for s in xdp_pass_drop.o:xdp_pass_all xdp_pass_drop.o:xdp_drop_ipv6 xdp_ipip.o:xdp_ipip_encap; do
  "$CC" "$BUILD/samples/${s%%:*}" --section "${s##*:}" -o "$BUILD/gpu-seeds/${s##*:}.gpu.o" || true
done
python3 tests/fuzz/seed-loader-corpus.py "$BUILD/corpus" "$PWD" "$PWD/$BUILD/samples" \
  "$BUILD"/gpu-seeds/*.gpu.o
status=0
for t in $TARGETS; do
  corpus=$BUILD/corpus/${t#fuzz_}
  echo "== $t: $SECONDS_PER_TARGET s, corpus $corpus ($(ls "$corpus" | wc -l) inputs)"
  # Leak checking is off: LLVM keeps caches and options in globals that
  # outlive an input by design.
  "$BUILD/tests/$t" "$corpus" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 \
    -timeout=20 -rss_limit_mb=4096 -detect_leaks=0 -artifact_prefix="$BUILD/crashes/$t-" \
    -print_final_stats=1 >"$BUILD/$t.log" 2>&1 || status=1
  grep -E '^(stat::|SUMMARY|==[0-9]+==ERROR|Done)' "$BUILD/$t.log" || true
done
exit $status

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets with clang-19 (ASan + UBSan) and runs each for
# SECONDS (default 60), seeded with the samples and the conformance programs.
# A crash leaves its input in build-fuzz/crashes/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET=${1:-60}
bash scripts/setup.sh >/dev/null
BUILD=build-fuzz
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEBPF_GPU_FUZZ=ON >/dev/null
ninja -C "$BUILD" fuzz_verifier samples >/dev/null
CORPUS=$BUILD/corpus/verifier
mkdir -p "$CORPUS" "$BUILD/crashes"
cp build*/samples/*.o "$CORPUS/" 2>/dev/null || true
if [[ -d ../shared/conformance/hex ]]; then
  for h in ../shared/conformance/hex/*.hex; do
    { printf '\x10'; xxd -r -p <"$h" 2>/dev/null || python3 -c "import sys;sys.stdout.buffer.write(bytes.fromhex(open(sys.argv[1]).read()))" "$h"; } \
      >"$CORPUS/$(basename "$h" .hex)" || true
  done
fi
"$BUILD/tests/fuzz_verifier" "$CORPUS" -max_total_time="$SECONDS_PER_TARGET" -max_len=65536 \
  -timeout=10 -artifact_prefix="$BUILD/crashes/" -print_final_stats=1 2>&1 | tail -15

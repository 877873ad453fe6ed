#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets everything up, builds, and runs every test: unit tests, lit
# regression tests (kernel-oracle and GPU tests run where the machine
# allows, and say why when skipped), and bpf_conformance on the host back
# end; then the same suite again on an AddressSanitizer + UBSan build
# (EBPF_GPU_SKIP_SANITIZERS=1 skips that second pass).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
BUILD_DIR=${EBPF_GPU_BUILD_DIR:-build}
JOBS=$(nproc)
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" "$@"

if [[ ${EBPF_GPU_SKIP_SANITIZERS:-0} != 1 ]]; then
  echo "== the same tests, built with AddressSanitizer and UndefinedBehaviorSanitizer"
  cmake -S . -B "$BUILD_DIR-asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DEBPF_GPU_SANITIZE=ON >/dev/null
  ninja -C "$BUILD_DIR-asan"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$BUILD_DIR-asan" --output-on-failure -j "$JOBS" "$@"
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Sets everything up, builds, and runs every test: unit tests, lit
# regression tests (kernel-oracle and GPU tests run where the machine
# allows, and say why when skipped), and bpf_conformance on the host back end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
BUILD_DIR=${EBPF_GPU_BUILD_DIR:-build}
ctest --test-dir "$BUILD_DIR" --output-on-failure "$@"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the dependencies (scripts/setup.sh) and builds everything into
# build/ (or $EBPF_GPU_BUILD_DIR). Extra arguments go to cmake's configure.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
BUILD_DIR=${EBPF_GPU_BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
ninja -C "$BUILD_DIR"

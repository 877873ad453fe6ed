#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The deployment configuration a GPU machine runs (scripts/gpu-check.sh and
# scripts/bench.sh carry it there): no compiler (no LLVM), no DPDK. It must
# configure and link on its own, as nothing else in the suite builds it.
#   build.sh SOURCE-DIR WORK-DIR
set -euo pipefail
src=$1 work=$2
rm -rf "$work"
cmake -S "$src" -B "$work" -G Ninja -DEBPF_GPU_WITH_COMPILER=OFF -DEBPF_GPU_WITH_DPDK=OFF \
  -DCMAKE_BUILD_TYPE=Release >"$work.configure.log" 2>&1 ||
  { cat "$work.configure.log"; echo "FAIL: the deployment configuration does not configure"; exit 1; }
ninja -C "$work" ebpf-gpu-loader ebpf-gpu-trafgen ebpf-gpu-bench ebpf-gpu-runner-bench ebpf-gpu \
  >"$work/build.log" 2>&1 ||
  { grep -E -A12 '^FAILED' "$work/build.log" | head -60; echo "FAIL: the deployment build"; exit 1; }
# What it built runs, and holds no LLVM.
"$work/tools/ebpf-gpu-loader" --help >/dev/null
if nm -C "$work/tools/ebpf-gpu-loader" | grep -q ' llvm::'; then
  echo "FAIL: the deployment loader links LLVM"; exit 1
fi
echo "deployment build: ebpf-gpu-loader, ebpf-gpu-trafgen, the two GPU benches and libebpf-gpu, no LLVM"
rm -rf "$work" "$work.configure.log"

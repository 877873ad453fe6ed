#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The main job on its embedded default: set up, build, compile the port
# filter sample (clang -O2 -g -target bpf), generate sample traffic, run the
# program over it and print what it decided per action.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
BUILD_DIR=${EBPF_GPU_BUILD_DIR:-build}
OUT=$BUILD_DIR/demo
mkdir -p "$OUT"
"$BUILD_DIR/tools/ebpf-gpu-trafgen" -o "$OUT/traffic.pcap" --count 100000 --seed 1
"$BUILD_DIR/tools/ebpf-gpu-loader" run "$BUILD_DIR/samples/xdp_port_filter.o" \
  --pcap "$OUT/traffic.pcap" --out "$OUT/passed.pcap"
echo "packets the program passed: $OUT/passed.pcap"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The installed tree as a user gets it: `cmake --install` of the build into
# a fresh prefix, then tests/api/consumer.c built against it twice, with
# pkg-config and with a CMake project's find_package(ebpf-gpu), and run;
# and a skeleton made by the installed ebpf-gpu-cc, the sample control
# program built on it with pkg-config, and run.
#   install.sh BUILD-DIR SAMPLES-DIR WORK-DIR
set -euo pipefail
build=$1 samples=$2 work=$3
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in bin/ebpf-gpu-cc bin/ebpf-gpu-loader bin/ebpf-gpu-trafgen include/ebpf-gpu/ebpf-gpu.h \
  include/ebpf-gpu/ebpf-gpu-dpdk.h include/ebpf-gpu/kfuncs.h \
  lib/systemd/system/ebpf-gpu-daemon.service share/doc/ebpf-gpu/daemon.conf.example; do
  [[ -e $prefix/$f ]] || { echo "FAIL: $f not installed"; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name 'libebpf-gpu.so' | head -1)")
[[ -n $libdir ]] || { echo "FAIL: libebpf-gpu.so not installed"; exit 1; }
# The unit runs the installed loader.
grep -q "^ExecStart=$prefix/bin/ebpf-gpu-loader daemon " "$prefix/lib/systemd/system/ebpf-gpu-daemon.service" ||
  { echo "FAIL: the unit's ExecStart is not the installed loader"; exit 1; }
echo "installed: tools, header, systemd unit, $(basename "$libdir")/libebpf-gpu.so"
# Only the C API is exported.
exported=$(nm -D --defined-only "$libdir/libebpf-gpu.so" | awk '$2 == "T" {print $3}' | sort)
if grep -v '^ebpf_gpu_' <<<"$exported"; then
  echo "FAIL: symbols other than the API exported (above)"; exit 1
fi
echo "exported: $(wc -l <<<"$exported") functions, all ebpf_gpu_*"
# No DPDK inside: an application brings its own (two in one process break).
if nm "$libdir/libebpf-gpu.so" | grep -q ' rte_eal_init$'; then
  echo "FAIL: libebpf-gpu.so has DPDK in it"; exit 1
fi

# ebpf-gpu's kfuncs from the installed header (docs/KFUNCS.md): the IDS
# and DDoS classifier samples built with clang -target bpf against it, verified and compiled by
# the installed ebpf-gpu-cc.
clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" -I"$prefix/include" \
  -c "$src/../../samples/xdp_ids.c" -o "$work/xdp_ids.o"
"$prefix/bin/ebpf-gpu-cc" "$work/xdp_ids.o" -o "$work/xdp_ids.gpu.o"
clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" -I"$prefix/include" \
  -c "$src/../../samples/xdp_ddos_classify.c" -o "$work/xdp_ddos_classify.o"
"$prefix/bin/ebpf-gpu-cc" "$work/xdp_ddos_classify.o" -o "$work/xdp_ddos_classify.gpu.o"
echo "kfuncs.h: xdp_ids and xdp_ddos_classify built against the installed header and compiled"

# Test programs: maps without keys (queue, stack, bloom filter), metadata and ingress.
clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
  -c "$src/../lit/loader/queue-stack-bloom.c" -o "$work/qsb.o"
clang-19 -O2 -g -target bpf -I/usr/include/"$(gcc -print-multiarch)" \
  -c "$src/xdp_ctx.c" -o "$work/xdp_ctx.o"
# A .gpu.o with global data, opened (the GPU back end runs it on a GPU
# machine: tests/gpu-device/api).
"$prefix/bin/ebpf-gpu-cc" "$samples/xdp_config_count.o" -o "$work/xdp_config_count.gpu.o"

# pkg-config.
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc -std=c11 -Wall -Werror "$src/consumer.c" $(pkg-config --cflags --libs ebpf-gpu) \
  -Wl,-rpath,"$libdir" -o "$work/consumer-pc"
echo "pkg-config: built"
"$work/consumer-pc" "$samples" "$work"

# A skeleton from the installed compiler, the sample on it.
"$prefix/bin/ebpf-gpu-cc" --emit=skeleton "$samples/xdp_config_count.o" \
  -o "$work/xdp_config_count.skel.h"
cc -std=c99 -Wall -Werror -I"$work" "$src/../../samples/xdp_config_count_user.c" \
  $(pkg-config --cflags --libs ebpf-gpu) -Wl,-rpath,"$libdir" -o "$work/skeleton-user"
"$work/skeleton-user" host 6 >"$work/skeleton.out"
grep -qx "packets 600 dropped 90" "$work/skeleton.out" ||
  { echo "FAIL: the skeleton sample's counters:"; cat "$work/skeleton.out"; exit 1; }
echo "skeleton: built on the installed tree, its counters read"

# find_package(ebpf-gpu).
mkdir -p "$work/cmake"
cat >"$work/cmake/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.20)
project(consumer C)
find_package(ebpf-gpu 0.1 REQUIRED)
add_executable(consumer $src/consumer.c)
target_link_libraries(consumer PRIVATE ebpf-gpu::ebpf-gpu)
CMAKE
cmake -S "$work/cmake" -B "$work/cmake/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_RPATH="$libdir" >"$work/cmake.log"
ninja -C "$work/cmake/build" >>"$work/cmake.log"
echo "find_package: built"
"$work/cmake/build/consumer" "$samples" "$work" >/dev/null
echo "find_package: the same checks pass"

# <ebpf-gpu/ebpf-gpu-dpdk.h> from the installed tree, in a DPDK application
# (samples/dpdk_xdp_rx.c) built against this machine's DPDK, where it is.
if pkg-config --exists libdpdk; then
  cc -Wall -Werror "$src/../../samples/dpdk_xdp_rx.c" $(pkg-config --cflags ebpf-gpu libdpdk) \
    $(pkg-config --libs ebpf-gpu libdpdk) -Wl,-rpath,"$libdir" -o "$work/dpdk_xdp_rx"
  echo "ebpf-gpu-dpdk.h: a DPDK application built"
fi

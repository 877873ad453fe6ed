# SPDX-License-Identifier: Apache-2.0
# Sourced by scripts/gpu-check.sh and scripts/bench.sh: builds the loader
# with the DPDK runtime (DPDK linked statically) and without the compiler,
# for the GPU machine, and packs it stripped with the shared libraries
# DPDK's drivers need (Debian's, which run on the newer glibc there) into
# one tar.xz: dpdk_carry OUT.tar.xz. Unpack there and run with
# LD_LIBRARY_PATH=DIR/lib DIR/ebpf-gpu-loader.
dpdk_carry() {
  local tarball=$1 dir=build-gpu-dpdk/carry
  cmake -S . -B build-gpu-dpdk -G Ninja -DEBPF_GPU_WITH_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" >/dev/null
  ninja -C build-gpu-dpdk ebpf-gpu-loader
  rm -rf "$dir" && mkdir -p "$dir/lib"
  strip -o "$dir/ebpf-gpu-loader" build-gpu-dpdk/tools/ebpf-gpu-loader
  ldd build-gpu-dpdk/tools/ebpf-gpu-loader | awk '$3 ~ /^\// {print $3}' |
    grep -vE '/(libc|libm|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' | xargs -r cp -L -t "$dir/lib/"
  strip "$dir"/lib/*
  tar -cJf "$tarball" -C "$dir" .
}

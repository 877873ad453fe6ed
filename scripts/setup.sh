#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every build and test dependency of ebpf-gpu from Debian's packages.
# Idempotent: packages already present are left alone, so a second run is quick.
set -euo pipefail

# libsystemd-dev: DPDK is linked statically (pkg-config --static libdpdk),
# and libpcap's static dependencies (dbus) ask for -lsystemd. iproute2: the
# runtime's veth tests make network namespaces with ip(8).
PKGS=(
  build-essential cmake ninja-build ccache pkg-config python3 iproute2
  llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev
  libbpf-dev libelf-dev zlib1g-dev libzstd-dev
  libdpdk-dev libpcap-dev libsystemd-dev libgtest-dev bpftool
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ -x /usr/local/cuda/bin/ptxas ]]; then
  echo "setup: CUDA toolkit at /usr/local/cuda"
else
  echo "setup: no CUDA toolkit at /usr/local/cuda (GPU build parts and ptxas tests are skipped)"
fi

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs every build and test dependency of ebpf-gpu from Debian's packages.
# Idempotent: packages already present are left alone, so a second run is quick.
set -euo pipefail

# libsystemd-dev: DPDK is linked statically (pkg-config --static libdpdk),
# and libpcap's static dependencies (dbus) ask for -lsystemd. iproute2: the
# runtime's veth tests make network namespaces with ip(8). python3-sklearn:
# scripts/model-from-sklearn.py and its test (lit feature sklearn).
PKGS=(
  build-essential cmake ninja-build ccache pkg-config python3 iproute2 git ca-certificates
  llvm-19-dev llvm-19-tools clang-19 libclang-rt-19-dev
  libbpf-dev libelf-dev zlib1g-dev libzstd-dev
  libdpdk-dev libpcap-dev libsystemd-dev libgtest-dev bpftool python3-sklearn
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

# CUDA 13's ptxas no longer assembles for sm_70 (Volta), the compiler's
# default target. Debian's CUDA 11.8 toolkit (non-free component) still does:
# only its ptxas is taken, from the package file, into a folder of our own.
LEGACY_PTXAS_DIR=${EBPF_GPU_LEGACY_PTXAS_DIR:-/opt/ebpf-gpu-deps/cuda-11.8}
fetch_legacy_ptxas() {
  local tmp archive codename
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
  # The archive this machine already uses for its main component.
  archive=$(grep -h -m1 '^URIs:' /etc/apt/sources.list.d/debian.sources 2>/dev/null | awk '{print $2}')
  [[ -n $codename && -n $archive ]] || return 1
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: non-free\nSigned-By: %s\n' \
    "$archive" "$codename" /usr/share/keyrings/debian-archive-keyring.gpg >"$tmp/nonfree.sources"
  mkdir -p "$tmp/lists/partial"
  local apt_opts=(-o Dir::Etc::SourceList="$tmp/nonfree.sources" -o Dir::Etc::SourceParts=/dev/null
                  -o Dir::State::Lists="$tmp/lists" -o APT::Sandbox::User=root)
  apt-get "${apt_opts[@]}" update -qq >/dev/null 2>&1 || return 1
  (cd "$tmp" && apt-get "${apt_opts[@]}" download -qq nvidia-cuda-toolkit >/dev/null 2>&1) || return 1
  dpkg-deb --fsys-tarfile "$tmp"/nvidia-cuda-toolkit_*.deb | tar -x -C "$tmp" ./usr/bin/ptxas || return 1
  "$tmp/usr/bin/ptxas" --version >/dev/null || return 1
  mkdir -p "$LEGACY_PTXAS_DIR/bin"
  install -m 0755 "$tmp/usr/bin/ptxas" "$LEGACY_PTXAS_DIR/bin/ptxas"
}
if [[ -x $LEGACY_PTXAS_DIR/bin/ptxas ]]; then
  :
elif [[ $(id -u) -eq 0 ]] && fetch_legacy_ptxas; then
  echo "setup: CUDA 11.8 ptxas (sm_70 checks) at $LEGACY_PTXAS_DIR/bin"
else
  echo "setup: no CUDA 11.8 ptxas (Debian non-free nvidia-cuda-toolkit); sm_70 ptxas checks are skipped"
fi

# The kernel oracle's tests pin programs in a BPF filesystem: mount one
# where the machine has none (root only; they are skipped otherwise).
if [[ $(id -u) -eq 0 && -d /sys/fs/bpf ]] && ! mountpoint -q /sys/fs/bpf; then
  if mount -t bpf bpf /sys/fs/bpf 2>/dev/null; then
    echo "setup: mounted a BPF filesystem at /sys/fs/bpf (kernel differential tests)"
  else
    echo "setup: cannot mount a BPF filesystem at /sys/fs/bpf; kernel differential tests are skipped"
  fi
fi

# The bpf_conformance suite (Alan-Jowett/bpf_conformance, MIT), a pinned
# dependency as in ubpf: this workplace's copy at ../shared/conformance where
# it exists, otherwise the upstream repository at the pinned commit in
# .deps/bpf_conformance (the build assembles its programs with the suite's own
# assembler). Without either the conformance tests fail, saying so.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CONFORMANCE_COMMIT=f558566280d8e76c95a502cfd8014264d8668130
CONFORMANCE_URL=${EBPF_GPU_CONFORMANCE_URL:-https://github.com/Alan-Jowett/bpf_conformance.git}
CONFORMANCE_DIR=$ROOT/.deps/bpf_conformance
fetch_conformance() {
  local tmp=$CONFORMANCE_DIR.tmp
  rm -rf "$tmp"
  mkdir -p "$tmp"
  git -C "$tmp" init -q &&
    git -C "$tmp" fetch -q --depth 1 "$CONFORMANCE_URL" "$CONFORMANCE_COMMIT" 2>/dev/null &&
    git -C "$tmp" -c advice.detachedHead=false checkout -q FETCH_HEAD &&
    [[ $(git -C "$tmp" rev-parse HEAD) == "$CONFORMANCE_COMMIT" ]] || { rm -rf "$tmp"; return 1; }
  rm -rf "$CONFORMANCE_DIR"
  mv "$tmp" "$CONFORMANCE_DIR"
}
if [[ -d $ROOT/../shared/conformance/tests ]]; then
  :
elif [[ -d $CONFORMANCE_DIR/.git ]] &&
     [[ $(git -C "$CONFORMANCE_DIR" rev-parse HEAD 2>/dev/null) == "$CONFORMANCE_COMMIT" ]]; then
  :
elif fetch_conformance; then
  echo "setup: bpf_conformance ${CONFORMANCE_COMMIT:0:7} fetched into .deps/bpf_conformance"
else
  echo "setup: cannot fetch bpf_conformance from $CONFORMANCE_URL: the conformance tests will fail" \
       "(set EBPF_GPU_CONFORMANCE_URL to a reachable copy, or configure -DEBPF_GPU_CONFORMANCE_DIR=DIR)"
fi

if [[ -x /usr/local/cuda/bin/ptxas ]]; then
  echo "setup: CUDA toolkit at /usr/local/cuda"
else
  echo "setup: no CUDA toolkit at /usr/local/cuda (GPU build parts and ptxas tests are skipped)"
fi

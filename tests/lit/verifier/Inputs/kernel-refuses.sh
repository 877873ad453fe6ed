#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Asks the running kernel's verifier about an object: exit 0 when the kernel
# refuses to load it (as expected for an unsafe program), 1 when it accepts.
# Pins nothing it leaves behind.
obj=$1
pin=/sys/fs/bpf/ebpf_gpu_lit_$$
if bpftool prog load "$obj" "$pin" type xdp >/dev/null 2>&1; then
  rm -f "$pin"
  echo "the kernel ACCEPTED $obj"
  exit 1
fi
echo "the kernel refused $obj"
exit 0

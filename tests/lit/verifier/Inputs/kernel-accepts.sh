#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Asks the running kernel's verifier about an object: exit 0 when it loads
# (as expected for a safe program), 1 when the kernel refuses it (its log
# follows). Pins nothing it leaves behind.
obj=$1
pin=/sys/fs/bpf/ebpf_gpu_lit_ok_$$
if out=$(bpftool prog load "$obj" "$pin" type xdp 2>&1); then
  rm -f "$pin"
  exit 0
fi
echo "the kernel REFUSED $obj:"
echo "$out" | tail -15
exit 1

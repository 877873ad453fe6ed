#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Asks the running kernel's verifier about an object: exit 0 when the
# kernel's verifier refuses it (as expected for an unsafe program), 1 when
# the kernel accepts it, 2 when libbpf could not even open the object (then
# the kernel was never asked). Pins nothing it leaves behind.
obj=$1
pin=/sys/fs/bpf/ebpf_gpu_lit_$$
if out=$(bpftool prog load "$obj" "$pin" type xdp 2>&1); then
  rm -f "$pin"
  echo "the kernel ACCEPTED $obj"
  exit 1
fi
if grep -q -e "BEGIN PROG LOAD LOG" -e "failed to load program" <<<"$out"; then
  echo "the kernel's verifier refused $obj"
  exit 0
fi
echo "the kernel was not asked: libbpf could not open $obj:"
echo "$out" | head -5
exit 2

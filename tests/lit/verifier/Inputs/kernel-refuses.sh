#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Asks the running kernel's verifier about an object: exit 0 when the
# kernel's verifier refuses it (as expected for an unsafe program), 1 when
# the kernel accepts it, 2 when libbpf could not even open the object (then
# the kernel was never asked). Pins nothing it leaves behind. The program
# is loaded as XDP (attach type BPF_XDP); with --by-section as libbpf
# types it by its section (xdp/devmap: BPF_XDP_DEVMAP). With --reason TEXT
# the kernel's log must say TEXT (exit 1 with the log when it refused for
# another reason), so a test shows both verifiers refuse for the same one.
obj=$1
shift
type=(type xdp)
reason=
while (($#)); do
  case $1 in
  --by-section) type=() ;;
  --reason) reason=${2:?--reason needs a text}; shift ;;
  *) echo "kernel-refuses.sh: unknown argument '$1'"; exit 2 ;;
  esac
  shift
done
pin=/sys/fs/bpf/ebpf_gpu_lit_$$
if out=$(bpftool prog load "$obj" "$pin" "${type[@]}" 2>&1); then
  rm -f "$pin"
  echo "the kernel ACCEPTED $obj"
  exit 1
fi
if grep -q -e "BEGIN PROG LOAD LOG" -e "failed to load program" <<<"$out"; then
  if [[ -n $reason ]] && ! grep -qF -- "$reason" <<<"$out"; then
    echo "the kernel's verifier refused $obj, but not with '$reason':"
    echo "$out" | tail -15
    exit 1
  fi
  echo "the kernel's verifier refused $obj${reason:+: $reason}"
  exit 0
fi
echo "the kernel was not asked: libbpf could not open $obj:"
echo "$out" | head -5
exit 2

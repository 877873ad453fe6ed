#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Real-world XDP objects (issue 5) through ebpf-gpu and the kernel, from
# sources the user has at hand (no network; none of their code is in this
# repository): xdp-tutorial's packet solutions, xdp-tools' xdp-filter, the
# kernel's samples/bpf, Katran's balancer. Each object is built with
# clang-19 -O2 -g -target bpf as its project does (small stand-ins for
# build-tree headers come from scripts/realworld.py stubs), then each of
# its XDP programs is verified and compiled to PTX and the host by
# ebpf-gpu-cc (its PTX assembled by ptxas for sm_90 where the CUDA toolkit
# is), and run by ebpf-gpu-loader on the host back end and on the
# kernel (BPF_PROG_TEST_RUN, root) over the same generated traffic:
# verdicts, output bytes and maps are compared packet for packet
# (tests/lit/loader/Inputs/differential.py). Objects with legacy "maps"
# definitions run on the kernel from the same source with BTF-defined maps
# (libbpf 1.x cannot load the legacy form); ebpf-gpu runs the original.
#
#   scripts/realworld.sh SRC [BUILD]
#
# SRC holds the checkouts (any that are missing are reported and skipped):
#   SRC/xdp-tutorial  (xdp-project/xdp-tutorial)
#   SRC/xdp-tools     (xdp-project/xdp-tools)
#   SRC/linux         (torvalds/linux: samples/bpf)
#   SRC/katran        (facebookincubator/katran)
# BUILD is the build tree with the tools (default build/). Work files go
# to $RW_WORK (default /tmp/ebpf-gpu-realworld). Prints one line per
# program; exits 1 if any program that verifies on both sides differs.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ ! -d "$1" ]; then
  echo "usage: scripts/realworld.sh SRC [BUILD]  (SRC: a directory of checkouts)" >&2
  exit 2
fi
SRC=$(cd "$1" && pwd)
BUILD=${2:-build}
CC=$BUILD/tools/ebpf-gpu-cc
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
LOADER=$BUILD/tools/ebpf-gpu-loader
TRAFGEN=$BUILD/tools/ebpf-gpu-trafgen
for t in "$CC" "$LOADER" "$TRAFGEN"; do
  [ -x "$t" ] || { echo "realworld: $t is not built (ninja -C $BUILD ebpf-gpu-cc ebpf-gpu-loader ebpf-gpu-trafgen)" >&2; exit 2; }
done
W=${RW_WORK:-/tmp/ebpf-gpu-realworld}
rm -rf "$W" && mkdir -p "$W/obj" "$W/diff" "$W/stubs" && : >"$W/manifest"
python3 scripts/realworld.py stubs "$W/stubs"
"$TRAFGEN" -o "$W/traffic.pcap" --count 3000 --seed 11 >/dev/null
python3 scripts/realworld.py map-files "$W/traffic.pcap" "$W/maps"

CFLAGS=(-O2 -g -target bpf -Wno-compare-distinct-pointer-types -Wno-macro-redefined
        -I"$W/stubs" -I/usr/include/x86_64-linux-gnu)
KTREE=(-I"$W/stubs/ktree")
# samples/bpf/*.bpf.c include vmlinux.h: the running kernel's, from its BTF.
VMLINUX=(-D__TARGET_ARCH_x86 -I"$W/vmlinux" -I/usr/include/bpf)
mkdir -p "$W/vmlinux"
bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$W/vmlinux/vmlinux.h" 2>/dev/null ||
  echo "realworld: no /sys/kernel/btf/vmlinux: the vmlinux.h samples will not build" >&2
# xdp_sample.bpf.c's counters, sized as its user space does for 64 CPUs.
SAMPLE_SIZES="--map-size rx_cnt=64 --map-size redir_err_cnt=448 --map-size cpumap_enqueue_cnt=4096 --map-size cpumap_kthread_cnt=64 --map-size exception_cnt=448"
# name | source under SRC | extra clang flags | programs | map file (FILE, or
# PROG=FILE entries) | arguments for ebpf-gpu-cc and the loader | a --mask
# regular expression for map dump lines holding clock values
OBJECTS=(
  "tutorial-packet02|xdp-tutorial/packet-solutions/xdp_prog_kern_02.c|-I/usr/include/bpf|xdp_patch_ports_func xdp_vlan_swap_func||"
  "tutorial-packet03|xdp-tutorial/packet-solutions/xdp_prog_kern_03.c|-I/usr/include/bpf -include $W/stubs/legacy_map_def.h|xdp_icmp_echo_func xdp_redirect_func xdp_redirect_map_func xdp_router_func|xdp_redirect_map_func=xdp-tutorial-redirect.maps|"
  "xdpfilt_alw_all|xdp-tools/xdp-filter/xdpfilt_alw_all.c|-I$SRC/xdp-tools/headers -include bpf/bpf_endian.h|xdpfilt_alw_all|xdp-filter.maps|"
  "xdpfilt_dny_all|xdp-tools/xdp-filter/xdpfilt_dny_all.c|-I$SRC/xdp-tools/headers -include bpf/bpf_endian.h|xdpfilt_dny_all|xdp-filter.maps|"
  "linux-xdp1|linux/samples/bpf/xdp1_kern.c|KTREE|xdp_prog1||"
  "linux-xdp2|linux/samples/bpf/xdp2_kern.c|KTREE|xdp_prog1||"
  "linux-xdp_adjust_tail|linux/samples/bpf/xdp_adjust_tail_kern.c|KTREE|_xdp_icmp||"
  "linux-xdp_tx_iptunnel|linux/samples/bpf/xdp_tx_iptunnel_kern.c|KTREE|_xdp_tx_iptunnel|xdp_tx_iptunnel.maps|"
  "linux-xdp_fwd|linux/samples/bpf/xdp_fwd_kern.c|KTREE|xdp_fwd_prog xdp_fwd_direct_prog|xdp_fwd.maps|"
  # The newer samples: vmlinux.h of the running kernel, each linked with
  # xdp_sample.bpf.c (bpftool gen object, as the kernel's Makefile does),
  # whose counter maps user space sizes before load.
  "linux-xdp_router_ipv4|linux/samples/bpf/xdp_router_ipv4.bpf.c+linux/samples/bpf/xdp_sample.bpf.c|VMLINUX|xdp_router_ipv4_prog|xdp_router_ipv4.maps|$SAMPLE_SIZES|"
  "linux-xdp_redirect_map|linux/samples/bpf/xdp_redirect_map.bpf.c+linux/samples/bpf/xdp_sample.bpf.c|VMLINUX|xdp_redirect_map_general xdp_redirect_map_native xdp_redirect_map_egress|xdp_redirect_map_general=xdp_redirect_map_general.maps xdp_redirect_map_native=xdp_redirect_map_native.maps|$SAMPLE_SIZES|"
  # Katran's build: its own bpf.h/bpf_helpers.h (stand-ins), jhash.h, and
  # the clang of its day (memcpy without <string.h>). lru_mapping is filled
  # by Katran's user space with per-CPU LRU maps shaped as fallback_cache.
  "katran-balancer|katran/katran/lib/bpf/balancer_kern.c|-I$W/stubs/katran -I$SRC/katran -I$SRC/katran/katran/lib/bpf -I$SRC/katran/katran/lib/linux_includes -DQUIC_CONNID_VERSION=1 -Wno-implicit-function-declaration -Wno-incompatible-pointer-types|balancer_ingress|katran.maps|--inner-map lru_mapping=fallback_cache|^(stats\[514\] = [0-9a-f]{16}).*$"
)
[ -n "${RW_EXTRA_OBJECTS:-}" ] && mapfile -t -O "${#OBJECTS[@]}" OBJECTS < "$RW_EXTRA_OBJECTS"

failures=0
for entry in "${OBJECTS[@]}"; do
  IFS='|' read -r name rel extra progs mapfile largs mask <<<"$entry"
  # SRC_A+SRC_B...: each built, then linked into one object (bpftool).
  IFS='+' read -ra rels <<<"$rel"
  src=$SRC/${rels[0]}
  missing=
  for r in "${rels[@]}"; do [ -f "$SRC/$r" ] || missing=$r; done
  if [ -n "$missing" ]; then
    echo "$name: skipped: $missing not under $SRC"
    continue
  fi
  flags=("${CFLAGS[@]}")
  case $extra in
    KTREE) flags+=("${KTREE[@]}") ;;
    VMLINUX) flags+=("${VMLINUX[@]}") ;;
    *) read -ra more <<<"$extra"; flags+=("${more[@]}") ;;
  esac
  obj=$W/obj/$name.o
  parts=()
  for r in "${rels[@]}"; do
    part=$W/obj/$name.$(basename "$r" .c).part.o
    [ ${#rels[@]} -eq 1 ] && part=$obj
    if ! clang-19 "${flags[@]}" -I"$(dirname "$SRC/$r")" -c "$SRC/$r" -o "$part" 2>"$W/obj/$name.clang.log"; then
      echo "$name: clang failed on $r: $(grep -m1 error "$W/obj/$name.clang.log")"
      parts=()
      break
    fi
    parts+=("$part")
  done
  if [ ${#parts[@]} -eq 0 ]; then
    failures=$((failures + 1))
    continue
  fi
  if [ ${#rels[@]} -gt 1 ] && ! bpftool gen object "$obj" "${parts[@]}" 2>"$W/obj/$name.link.log"; then
    echo "$name: bpftool gen object failed: $(head -1 "$W/obj/$name.link.log")"
    failures=$((failures + 1))
    continue
  fi
  kobj=$obj
  if grep -q 'SEC("maps")' "$src"; then
    kobj=$W/obj/$name.btfmaps.o
    python3 scripts/realworld.py btf-maps "$src" >"$W/obj/$name.btfmaps.c" 2>/dev/null &&
      clang-19 "${flags[@]}" -I"$(dirname "$src")" -c "$W/obj/$name.btfmaps.c" -o "$kobj" \
        2>"$W/obj/$name.btfmaps.log" || { echo "$name: the BTF-maps build for the kernel failed"; kobj=; }
  fi
  for prog in $progs; do
    ours=ok
    read -ra tool_args <<<"$largs"
    if ! "$CC" "$obj" --section "$prog" --target=sm_90 "${tool_args[@]}" -o "$W/obj/$name.$prog.gpu.o" \
        >"$W/obj/$name.$prog.cc.log" 2>&1; then
      ours="refused: $(grep -m1 'error' "$W/obj/$name.$prog.cc.log")"
    fi
    # The PTX assembled for the H100/H200 where the CUDA toolkit is here.
    if [ "$ours" = ok ] && [ -x "$PTXAS" ]; then
      if "$CC" "$obj" --section "$prog" "${tool_args[@]}" --emit=ptx --target=sm_90 \
            -o "$W/obj/$name.$prog.ptx" >/dev/null 2>&1 &&
          "$PTXAS" -arch=sm_90 "$W/obj/$name.$prog.ptx" -o "$W/obj/$name.$prog.cubin" \
            >"$W/obj/$name.$prog.ptxas.log" 2>&1; then
        ours="ok, ptxas sm_90 ok"
      else
        ours="ok, but ptxas sm_90 refused the PTX: $(head -1 "$W/obj/$name.$prog.ptxas.log")"
      fi
    fi
    line="$name $prog: ebpf-gpu-cc $ours"
    progmap=
    for m in $mapfile; do
      case $m in
        "$prog="*) progmap=$W/maps/${m#*=} ;;
        *=*) ;;
        *) progmap=$W/maps/$m ;;
      esac
    done
    # What scripts/gpu-check.sh prepare-realworld stages for the GPU.
    [ "${ours%%,*}" = ok ] && echo "$name|$prog|$progmap|$largs|$mask" >>"$W/manifest"
    if [ -z "$kobj" ]; then
      echo "$line; kernel not run"
      continue
    fi
    spec=$obj
    [ "$kobj" != "$obj" ] && spec="$obj,$kobj"
    spec="$spec:$prog"
    [ -n "$progmap" ] && spec="$spec+$progmap"
    extra_args=()
    for a in "${tool_args[@]}"; do extra_args+=(--loader-arg="$a"); done
    [ -n "$mask" ] && extra_args+=(--mask "$mask")
    out=$(python3 tests/lit/loader/Inputs/differential.py --loader "$LOADER" \
      --pcap "$W/traffic.pcap" --work "$W/diff/$name" "${extra_args[@]}" "$spec" 2>&1)
    rc=$?
    if [ $rc -eq 0 ]; then
      echo "$line; ${out##*$'\n'}"
    else
      why=$(grep -m1 -E 'error|differ' <<<"$out")
      echo "$line; host/kernel: ${why:-$out}"
      [ "${ours%%,*}" = ok ] && failures=$((failures + 1))
    fi
  done
done
# The programs that call bpf_fib_lookup, again in a network namespace with
# routes, neighbours and links (tests/lit/loader/Inputs/fib-netns.py, the
# table of Inputs/fib.fib): the kernel looks up there, the host back end in
# the same table given as --fib, over traffic to every kind of route.
FIB=()
for spec in "linux-xdp_fwd:xdp_fwd_prog:xdp_fwd.maps" "linux-xdp_fwd:xdp_fwd_direct_prog:xdp_fwd.maps" \
            "tutorial-packet03:xdp_router_func:xdp-tutorial-router.maps"; do
  IFS=: read -r name prog maps <<<"$spec"
  [ -f "$W/obj/$name.o" ] || continue
  kobj=$W/obj/$name.o
  [ -f "$W/obj/$name.btfmaps.o" ] && kobj=$W/obj/$name.btfmaps.o
  FIB+=("$W/obj/$name.o,$kobj:$prog+$W/maps/$maps")
done
if [ ${#FIB[@]} -gt 0 ]; then
  mkdir -p "$W/fib"
  if ! python3 tests/lit/loader/Inputs/fib-netns.py progs "$LOADER" tests/lit/loader/Inputs/fib.fib \
      "$W/fib" "${FIB[@]}" >"$W/fib/log" 2>&1; then
    failures=$((failures + 1))
  fi
  sed 's/^/bpf_fib_lookup in a namespace: /' "$W/fib/log"
fi
[ $failures -eq 0 ] || { echo "realworld: $failures failure(s); work files in $W"; exit 1; }

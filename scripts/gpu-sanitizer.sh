#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# compute-sanitizer's memcheck over the GPU test runs (issue 8), on the GPU
# machine with .gpu-carry (scripts/gpu-check.sh prepare) carried:
#   - every sample of .gpu-carry/samples/list on 5,000 generated packets in
#     one batch and in batches of 256 through launch:copy, launch:mapped,
#     persistent:copy and persistent:mapped, its verdicts still the host's;
#   - the bpf_conformance programs from their precompiled .gpu.o files.
# Kernels run many times slower under memcheck: the watchdog is 10 minutes.
# Each process writes its own memcheck log (--log-file), so what the tools
# print is left as it is; a run passes when its exit status is 0 and every
# log ends in "ERROR SUMMARY: 0 errors". Usage: scripts/gpu-sanitizer.sh
# [OUT_DIR]. CS overrides the compute-sanitizer binary, SANITIZER_MODES the
# runs of each sample (default: one launch:copy launch:mapped
# persistent:copy persistent:mapped).
set -uo pipefail
cd "$(dirname "$0")/.."
CARRY=.gpu-carry
out=${1:-${OUT:-/tmp/gpu-sanitizer}}
bin=$CARRY/bin s=$CARRY/samples
CS=${CS:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[[ -x $CS ]] || { echo "gpu-sanitizer: no compute-sanitizer at $CS" >&2; exit 2; }
[[ -f $s/list ]] || { echo "gpu-sanitizer: $CARRY is missing: run 'scripts/gpu-check.sh prepare' and carry it" >&2; exit 2; }
logs=/tmp/gpu-sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs" "$out"
# API calls that fail by design (probing a module for optional globals:
# cuModuleGetGlobal's CUDA_ERROR_NOT_FOUND) are not memory errors.
memcheck=("$CS" --tool memcheck --leak-check no --report-api-errors no --error-exitcode 99
  --log-file "$logs/%p.log")
traffic=/tmp/gpu-sanitizer.pcap
"$bin/ebpf-gpu-trafgen" -o "$traffic" --count 5000 --seed 3 >/dev/null
status=0 runs=0
while read -r prog; do
  maps=()
  [[ -f samples/$prog.maps ]] && maps=(--map-file "samples/$prog.maps")
  "$bin/ebpf-gpu-loader" run "$s/$prog.gpu.o" --pcap "$traffic" "${maps[@]}" \
    --verdicts "/tmp/$prog.plain.txt" >/dev/null 2>&1 || { echo "$prog: plain run failed"; status=1; }
  for how in ${SANITIZER_MODES:-one launch:copy launch:mapped persistent:copy persistent:mapped}; do
    args=()
    [[ $how != one ]] && args=(--batch 256 --gpu-mode "${how%%:*}" --gpu-data "${how##*:}")
    runs=$((runs + 1))
    if ! "${memcheck[@]}" "$bin/ebpf-gpu-loader" run "$s/$prog.gpu.o" --pcap "$traffic" "${maps[@]}" \
        "${args[@]}" --watchdog-ms 600000 --verdicts "/tmp/$prog.cs.txt" >/dev/null \
        2>"$out/$prog.$how.err"; then
      echo "$prog $how: memcheck run FAILED (exit or errors; $out/$prog.$how.err)"
      status=1
    elif ! cmp -s "/tmp/$prog.cs.txt" "/tmp/$prog.plain.txt"; then
      echo "$prog $how: verdicts under memcheck differ from the plain run"
      status=1
    fi
  done
done <"$s/list"
echo "samples: $runs memcheck runs"
# The conformance programs: the loader is the plugin; memcheck's report
# goes to the logs, so the plugin's output is what the runner parses.
cat >/tmp/gpu-sanitizer-plugin <<SH
#!/bin/sh
exec ${memcheck[*]} $PWD/$bin/ebpf-gpu-loader "\$@"
SH
chmod +x /tmp/gpu-sanitizer-plugin
python3 "$CARRY/run-conformance.py" --plugin /tmp/gpu-sanitizer-plugin \
  --suite "$CARRY/conformance" --gpu-objects "$CARRY/conformance" --jobs 8 >"$out/conformance.txt" 2>&1 ||
  status=1
tail -3 "$out/conformance.txt"
echo "memcheck findings by kind (all logs):"
grep -h "^========= [A-Z]" "$logs"/*.log | grep -v "COMPUTE-SANITIZER\|ERROR SUMMARY" | sed 's/ at 0x.*//' |
  sort | uniq -c | sort -rn | head -10
total=$(ls "$logs" | wc -l)
clean=$(grep -l "ERROR SUMMARY: 0 errors" "$logs"/*.log | wc -l)
echo "memcheck: $clean of $total process logs say 'ERROR SUMMARY: 0 errors'"
if [[ $clean != "$total" ]]; then
  status=1
  for f in $(grep -L "ERROR SUMMARY: 0 errors" "$logs"/*.log | head -5); do
    echo "== $f"
    head -40 "$f"
  done
fi
[[ $status == 0 ]] && echo "gpu-sanitizer: memcheck clean" || echo "gpu-sanitizer: FAILED"
exit $status

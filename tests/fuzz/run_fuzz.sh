#!/usr/bin/env bash
# run_fuzz.sh MODE FUZZER CORPUS WORK
#   MODE = regression: every file of CORPUS once; MODE = N: fuzz for N seconds starting from CORPUS
#   (new inputs go to WORK/corpus, never into the source tree; crashes to WORK/crash-*).
# Prints the executions and findings; exits non-zero on a finding.
set -uo pipefail
mode=$1 fuzzer=$2 corpus=$3 work=$4
mkdir -p "$work/corpus"
if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus" 2>/dev/null)" ]; then
  echo "run_fuzz: no corpus at $corpus" >&2
  exit 1
fi
common=(-artifact_prefix="$work/" -print_final_stats=1 -timeout=20 -rss_limit_mb=4096 -max_len=4096)
if [ "$mode" = regression ]; then
  "$fuzzer" "${common[@]}" -runs=0 "$corpus" > "$work/log" 2>&1
else
  "$fuzzer" "${common[@]}" -seed=1 -max_total_time="$mode" "$work/corpus" "$corpus" > "$work/log" 2>&1
fi
rc=$?
execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$' | tail -1)
echo "$(basename "$fuzzer") $mode: ${execs:-?} executions, exit $rc"
if [ $rc -ne 0 ]; then
  grep -m1 -A2 "vlak fuzz finding" "$work/log"; grep -m3 -E "ERROR: AddressSanitizer|runtime error|SUMMARY: [A-Z]" "$work/log"
  ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* 2>/dev/null
  echo "(full log: $work/log)"
fi
exit $rc

#!/usr/bin/env bash
# The many-core run, from an unpacked kit (scripts/manycore/kit): results in $OUT (default
# ./vlak-results). Each step has a time limit, so one slow step cannot eat the machine's time.
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/vlak-results}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
{ date -u; uname -a; nproc; lscpu; grep -E 'MemTotal' /proc/meminfo; } >"$out/machine.txt" 2>&1
"$here/bin/vlak" info >"$out/info.txt" 2>&1
timeout "${SCALE_SECONDS:-300}" "$here/bin/vlak" bench --suite "${SUITE:-scale}" --min-time "${MIN_TIME:-0.05}" --json "$out/scale.json" \
  --csv "$out/scale.csv" >"$out/scale.txt" 2>&1
echo "scale suite: exit $?" >>"$out/machine.txt"
timeout "${TORCH_SECONDS:-200}" "${PYTHON:-python3}" "$here/torch_compare.py" "$here/lib/libvlak.so" \
  --threads "${TORCH_THREADS:-1,4,8,16}" >"$out/torch.txt" 2>&1
echo "torch comparison: exit $?" >>"$out/machine.txt"
tail -n 3 "$out/scale.txt" "$out/torch.txt"

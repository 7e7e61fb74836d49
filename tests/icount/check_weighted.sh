#!/usr/bin/env bash
# Check the qemu-icount plugin's weighted cycles (costs=, vlen=) against icount_weighted_loop.c,
# whose region's instructions are known, with a cost table written here.
#
#   check_weighted.sh PLUGIN_SO PROG_BINARY QEMU_CMD...   (QEMU_CMD at VLEN 256)
#
# The table has two models; only the one whose VLEN is the plugin's vlen= (256) may be used. Its
# costs: addi 1, bnez/bne 2 (qemu may print either), vsetivli 4, vsetvl 8, vfadd.vv at e32 m8 16,
# vadd.vv at e8 mf2 32 (and at e32 m8 64, a vtype the program does not use there); xor has none.
#   cycles = 1 (li) + 4 + 100 x (16 + 1 + 2) + 4 + 32 + 1 (li) + 8 = 1950
# The vadd.vv after vsetvl runs under a vtype the plugin cannot read (unknown_vtype=1), the xor has
# no cost (uncosted=1); neither is in cycles.
set -euo pipefail
[ "$#" -ge 3 ] || { echo "usage: $0 PLUGIN_SO PROG_BINARY QEMU_CMD..." >&2; exit 2; }
plugin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
prog=$2
shift 2
fail() { echo "check_weighted: FAIL: $*" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/weighted.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t=$'\t'
{
  echo "# test table: the second column is the model at VLEN 256"
  echo "models${t}other/128${t}test-model/256"
  for row in "addi - 1000 1" "bnez - 1000 2" "bne - 1000 2" "vsetivli - 1000 4" "vsetvl - 1000 8" \
             "vfadd.vv e32m8 1000 16" "vadd.vv e8mf2 1000 32" "vadd.vv e32m8 1000 64"; do
    read -r mn vt c1 c2 <<<"$row"
    echo "cost${t}${mn}${t}${vt}${t}${c1}${t}${c2}"
  done
} >"$tmp/costs.tsv"

"$@" -plugin "$plugin,out=$tmp/out,costs=$tmp/costs.tsv,vlen=256,hist=$tmp/hist" "$prog" >/dev/null ||
  fail "'$* ... $prog' failed"
line=$(grep '^vlak-icount ' "$tmp/out") || fail "no result line"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }
[ -z "$(field error)" ] || fail "plugin reported error=$(field error) ($line)"
[ "$(field region)" = 308 ] || fail "region=$(field region), expected 308 ($line)"
[ "$(field model)" = test-model ] || fail "model=$(field model), expected test-model ($line)"
[ "$(field cycles)" = 1950.00 ] || fail "cycles=$(field cycles), expected 1950.00 ($line)
$(cat "$tmp/hist")"
[ "$(field uncosted)" = 1 ] || fail "uncosted=$(field uncosted), expected 1 ($line)"
[ "$(field unknown_vtype)" = 1 ] || fail "unknown_vtype=$(field unknown_vtype), expected 1 ($line)"
grep -q $'^100\tvfadd.vv\te32m8\t16\t' "$tmp/hist" || fail "hist lacks 100 vfadd.vv at e32m8:
$(cat "$tmp/hist")"
echo "check_weighted: OK: $line"

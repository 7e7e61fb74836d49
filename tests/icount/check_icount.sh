#!/usr/bin/env bash
# Check the vlak-icount QEMU plugin against a program with known counts.
#
#   check_icount.sh PLUGIN_SO PROG_BINARY QEMU_CMD...
#   e.g. check_icount.sh libqemu-icount.so icount_known_loop \
#          qemu-riscv64 -L /usr/riscv64-linux-gnu \
#          -cpu rv64,v=true,vlen=128,elen=64,vext_spec=v1.0
#
# PROG_BINARY must be built from icount_known_loop.c and not stripped
# (sym= mode needs its symbol table). Exits 0 only if every count is exact.
set -euo pipefail

if [ "$#" -lt 3 ]; then
    echo "usage: $0 PLUGIN_SO PROG_BINARY QEMU_CMD..." >&2
    exit 2
fi
plugin=$1
prog=$2
shift 2

# Mirrors the constants in icount_known_loop.c.
expect_region=4002          # 2 regions x 2001 instructions
expect_regions=2
expect_sym=3006             # known_loop_fn: 3 calls x 1002 instructions

fail() { echo "check_icount: FAIL: $*" >&2; exit 1; }

[ -f "$plugin" ] || fail "plugin not found: $plugin"
[ -x "$prog" ] || fail "program not found or not executable: $prog"

tmp=$(mktemp "${TMPDIR:-/tmp}/icount.XXXXXX")
trap 'rm -f "$tmp"' EXIT

# QEMU parses -plugin's value as comma-separated options.
case "$tmp" in *,*) fail "temp path contains a comma: $tmp" ;; esac

# QEMU dlopen()s the path as given; a bare file name would not be looked
# up in the current directory.
plugin_abs=$(cd "$(dirname "$plugin")" && pwd)/$(basename "$plugin")

set +e
"$@" -plugin "$plugin_abs,out=$tmp,sym=known_loop_fn" "$prog" >/dev/null
rc=$?
set -e
[ "$rc" -eq 0 ] || fail "'$* ... $prog' exited with status $rc"

nlines=$(grep -c '^vlak-icount ' "$tmp" || true)
[ "$nlines" -eq 1 ] || fail "expected exactly 1 result line, got $nlines: $(cat "$tmp")"
line=$(grep '^vlak-icount ' "$tmp")

# field NAME: value of NAME=<value> in the result line, empty if absent.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$line"; }

err=$(field error)
total=$(field total)
region=$(field region)
regions=$(field regions)
sym=$(field sym:known_loop_fn)

[ -z "$err" ] || fail "plugin reported error=$err ($line)"
for v in total region regions sym; do
    [[ "${!v}" =~ ^[0-9]+$ ]] || fail "cannot parse '$v' from: $line"
done
[ "$regions" -eq "$expect_regions" ] ||
    fail "regions=$regions, expected $expect_regions ($line)"
[ "$region" -eq "$expect_region" ] ||
    fail "region=$region, expected $expect_region ($line)"
if [ "$sym" -ne "$expect_sym" ]; then
    hint=""
    [ "$sym" -eq 0 ] && hint=" (is $prog stripped? sym= needs its symbol table)"
    fail "sym:known_loop_fn=$sym, expected $expect_sym$hint ($line)"
fi
[ "$total" -gt "$region" ] || fail "total=$total not > region=$region ($line)"

echo "check_icount: OK: $line"

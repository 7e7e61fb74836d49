#!/usr/bin/env bash
# Proves scripts/rvv-spill-check can fail (test rvv.spill_check.fixture):
#   check_spill_fixture.sh SPILL_CHECK FIXTURE_LIBRARY
# FIXTURE_LIBRARY is built from spill_fixture.c: the check must exit 1, name
# spill_fixture_spilling as offending and not spill_fixture_clean, and have looked at both loops.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SPILL_CHECK FIXTURE_LIBRARY" >&2; exit 2; }
fail() { echo "check_spill_fixture: FAIL: $*" >&2; exit 1; }

out=$("$1" "$2" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 1 ] || fail "expected exit status 1 (spills found), got $rc"
grep -q '^FAIL spill_fixture_spilling$' <<<"$out" || fail "spill_fixture_spilling not reported as offending"
! grep -q '^FAIL spill_fixture_clean' <<<"$out" || fail "spill_fixture_clean reported as offending"
grep -q 'whole-register vector spill/reload' <<<"$out" || fail "no whole-register spill/reload listed"
summary=$(grep '^rvv-spill-check: ' <<<"$out") || fail "no summary line"
[[ $summary =~ ^rvv-spill-check:\ 2\ functions,\ ([0-9]+)\ loops\ checked,\ 1\ offending\ functions ]] ||
  fail "unexpected summary: $summary"
[ "${BASH_REMATCH[1]}" -ge 2 ] || fail "expected both functions' loops to be checked: $summary"
echo "check_spill_fixture: OK"

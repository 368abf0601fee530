#!/bin/sh
# Runs every integration script and prints the totals as "N passed, N failed".
dir="$(cd "$(dirname "$0")" && pwd)"
total_pass=0
total_fail=0
for t in "$dir"/test_*.sh; do
  echo "== $(basename "$t")"
  out=$(bash "$t" 2>&1)
  status=$?
  echo "$out"
  p=$(echo "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' | tail -n 1)
  f=$(echo "$out" | sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' | tail -n 1)
  total_pass=$((total_pass + ${p:-0}))
  total_fail=$((total_fail + ${f:-0}))
  if [ $status != 0 ] && [ "${f:-0}" = 0 ]; then total_fail=$((total_fail + 1)); echo "FAIL $(basename "$t") exited $status"; fi
done
echo "integration: $total_pass passed, $total_fail failed"
# for the closing line of `make test` (tests/summary.sh)
if [ -n "${DPERM_SUMMARY_FILE:-}" ]; then echo "$total_pass $total_fail" > "$DPERM_SUMMARY_FILE"; fi
[ $total_fail = 0 ]

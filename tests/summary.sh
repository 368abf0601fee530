#!/bin/sh
# The closing line of `make test`: every check it ran, counted from the logs the steps
# left (BUILD/test-logs: the unit tests' Check logs and the integration total; the same
# under build-asan/ for the sanitized unit tests; one check per replayed fuzz input; one
# for memcheck). Run only after every step passed, so it reports 0 failed.
#   tests/summary.sh BUILD ASAN_BUILD FUZZ_LOG
set -u
build=$1 asan=$2 fuzz=$3
checks() { # the Checks of every Check log in $1, and their failures and errors
  cat "$1"/test-logs/*.log 2>/dev/null |
    sed -n 's/^[0-9]*%: Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\)$/\1 \2 \3/p' |
    awk '{c += $1; f += $2 + $3} END {print c + 0, f + 0}'
}
set -- $(checks "$build")
unit=$1 unit_bad=$2
set -- $(checks "$asan")
asan_n=$1 asan_bad=$2
set -- $(cat "$build/test-logs/integration.total" 2>/dev/null || echo "0 1")
integ=$1 integ_bad=$2
replays=$(sed -n 's/.*replayed \([0-9]*\) inputs$/\1/p' "$fuzz" 2>/dev/null | awk '{s += $1} END {print s + 0}')
passed=$((unit - unit_bad + asan_n - asan_bad + integ + replays + 1))
failed=$((unit_bad + asan_bad + integ_bad))
echo "     (unit $unit, sanitized unit $asan_n, integration $integ, fuzz replays $replays, memcheck 1)"
echo "total: $passed passed, $failed failed"
[ "$failed" = 0 ]

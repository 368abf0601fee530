# lib.sh: helpers for the integration scripts. Each script sources this, calls `pass` or
# `fail` per check, and ends with `finish`, which prints "N passed, N failed".
set -u
: "${DPERM:?set DPERM to the dperm binary}"
FIX="$(cd "$(dirname "$0")/../fixtures/integration" && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dperm-it.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
NPASS=0
NFAIL=0
pass() { NPASS=$((NPASS + 1)); echo "ok   $*"; }
fail() { NFAIL=$((NFAIL + 1)); echo "FAIL $*"; }
# check NAME COMMAND...: pass when the command succeeds.
check() { name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
# The deterministic part of every record: id, status, metrics without timings, curves.
stable_records() {
  jq -cS '{id, status, metrics: (.metrics | del(.cpu_seconds, .wall_seconds)), curves}' "$@" | sort
}
finish() {
  echo "$(basename "$0" .sh): $NPASS passed, $NFAIL failed"
  [ "$NFAIL" = 0 ]
}

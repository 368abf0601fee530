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
# record_count FILE: the whole lines (records) in FILE, 0 when it does not exist.
record_count() { if [ -f "$1" ]; then wc -l < "$1"; else echo 0; fi; }
# wait_records PID FILE N: wait until FILE holds N records or the process PID has ended.
wait_records() {
  while kill -0 "$1" 2>/dev/null && [ "$(record_count "$2")" -lt "$3" ]; do sleep 0.02; done
}
# whole_lines FILE: every newline-terminated line of FILE is a JSON record (a final line
# without newline, cut by a kill, is left for the next --resume to remove).
whole_lines() { head -n "$(record_count "$1")" "$1" | jq -e . >/dev/null; }
# check_sweep_equal LABEL CLEAN_DIR DIR N: DIR/runs.jsonl holds exactly N whole records,
# one per id, with the numbers of the uninterrupted sweep in CLEAN_DIR.
check_sweep_equal() {
  _l=$1 _clean=$2 _dir=$3 _n=$4
  check "$_l: $_n records" [ "$(record_count "$_dir/runs.jsonl")" = "$_n" ]
  check "$_l: no duplicate ids" [ "$(jq -r .id "$_dir/runs.jsonl" | sort | uniq -d | wc -l)" = 0 ]
  check "$_l: every line is a whole record" sh -c "jq -e . '$_dir/runs.jsonl' >/dev/null"
  stable_records "$_clean/runs.jsonl" > "$WORK/stable.clean"
  stable_records "$_dir/runs.jsonl" > "$WORK/stable.other"
  check "$_l: records equal the uninterrupted ones" cmp -s "$WORK/stable.clean" "$WORK/stable.other"
}
finish() {
  echo "$(basename "$0" .sh): $NPASS passed, $NFAIL failed"
  [ "$NFAIL" = 0 ]
}

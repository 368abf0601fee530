# A run that crashes (run 5, a dp_sgd run: each trains in its own worker) is recorded as
# failed and does not stop the sweep (exit 1); --resume retries it and leaves one record
# per id. A diverging run is a result, not a failure.
. "$(dirname "$0")/lib.sh"

DPERM_TEST_CRASH_RUN=5 "$DPERM" run "$FIX/small.yaml" -j 2 --out "$WORK/f" --quiet >/dev/null 2>&1
check "a crashed run makes the sweep exit 1" [ $? = 1 ]
check "all 8 runs are recorded" [ "$(wc -l < "$WORK/f/runs.jsonl")" = 8 ]
check "the crashed run is failed, with the signal" sh -c \
  "jq -r 'select(.index == 4) | .status + \" \" + .message' '$WORK/f/runs.jsonl' | grep -q '^failed worker killed by signal 6'"
check "the other 7 are ok" [ "$(jq -r 'select(.status == "ok") | .id' "$WORK/f/runs.jsonl" | wc -l)" = 7 ]
check "summary.csv lists the failure" grep -q ',failed,' "$WORK/f/summary.csv"
"$DPERM" run "$FIX/small.yaml" -j 2 --out "$WORK/f" --resume --quiet >/dev/null
check "--resume retries the failed run and exits 0" [ $? = 0 ]
check "one record per id after the retry" sh -c \
  "[ \$(wc -l < '$WORK/f/runs.jsonl') = 8 ] && [ \$(jq -r .id '$WORK/f/runs.jsonl' | sort -u | wc -l) = 8 ]"
check "no failed record left" [ "$(jq -r 'select(.status == "failed") | .id' "$WORK/f/runs.jsonl" | wc -l)" = 0 ]

"$DPERM" run "$FIX/diverge.yaml" --out "$WORK/d" --quiet >/dev/null
check "diverging runs exit 0" [ $? = 0 ]
check "diverging runs are recorded as diverged" [ "$(jq -r 'select(.status == "diverged") | .id' "$WORK/d/runs.jsonl" | wc -l)" = 2 ]
check "a diverged record has no NaN (JSON parses)" sh -c "jq -e . '$WORK/d/runs.jsonl' >/dev/null"
finish

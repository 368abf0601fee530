# -j 1 and -j 2 give bit-identical metrics and curves for every run, and the same ids
# as the dry run lists.
. "$(dirname "$0")/lib.sh"

"$DPERM" run "$FIX/small.yaml" -j 1 --out "$WORK/j1" --quiet >/dev/null
check "run -j 1 exits 0" [ $? = 0 ]
"$DPERM" run "$FIX/small.yaml" -j 2 --out "$WORK/j2" --quiet >/dev/null
check "run -j 2 exits 0" [ $? = 0 ]
check "8 records" [ "$(wc -l < "$WORK/j1/runs.jsonl")" = 8 ]
stable_records "$WORK/j1/runs.jsonl" > "$WORK/a"
stable_records "$WORK/j2/runs.jsonl" > "$WORK/b"
check "-j 1 and -j 2 records identical" cmp -s "$WORK/a" "$WORK/b"
"$DPERM" run "$FIX/small.yaml" --dry-run | awk 'NF > 2 {print $2}' | sort > "$WORK/dry"
jq -r .id "$WORK/j1/runs.jsonl" | sort > "$WORK/ids"
check "recorded ids equal the dry run's" cmp -s "$WORK/dry" "$WORK/ids"
check "dry run counts 8 runs" sh -c "'$DPERM' run '$FIX/small.yaml' --dry-run | tail -n 1 | grep -q '^8 runs'"
check "summary.csv has a header and 8 rows" [ "$(wc -l < "$WORK/j1/summary.csv")" = 9 ]
check "every private run spent <= its epsilon" sh -c \
  "jq -e 'select(.config.algorithm.name == \"dp_sgd\") | .metrics.epsilon_spent <= .metrics.epsilon' '$WORK/j1/runs.jsonl' | grep -qv false"
check "provenance names the BLAS kernels" sh -c "jq -e '.provenance.blas_core | length > 0' '$WORK/j1/runs.jsonl' >/dev/null"
"$DPERM" run "$FIX/small.yaml" --only algorithm.name=dp_sgd --only seed=2 --out "$WORK/only" --quiet >/dev/null
check "--only keeps 2 runs" [ "$(wc -l < "$WORK/only/runs.jsonl")" = 2 ]
finish

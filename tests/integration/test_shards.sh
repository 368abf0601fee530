# Shards: `dperm run --shard I/N` run separately, then `dperm merge`, give the records of a
# single-machine run; merge refuses different results for one id and lists missing runs;
# report reads shard files without a merge; --resume works per shard.
. "$(dirname "$0")/lib.sh"
# What must be identical to a single-machine run (provenance and timings differ).
results() {
  jq -cS '{id, status, config, metrics: (.metrics | del(.cpu_seconds, .wall_seconds)), curves}' "$@" | sort
}

"$DPERM" run "$FIX/sweep.yaml" -j 2 --out "$WORK/one" --quiet >/dev/null
results "$WORK/one/runs.jsonl" > "$WORK/one.results"

# ---- partition ------------------------------------------------------------------------------
for i in 0 1 2; do "$DPERM" run "$FIX/sweep.yaml" --shard $i/3 --dry-run > "$WORK/dry.$i"; done
cat "$WORK"/dry.[012] | grep -oE '^ *[0-9]+  [0-9a-f]{16}' | awk '{ print $2 }' | sort > "$WORK/dry.ids"
check "the 3 dry-run shards cover the grid's 48 runs" [ "$(wc -l < "$WORK/dry.ids")" = 48 ]
check "no run is in two shards" [ "$(uniq -d "$WORK/dry.ids" | wc -l)" = 0 ]
check "dry-run shows each run's estimated cost and the shard's share" \
  sh -c "grep -q ' cost [0-9]' '$WORK/dry.0' && grep -q '^shard 0/3: [0-9]* runs, estimated cost' '$WORK/dry.0'"
"$DPERM" run "$FIX/sweep.yaml" --shard 1/3 --dry-run > "$WORK/dry.again"
check "the partition is deterministic" cmp -s "$WORK/dry.1" "$WORK/dry.again"
"$DPERM" run "$FIX/sweep.yaml" --shard 3/3 --dry-run >/dev/null 2>"$WORK/err"
check "--shard 3/3 is a usage error (exit 2)" [ $? = 2 ]
check "... saying I must be below N" grep -q 'I must be between 0 and N-1' "$WORK/err"
"$DPERM" run "$FIX/sweep.yaml" --shard 1-of-3 --dry-run >/dev/null 2>&1
check "--shard 1-of-3 is a usage error (exit 2)" [ $? = 2 ]

# ---- shards run separately, then merged --------------------------------------------------------
for i in 0 1 2; do "$DPERM" run "$FIX/sweep.yaml" --shard $i/3 -j 2 --out "$WORK/sh" --quiet >/dev/null || echo "shard $i exited $?"; done
check "each shard wrote its own file" [ "$(ls "$WORK"/sh/runs.*-of-3.jsonl | wc -l)" = 3 ]
check "no shard wrote runs.jsonl or summary.csv" sh -c "[ ! -e '$WORK/sh/runs.jsonl' ] && [ ! -e '$WORK/sh/summary.csv' ]"
check "one manifest for the folder" [ -s "$WORK/sh/sweep.json" ]
results "$WORK"/sh/runs.*-of-3.jsonl > "$WORK/sh.results"
check "the shards' records equal a single run's" cmp -s "$WORK/one.results" "$WORK/sh.results"

"$DPERM" report "$WORK/sh" --format md,csv >"$WORK/report.out" 2>&1
check "report reads shard files without a merge (48 runs)" grep -q 'report of 48 runs' "$WORK/report.out"

"$DPERM" merge "$WORK/sh" >"$WORK/merge.out" 2>&1
check "merge of a complete sweep exits 0" [ $? = 0 ]
check "merged runs.jsonl: 48 records" [ "$(wc -l < "$WORK/sh/runs.jsonl")" = 48 ]
results "$WORK/sh/runs.jsonl" > "$WORK/merged.results"
check "merged records equal a single run's" cmp -s "$WORK/one.results" "$WORK/merged.results"
check "merged runs.jsonl is in grid order" sh -c "jq .index '$WORK/sh/runs.jsonl' | sort -n -c"
check "merge wrote summary.csv (49 lines)" [ "$(wc -l < "$WORK/sh/summary.csv")" = 49 ]
"$DPERM" merge "$WORK/sh" >"$WORK/merge2.out" 2>&1
check "merging again changes nothing" sh -c "[ \$? = 0 ] && [ \$(wc -l < '$WORK/sh/runs.jsonl') = 48 ]"
check "... and says it dropped the duplicates" grep -q 'dropped 48 duplicates' "$WORK/merge2.out"
"$DPERM" report "$WORK/sh" --format md,csv >"$WORK/report2.out" 2>&1
check "report after merge still counts each run once" grep -q 'report of 48 runs' "$WORK/report2.out"

# ---- resume per shard --------------------------------------------------------------------------
"$DPERM" run "$FIX/sweep.yaml" --shard 0/3 --out "$WORK/sh" --quiet >/dev/null 2>"$WORK/err"
check "a shard run again without --resume is refused (exit 2)" [ $? = 2 ]
n0=$(wc -l < "$WORK/sh/runs.0-of-3.jsonl")
"$DPERM" run "$FIX/sweep.yaml" --shard 0/3 --out "$WORK/sh" --resume --quiet >/dev/null
check "a shard with --resume and nothing missing runs nothing" [ "$(wc -l < "$WORK/sh/runs.0-of-3.jsonl")" = "$n0" ]
# A different shard count in the same folder: every run is recorded, so nothing runs.
"$DPERM" run "$FIX/sweep.yaml" --shard 1/5 --out "$WORK/sh" --resume --quiet >/dev/null
check "runs recorded by other shards count as done" [ "$(cat "$WORK/sh/runs.1-of-5.jsonl" 2>/dev/null | wc -l)" = 0 ]
"$DPERM" run "$FIX/small.yaml" --shard 0/2 --out "$WORK/sh" --resume --quiet >/dev/null 2>"$WORK/err"
check "a shard of another grid in the folder is refused (exit 2)" [ $? = 2 ]
check "... naming the manifest mismatch" grep -q 'expanded grid differs' "$WORK/err"

# ---- missing and conflicting records -------------------------------------------------------------
mkdir -p "$WORK/part"
"$DPERM" run "$FIX/sweep.yaml" --shard 0/2 --out "$WORK/part" --quiet >/dev/null
"$DPERM" merge "$WORK/part" >"$WORK/out" 2>"$WORK/err"
check "merge with a shard missing exits 1" [ $? = 1 ]
nmiss=$(sed -n 's/^dperm: \([0-9]*\) of 48 runs of the sweep have no successful record.*/\1/p' "$WORK/err")
check "... and reports the missing runs ($nmiss of 48)" sh -c "[ -n '$nmiss' ] && [ '$nmiss' -gt 0 ] && [ '$nmiss' -lt 48 ]"
check "... listing their ids" sh -c "grep 'no successful record' '$WORK/err' | grep -qE '[0-9a-f]{16}'"
check "... and still writes what there is" [ "$(wc -l < "$WORK/part/runs.jsonl")" = $((48 - nmiss)) ]

mkdir -p "$WORK/conflict"
cp "$WORK/sh/sweep.json" "$WORK/sh/runs.0-of-3.jsonl" "$WORK/sh/runs.1-of-3.jsonl" "$WORK/sh/runs.2-of-3.jsonl" "$WORK/conflict/"
# The same run with a different accuracy in a second file (sed, not jq: jq would rewrite
# 1.0 as 1, and the bytes of every other number must stay as dperm wrote them).
head -n 1 "$WORK/conflict/runs.0-of-3.jsonl" | sed 's/"test_accuracy":[0-9.e-]*/"test_accuracy":0.123/' > "$WORK/conflict/runs.0-of-1.jsonl"
"$DPERM" merge "$WORK/conflict" >/dev/null 2>"$WORK/err"
check "merge refuses one id with different results (exit 2)" [ $? = 2 ]
check "... in one clear line naming both files" \
  sh -c "grep -q 'has different results in runs.0-of-1.jsonl:1 and runs.0-of-3.jsonl:1' '$WORK/err'"
check "... and writes nothing" [ ! -e "$WORK/conflict/runs.jsonl" ]
"$DPERM" report "$WORK/conflict" --format md >/dev/null 2>&1
check "report refuses the conflict too (exit 2)" [ $? = 2 ]
# Only provenance and timings differ: the same result, kept once.
head -n 1 "$WORK/conflict/runs.0-of-3.jsonl" |
  sed 's/"wall_seconds":[0-9.e-]*/"wall_seconds":99.5/; s/"started":"[^"]*"/"started":"elsewhere"/' > "$WORK/conflict/runs.0-of-1.jsonl"
check "(the copy's provenance and timing were changed)" grep -q '"started":"elsewhere".*' "$WORK/conflict/runs.0-of-1.jsonl"
"$DPERM" merge "$WORK/conflict" >/dev/null 2>&1
check "records differing only in provenance and timings merge as one (exit 0)" [ $? = 0 ]
check "... 48 records" [ "$(cat "$WORK/conflict/runs.jsonl" 2>/dev/null | wc -l)" = 48 ]

"$DPERM" merge "$WORK/nothing-here" >/dev/null 2>&1
check "merge of a folder without records exits 2" [ $? = 2 ]
"$DPERM" merge >/dev/null 2>&1
check "merge without DIR exits 2" [ $? = 2 ]
finish

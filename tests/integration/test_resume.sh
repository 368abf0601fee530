# kill -9 in the middle of a sweep, then --resume: the final runs.jsonl has exactly the
# grid's ids, no duplicates, no half lines, and the same numbers as an uninterrupted run.
. "$(dirname "$0")/lib.sh"

"$DPERM" run "$FIX/sweep.yaml" -j 2 --out "$WORK/clean" --quiet >/dev/null
check "uninterrupted sweep exits 0" [ $? = 0 ]
# Kill once at least `target` records exist: mid-sweep, with workers running.
for target in 4 14 26; do
  "$DPERM" run "$FIX/sweep.yaml" -j 2 --out "$WORK/killed" --resume --quiet >/dev/null 2>&1 &
  pid=$!
  wait_records "$pid" "$WORK/killed/runs.jsonl" "$target"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
done
sleep 0.2
# The bracket keeps pgrep from matching this very command line.
check "no orphan workers after kill -9" sh -c "! pgrep -f '[s]weep.yaml -j 2 --out $WORK/killed' >/dev/null"
n_before=$(record_count "$WORK/killed/runs.jsonl")
check "the kills interrupted the sweep (0 < $n_before < 48 recorded)" \
  sh -c "[ $n_before -gt 0 ] && [ $n_before -lt 48 ]"
"$DPERM" run "$FIX/sweep.yaml" -j 2 --out "$WORK/killed" --resume --quiet >/dev/null
check "resume exits 0" [ $? = 0 ]
echo "     (records before the final resume: $n_before of 48)"
check_sweep_equal "after resume" "$WORK/clean" "$WORK/killed" 48
"$DPERM" run "$FIX/sweep.yaml" --out "$WORK/killed" --resume --quiet >/dev/null
check "a resume with nothing missing runs nothing" [ "$(wc -l < "$WORK/killed/runs.jsonl")" = 48 ]
# A half line left by a kill during a write is cut off by the next resume.
head -c 100 "$WORK/clean/runs.jsonl" >> "$WORK/killed/runs.jsonl"
"$DPERM" run "$FIX/sweep.yaml" --out "$WORK/killed" --resume --quiet >/dev/null
check "a trailing half line is repaired" sh -c "jq -e . '$WORK/killed/runs.jsonl' >/dev/null && [ \$(wc -l < '$WORK/killed/runs.jsonl') = 48 ]"

# A record without a status (or with an unknown one) is failed for every reader
# (store/record.h): resume retries it as merge and report count it failed.
cp -r "$WORK/killed" "$WORK/nostatus"
jq -c 'if .index == 3 then del(.status) elif .index == 5 then .status = "done" else . end' \
  "$WORK/killed/runs.jsonl" > "$WORK/nostatus/runs.jsonl"
"$DPERM" merge "$WORK/nostatus" > "$WORK/ns.merge" 2>&1
check "merge counts records without a known status as failed" \
  grep -q '2 failed' "$WORK/ns.merge"
"$DPERM" run "$FIX/sweep.yaml" --out "$WORK/nostatus" --resume > /dev/null 2> "$WORK/ns.err"
check "resume retries the two: 46 of 48 recorded, running 2" \
  grep -q '46 of 48 runs already recorded in .*; running 2' "$WORK/ns.err"
check "... and then every run is recorded ok or diverged, once" \
  sh -c "[ \$(wc -l < '$WORK/nostatus/runs.jsonl') = 48 ] && [ \$(jq -r 'select(.status != \"ok\" and .status != \"diverged\") | .id' '$WORK/nostatus/runs.jsonl' | wc -l) = 0 ]"

# ---- the printed hint continues the same sweep ------------------------------------------
# An interrupted quick sweep into a folder of its own (a space in its name) prints the
# command that continues it: that command, pasted as it is, finishes the same 32 runs.
SCALED="$FIX/sweep_scaled.yaml"
"$DPERM" run "$SCALED" --scale quick -j 2 --out "$WORK/qclean" --quiet >/dev/null
# config.yaml is the experiment as the sweep ran it (the quick scale merged in, a YAML file
# that plans the same runs without --scale); config.original.yaml the file as given.
check "a scaled folder keeps the file as given in config.original.yaml" \
  cmp -s "$SCALED" "$WORK/qclean/config.original.yaml"
check "... and in config.yaml the experiment as run (4 epochs, 2 learning rates)" \
  sh -c "grep -q '\"epochs\": 4' '$WORK/qclean/config.yaml' && grep -q 'with scales.quick merged in' '$WORK/qclean/config.yaml'"
check "... which plans the same 32 runs without --scale" \
  sh -c "'$DPERM' run '$WORK/qclean/config.yaml' --dry-run 2>/dev/null | tail -n 1 | grep -qx '32 runs'"
check "an unscaled folder's config.yaml is the file as given" cmp -s "$FIX/sweep.yaml" "$WORK/clean/config.yaml"
# The report and the results index say what the scale changed, in the file's own keys.
mkdir -p "$WORK/idx" && touch "$WORK/idx/.dperm-results" && cp -r "$WORK/qclean" "$WORK/idx/q"
"$DPERM" report "$WORK/idx/q" --format md,html > /dev/null 2>&1
check "the report says what the quick scale sets (md and html)" \
  sh -c "grep -q '^Scale: quick (the experiment.s scales.quick, which sets train.epochs=4, grid.train.lr=\[0.1,1.0\]; ' '$WORK/idx/q/report.md' && grep -q '<p>Scale: quick (the experiment&#39;s scales.quick, which sets train.epochs=4' '$WORK/idx/q/report.html'"
check "... and so does the results index, beside the scale's name" \
  grep -q '<td>quick<br><small>train.epochs=4, grid.train.lr=\[0.1,1.0\]</small></td>' "$WORK/idx/index.html"
Q="$WORK/q dir"
"$DPERM" run "$SCALED" --scale quick -j 2 --out "$Q" --quiet >/dev/null 2>"$WORK/int.err" &
pid=$!
wait_records "$pid" "$Q/runs.jsonl" 3
kill -INT "$pid" 2>/dev/null
wait "$pid"
st=$?
hint=$(sed -n 's/^dperm: [0-9]* runs recorded in .*; `\(.*\)` continues$/\1/p' "$WORK/int.err")
echo "     (hint: $hint)"
check "an interrupted sweep exits 130 and prints the command that continues it" \
  [ "$st" = 130 -a -n "$hint" ]
check "... with its scale and its folder" \
  sh -c "echo \"\$1\" | grep -q -- '--scale quick' && echo \"\$1\" | grep -q -F -- \"--out '$Q'\"" sh "$hint"
(cd "$WORK" && eval "\"\$DPERM\"${hint#dperm}" --quiet >/dev/null)
check "the hint, run as printed, exits 0" [ $? = 0 ]
check_sweep_equal "after the hint" "$WORK/qclean" "$Q" 32
# Continuing that folder at another scale (no --scale: the full grid) is refused.
"$DPERM" run "$SCALED" -j 2 --out "$Q" --resume --quiet >/dev/null 2>"$WORK/scale.err"
check "a resume at another scale exits 2 with one line naming both scales" \
  sh -c "[ $? = 2 ] && grep -q 'holds a sweep at scale quick; this command plans scale full' '$WORK/scale.err' \
         && [ \$(grep -v -c '^dperm: hint: ' '$WORK/scale.err') = 1 ]"
check "... and leaves the folder as it was" [ "$(record_count "$Q/runs.jsonl")" = 32 ]
# ---- an edited grid extends the sweep ---------------------------------------------------
# One more epsilon into a finished folder: --resume runs only its 8 new runs, says so, and
# keeps the 32 records as they were. One epsilon fewer: nothing runs, no record is deleted,
# and the report shows the current grid only.
"$DPERM" run "$SCALED" --scale quick -j 2 --out "$WORK/ext" --quiet >/dev/null
cp "$WORK/ext/runs.jsonl" "$WORK/ext.before"
sed 's/epsilon: \[0.5, 1.0, 2.0, 4.0\]/epsilon: [0.5, 1.0, 2.0, 4.0, 8.0]/' "$SCALED" > "$WORK/more.yaml"
"$DPERM" run "$WORK/more.yaml" --scale quick -j 2 --out "$WORK/ext" --resume --quiet >/dev/null 2>"$WORK/ext.err"
check "a grid with one more epsilon: --resume exits 0" [ $? = 0 ]
check "... says 8 new runs, 32 kept, 0 gone" \
  grep -q 'the grid changed since this folder.s last sweep: 8 new runs to run, 32 recorded and kept, 0 recorded runs no longer in the grid' "$WORK/ext.err"
check "... records 40, the 32 earlier ones an unchanged prefix" \
  sh -c "[ \$(wc -l < '$WORK/ext/runs.jsonl') = 40 ] && head -c \$(stat -c %s '$WORK/ext.before') '$WORK/ext/runs.jsonl' | cmp -s - '$WORK/ext.before'"
check "... and the new runs are the epsilon 8 ones" \
  [ "$(tail -n 8 "$WORK/ext/runs.jsonl" | jq -r .config.epsilon | sort -u)" = 8 ]
sed 's/epsilon: \[0.5, 1.0, 2.0, 4.0\]/epsilon: [1.0, 2.0, 4.0, 8.0]/' "$SCALED" > "$WORK/fewer.yaml"
cp "$WORK/ext/runs.jsonl" "$WORK/ext.before"
"$DPERM" run "$WORK/fewer.yaml" --scale quick -j 2 --out "$WORK/ext" --resume --quiet >/dev/null 2>"$WORK/ext.err"
check "a grid without epsilon 0.5: nothing runs, no record is deleted" \
  sh -c "[ $? = 0 ] && cmp -s '$WORK/ext/runs.jsonl' '$WORK/ext.before' && grep -q '0 new runs to run, 32 recorded and kept, 8 recorded runs no longer in the grid' '$WORK/ext.err'"
"$DPERM" report "$WORK/ext" --format md >"$WORK/rep.out" 2>&1
check "... its report covers the current grid's 32 runs and says 8 were left out" \
  sh -c "grep -q 'report of 32 runs' '$WORK/rep.out' && grep -q '8 records of runs no longer in the experiment.s grid (sweep.json) left out' '$WORK/ext/report.md'"
finish

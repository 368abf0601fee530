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

# ---- the printed hint continues the same sweep ------------------------------------------
# An interrupted quick sweep into a folder of its own (a space in its name) prints the
# command that continues it: that command, pasted as it is, finishes the same 32 runs.
SCALED="$FIX/sweep_scaled.yaml"
"$DPERM" run "$SCALED" --scale quick -j 2 --out "$WORK/qclean" --quiet >/dev/null
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
finish

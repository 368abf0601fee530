# Bad input: one clear line with a position, exit 2, and nothing written or lost.
. "$(dirname "$0")/lib.sh"

"$DPERM" run "$FIX/bad_syntax.yaml" --out "$WORK/bad" 2> "$WORK/err"
check "malformed YAML exits 2" [ $? = 2 ]
check "the error names FILE:LINE:COL" grep -qE 'bad_syntax.yaml:[0-9]+:[0-9]+: ' "$WORK/err"
check "nothing written for a malformed YAML" [ ! -e "$WORK/bad" ]
"$DPERM" run "$FIX/bad_key.yaml" --out "$WORK/bad" 2> "$WORK/err"
check "unknown key exits 2" [ $? = 2 ]
check "unknown key: position and suggestion" grep -qE "bad_key.yaml:4:9: .*epocs.*did you mean 'epochs'" "$WORK/err"
check "nothing written for an unknown key" [ ! -e "$WORK/bad" ]
"$DPERM" run "$WORK/missing.yaml" 2> "$WORK/err"
check "missing config exits 2" [ $? = 2 ]
check "missing config: one line" [ "$(wc -l < "$WORK/err")" -le 2 ]
"$DPERM" run "$FIX/small.yaml" -j 0 2>/dev/null
check "-j 0 exits 2" [ $? = 2 ]
"$DPERM" run "$FIX/small.yaml" --only epsilom=1 --out "$WORK/o" 2> "$WORK/err"
check "--only with an unknown key exits 2" [ $? = 2 ]
check "--only error suggests the key" grep -q "epsilon" "$WORK/err"

"$DPERM" run "$FIX/small.yaml" --out "$WORK/r" --quiet >/dev/null
sum=$(sha256sum "$WORK/r/runs.jsonl")
"$DPERM" run "$FIX/small.yaml" --out "$WORK/r" 2> "$WORK/err"
check "a second run into a used folder exits 2" [ $? = 2 ]
check "...and says to resume" grep -q -- "--resume" "$WORK/err"
check "...and leaves runs.jsonl untouched" [ "$(sha256sum "$WORK/r/runs.jsonl")" = "$sum" ]
# An edited grid extends the sweep (test_resume.sh has the details): the records so far
# stay an unchanged prefix.
cp "$WORK/r/runs.jsonl" "$WORK/before"
sed 's/seed: \[1, 2\]/seed: [1, 2, 3]/' "$FIX/small.yaml" > "$WORK/edited.yaml"
"$DPERM" run "$WORK/edited.yaml" --out "$WORK/r" --resume --quiet >/dev/null 2> "$WORK/err"
check "--resume with an edited grid runs the new runs (exit 0) and says so" \
  sh -c "[ $? = 0 ] && grep -q 'the grid changed' '$WORK/err'"
check "...and keeps the earlier records as an unchanged prefix" \
  sh -c "head -c \$(stat -c %s '$WORK/before') '$WORK/r/runs.jsonl' | cmp -s - '$WORK/before'"
"$DPERM" frobnicate 2>/dev/null
check "unknown command exits 2" [ $? = 2 ]
"$DPERM" privacy epsilon --sigma 1 --q 2 --steps 10 --delta 1e-5 2> "$WORK/err"
check "privacy with q > 1 exits 2" [ $? = 2 ]
finish

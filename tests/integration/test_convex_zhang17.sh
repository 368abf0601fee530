# Zhang17's algorithms, Bassily et al.'s private SGD and input perturbation: a small grid
# runs; every record carries the budget spent (<= the target), the noise and the
# theorem behind it; bad configs stop with exit 2 and a position.
. "$(dirname "$0")/lib.sh"

"$DPERM" run "$FIX/zhang17.yaml" --out "$WORK/z" --quiet -j 2 >/dev/null 2>"$WORK/err"
check "the grid over the four algorithms exits 0" [ $? = 0 ]
R="$WORK/z/runs.jsonl"
check "20 records, all ok" [ "$(jq -r .status "$R" | grep -c '^ok$')" = 20 ]
check "epsilon_spent <= epsilon in every record" \
  [ "$(jq -r 'select(.metrics.epsilon_spent <= .metrics.epsilon) | .id' "$R" | wc -l)" = 20 ]
check "input perturbation prints no epsilon as spent: null, the paper's claim as epsilon_claimed" \
  [ "$(jq -r 'select(.config.algorithm.name == "input_perturbation") | [.metrics.epsilon_spent, .metrics.epsilon_claimed == .config.epsilon, (.metrics.privacy_guarantee | startswith("none"))] | tostring' "$R" | sort -u)" = '[null,true,true]' ]
check "every record names its theorem and accountant" \
  [ "$(jq -r 'select((.metrics.theorem | length) > 0 and (.metrics.accountant | length) > 0) | .id' "$R" | wc -l)" = 20 ]
check "every record carries a positive noise scale" \
  [ "$(jq -r 'select(.metrics.noise_std > 0) | .id' "$R" | wc -l)" = 20 ]
check "the theorems are Zhang17 Thm 2/4, Lecture15 Lemma 15.5 and InputPert Thm 1" \
  [ "$(jq -r .metrics.theorem "$R" | sed 's/ (.*//' | sort -u | tr '\n' '|')" = "InputPert Thm 1|Lecture15 Lemma 15.5|Zhang17 Thm 2|Zhang17 Thm 4|" ]
check "the Laplace output noise is pure eps-DP (delta 0)" \
  [ "$(jq -r 'select(.config.algorithm.mechanism == "laplace") | .metrics.delta' "$R" | sort -u)" = 0 ]
check "rrpsgd records its round R <= m and a gradient norm" \
  [ "$(jq -r 'select(.config.algorithm.name == "rrpsgd" and .metrics.round_R >= 1 and .metrics.round_R <= 20000 and .metrics.grad_norm > 0) | .id' "$R" | wc -l)" = 4 ]
check "an overridden theorem setting is recorded as a warning" \
  [ "$(jq -r 'select(.config.algorithm.name == "rrpsgd") | .metrics.warnings | length' "$R" | sort -u)" = 1 ]
check "the noise shrinks as epsilon grows (same algorithm and seed)" \
  [ "$(jq -s '[group_by([.config.algorithm.name, .config.algorithm.mechanism, .config.seed])[] | sort_by(.config.epsilon) | select(.[0].metrics.noise_std > .[1].metrics.noise_std)] | length' "$R")" = 10 ]

"$DPERM" run "$FIX/zhang17.yaml" --out "$WORK/z2" --quiet >/dev/null 2>&1
a=$(stable_records "$R" | md5sum)
b=$(stable_records "$WORK/z2/runs.jsonl" | md5sum)
same=0
[ -s "$WORK/z2/runs.jsonl" ] && [ "$a" = "$b" ] && same=1
check "reruns give the same records (-j 2 and -j 1)" [ $same = 1 ]

"$DPERM" run "$FIX/zhang17_off.yaml" --out "$WORK/off" --quiet >/dev/null 2>&1
O="$WORK/off/runs.jsonl"
gd=$(jq -r 'select(.config.algorithm.name == "gd") | .metrics.train_loss' "$O")
op=$(jq -r 'select(.config.algorithm.name == "output_perturbation" and .config.algorithm.noise == "off") | .metrics.train_loss' "$O")
check "noise off: output_perturbation is gd (same T and step), exactly" [ -n "$gd" -a "$op" = "$gd" ]
check "noise off: input_perturbation is gd on the clean data, exactly" \
  [ "$(jq -r 'select(.config.algorithm.name == "input_perturbation") | .metrics.train_loss' "$O")" = "$gd" ]
check "noise on differs from gd" \
  [ "$(jq -r 'select(.config.algorithm.name == "output_perturbation" and .config.algorithm.noise == "on") | .metrics.train_loss' "$O")" != "$gd" ]
check "noise-off records say so: noise off, epsilon_spent null, noise_std 0" \
  [ "$(jq -r 'select(.config.algorithm.noise == "off") | [.metrics.noise, .metrics.epsilon_spent, .metrics.noise_std] | tostring' "$O" | sort -u)" = '["off",null,0]' ]

"$DPERM" run "$FIX/zhang17_bad.yaml" --out "$WORK/bad" 2>"$WORK/err" >/dev/null
check "a bad mechanism exits 2" [ $? = 2 ]
check "... at its position with a suggestion" grep -qE "zhang17_bad.yaml:5:[0-9]+: .*gausian.*gaussian" "$WORK/err"
check "... and writes nothing" [ ! -e "$WORK/bad/runs.jsonl" ]
"$DPERM" run "$FIX/zhang17_eps.yaml" --out "$WORK/eps" 2>"$WORK/err" >/dev/null
check "rrpsgd refuses epsilon > 1 (Thm 4) with exit 2 and a position" \
  sh -c "[ $? = 2 ] && grep -qE 'zhang17_eps.yaml:[0-9]+:[0-9]+: .*Thm 4' '$WORK/err'"
finish

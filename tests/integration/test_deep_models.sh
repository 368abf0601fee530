# Deep models run from an experiment file like linear ones; a model that does not fit
# the data is a config error naming both shapes, and nothing is written.
. "$(dirname "$0")/lib.sh"

"$DPERM" run "$FIX/deep.yaml" -j 2 --out "$WORK/d" --quiet >/dev/null
check "mlp and cnn_mnist runs exit 0" [ $? = 0 ]
check "4 records, all ok" [ "$(jq -r 'select(.status == "ok") | .id' "$WORK/d/runs.jsonl" | wc -l)" = 4 ]
check "private deep runs spend <= their epsilon" \
  sh -c "jq -e 'select(.config.algorithm.name == \"dp_sgd\") | .metrics.epsilon_spent <= .metrics.epsilon' '$WORK/d/runs.jsonl' | grep -qv false"
check "deep runs record curves" \
  sh -c "jq -e '.curves.train_loss | length >= 2' '$WORK/d/runs.jsonl' | grep -qv false"
"$DPERM" run "$FIX/deep.yaml" -j 1 --out "$WORK/d1" --quiet >/dev/null
stable_records "$WORK/d/runs.jsonl" > "$WORK/a"
stable_records "$WORK/d1/runs.jsonl" > "$WORK/b"
check "deep runs: -j 1 and -j 2 identical" cmp -s "$WORK/a" "$WORK/b"
"$DPERM" run "$FIX/deep_mismatch.yaml" --out "$WORK/m" 2> "$WORK/err"
check "a model that does not fit the data exits 2" [ $? = 2 ]
check "...naming the model and the data's shape at model.type" \
  grep -qE "deep_mismatch.yaml:[0-9]+:[0-9]+: model.type cnn_mnist does not fit dataset shape 1 x 4 x 4" "$WORK/err"
check "...and writes nothing" [ ! -e "$WORK/m" ]
"$DPERM" run "$FIX/custom.yaml" -j 2 --out "$WORK/c" --quiet >/dev/null
check "a model given as a layer list trains, private and not" \
  [ "$(jq -r 'select(.status == "ok") | .id' "$WORK/c/runs.jsonl" | wc -l)" = 2 ]
sed 's/units: 3}/units: 5}/' "$FIX/custom.yaml" > "$WORK/custom5.yaml"
"$DPERM" run "$WORK/custom5.yaml" --out "$WORK/c5" 2> "$WORK/err"
check "a layer list whose output is not the classes exits 2, saying so" \
  sh -c "[ $? = 2 ] && grep -q 'model output has 5 values per example but the data have 3 classes' '$WORK/err'"
finish

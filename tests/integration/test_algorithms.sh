# The first-order family from one experiment file: every algorithm runs, private runs
# spend at most their epsilon and name their accountant, the documented reductions hold
# in the records (dp_lssgd with smoothing 0 and dplis with radius 0 are dp_sgd), and
# regression models train on a real target (when the shared datasets are present).
. "$(dirname "$0")/lib.sh"

"$DPERM" run "$FIX/family.yaml" -j 2 --out "$WORK/f" --quiet >/dev/null
check "a grid over every first-order algorithm exits 0" [ $? = 0 ]
check "11 records, all ok" [ "$(jq -r 'select(.status == "ok") | .id' "$WORK/f/runs.jsonl" | wc -l)" = 11 ]
check "every private run spends at most its epsilon, by a named accountant" \
  sh -c "jq -e 'select(.config.algorithm.name | test(\"^dp|dplis\")) | (.metrics.epsilon_spent <= .metrics.epsilon) and (.metrics.accountant | startswith(\"rdp\"))' '$WORK/f/runs.jsonl' | grep -qv false"
metrics_of() { jq -cS "select($1) | {metrics: (.metrics | del(.cpu_seconds, .wall_seconds)), curves}" "$WORK/f/runs.jsonl"; }
check "dp_lssgd with smoothing 0 records dp_sgd's numbers" \
  [ "$(metrics_of '.config.algorithm.name == "dp_sgd"')" = "$(metrics_of '.config.algorithm.name == "dp_lssgd" and .config.algorithm.smoothing == 0')" ]
check "dplis with radius 0 records dp_sgd's numbers" \
  [ "$(metrics_of '.config.algorithm.name == "dp_sgd"')" = "$(metrics_of '.config.algorithm.name == "dplis" and .config.algorithm.radius == 0')" ]
check "gd takes one step per epoch" \
  [ "$(jq -r 'select(.config.algorithm.name == "gd") | .metrics.iterations' "$WORK/f/runs.jsonl")" = 3 ]

"$DPERM" run "$(dirname "$0")/../../configs/all_algorithms.yaml" -j 2 --out "$WORK/all" --quiet >/dev/null
check "configs/all_algorithms.yaml runs every algorithm in one command" [ $? = 0 ]
# every algorithm but pate, which asks its queries on a real dataset's public set
# (tests/integration/test_pate.sh runs it on Fashion-MNIST)
check "...one ok record per algorithm (but pate) and seed" \
  [ "$(jq -r 'select(.status == "ok") | .config.algorithm.name' "$WORK/all/runs.jsonl" | sort -u | wc -l)" = "$("$DPERM" list algorithms | grep '^  [a-z]' | grep -vc '^  pate ')" ]
check "...each with an optimality gap" \
  sh -c "jq -e '.metrics.optimality_gap >= -1e-9' '$WORK/all/runs.jsonl' | grep -qv false"

cat > "$WORK/bad.yaml" <<'YAML'
experiment: bad
dataset: {name: synthetic}
model: {type: softmax}
train: {epochs: 1, batch_size: 8, lr: 0.1}
algorithm: {name: dp_lssgd, clip: 1, noise_multiplier: 1, smoothin: 2}
YAML
"$DPERM" run "$WORK/bad.yaml" --out "$WORK/b" 2> "$WORK/err"
check "a misspelt algorithm key exits 2" [ $? = 2 ]
check "...with its position and a suggestion" grep -q "bad.yaml:5:59: unknown key 'smoothin' in algorithm; did you mean 'smoothing'" "$WORK/err"
check "...and writes nothing" [ ! -e "$WORK/b" ]

cat > "$WORK/huber_synth.yaml" <<'YAML'
experiment: hs
dataset: {name: synthetic}
model: {type: huber}
train: {epochs: 1, batch_size: 8, lr: 0.1}
algorithm: {name: sgd}
YAML
"$DPERM" run "$WORK/huber_synth.yaml" --out "$WORK/hs" 2> "$WORK/err"
check "a regression model on classes exits 2, naming why" \
  sh -c "[ $? = 2 ] && grep -q 'model.type huber fits a real target' '$WORK/err'"

if [ -n "${DPERM_DATA:-}" ] && [ -f "$DPERM_DATA/uci/wine_quality/winequality-red.csv" ]; then
  cat > "$WORK/reg.yaml" <<'YAML'
experiment: reg
dataset: {name: wine_quality}
model: {type: huber, l2: 1.0e-3}
privacy: {delta: 1.0e-3}
train: {epochs: 2, batch_size: 50, lr: 0.5}
epsilon: 1.0
grid:
  algorithm: [{name: gd}, {name: dp_sgd, clip: 1.0}]
YAML
  "$DPERM" run "$WORK/reg.yaml" --out "$WORK/r" --quiet
  check "Huber regression on wine_quality runs" [ $? = 0 ]
  check "...recording test_rmse, not accuracy" \
    sh -c "jq -e '(.metrics.test_rmse > 0) and (.metrics.test_accuracy == null)' '$WORK/r/runs.jsonl' | grep -qv false"
else
  echo "note: DPERM_DATA has no wine_quality; the regression run is skipped"
fi
finish

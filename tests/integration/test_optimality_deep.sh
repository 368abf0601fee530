# optimality_gap on a deep model (harness/sweep/optimality_deep.c): a tiny synthetic MLP sweep
# with optimality_gap: {reference_epochs: 5} records, in every run, a finite f_star (one
# per problem: the non-private reference's lowest F), optimality_gap = train_loss -
# f_star (F of the released weights; may be negative, never clamped) and an
# f_star_method naming the reference; the map value passes through grid expansion; -j 1
# and -j 2 record the same numbers; a bad value exits 2 at its position.
. "$(dirname "$0")/lib.sh"

cat > "$WORK/deep.yaml" <<'YAML'
experiment: gap_mlp
dataset: {name: synthetic, n: 300, d: 6, classes: 3, label_noise: 0.1, seed: 4}
model: {type: mlp, hidden: [8], l2: 0.001}
train: {epochs: 2, batch_size: 30, lr: 0.05}
algorithm: {name: sgd}
optimality_gap: {reference_epochs: 5}
grid:
  algorithm: [{name: sgd}, {name: dp_sgd, clip: 1.0}]
  epsilon: [1.0, 8.0]
  seed: [1, 2]
YAML
"$DPERM" run "$WORK/deep.yaml" -j 2 --out "$WORK/a" --quiet >/dev/null
check "mlp sweep with optimality_gap: {reference_epochs: 5} exits 0" [ $? = 0 ]
R="$WORK/a/runs.jsonl"
check "8 records, all ok" sh -c "[ \$(jq -r .status '$R' | grep -c '^ok$') = 8 ]"
check "every record has a finite f_star and optimality_gap (numbers, not null)" \
  sh -c "jq -e '(.metrics.f_star | type) == \"number\" and (.metrics.optimality_gap | type) == \"number\"' '$R' | grep -qv false"
check "every record has an f_star_method naming the 5-epoch non-private reference" \
  sh -c "jq -e '.metrics.f_star_method | type == \"string\" and startswith(\"non-private Adam reference: 5 epochs\")' '$R' | grep -qv false"
check "one F_ref for the whole grid (one problem: same data, model and l2)" \
  sh -c "[ \$(jq -r .metrics.f_star '$R' | sort -u | wc -l) = 1 ]"
check "optimality_gap = train_loss - f_star (F at the released weights)" \
  sh -c "jq -e '(.metrics.optimality_gap - (.metrics.train_loss - .metrics.f_star)) | fabs <= 1e-12' '$R' | grep -qv false"

"$DPERM" run "$WORK/deep.yaml" -j 1 --out "$WORK/b" --quiet >/dev/null
stable_records "$WORK/a/runs.jsonl" > "$WORK/sa"
stable_records "$WORK/b/runs.jsonl" > "$WORK/sb"
check "-j 1 and -j 2 record the same f_star and gaps" cmp -s "$WORK/sa" "$WORK/sb"

# A map value in the grid: a list of true / map alternatives, and a map of lists.
cat > "$WORK/grid.yaml" <<'YAML'
experiment: gap_grid
dataset: {name: synthetic, n: 300, d: 6, classes: 3, seed: 4}
model: {type: mlp, hidden: [8]}
train: {epochs: 1, batch_size: 30, lr: 0.05}
algorithm: {name: sgd}
optimality_gap: true
grid:
  optimality_gap: [false, {reference_epochs: 2}, {reference_epochs: 3}]
YAML
"$DPERM" run "$WORK/grid.yaml" --out "$WORK/g" --quiet >/dev/null
check "a grid over optimality_gap with map values exits 0" [ $? = 0 ]
G="$WORK/g/runs.jsonl"
check "...its runs record the map, and a reference of their own epochs each" \
  jq -s -e 'sort_by(.index) | map([.config.optimality_gap, (.metrics.f_star_method // "none" | split(",")[0])])
            == [[false, "none"], [{"reference_epochs": 2}, "non-private Adam reference: 2 epochs"],
                [{"reference_epochs": 3}, "non-private Adam reference: 3 epochs"]]' "$G" >/dev/null
check "...and two references, two F_ref" \
  sh -c "[ \$(jq -r 'select(.metrics.f_star) | .metrics.f_star' '$G' | sort -u | wc -l) = 2 ]"
sed 's/^  optimality_gap: .*/  optimality_gap: {reference_epochs: [2, 3]}/' "$WORK/grid.yaml" > "$WORK/grid2.yaml"
"$DPERM" run "$WORK/grid2.yaml" --out "$WORK/g2" --quiet >/dev/null
check "a grid varying optimality_gap.reference_epochs over a top-level true exits 0" [ $? = 0 ]
check "...2 runs with the F_ref of the same two references" \
  sh -c "jq -s -c 'map(.metrics.f_star) | sort' '$WORK/g2/runs.jsonl' > '$WORK/f2' &&
         jq -s -c 'map(select(.metrics.f_star) | .metrics.f_star) | sort' '$G' | cmp -s - '$WORK/f2' &&
         [ \$(jq -s length '$WORK/g2/runs.jsonl') = 2 ]"

# A bad value: exit 2 at the value, nothing written.
sed 's/^optimality_gap: .*/optimality_gap: {reference_epochs: 0}/' "$WORK/deep.yaml" > "$WORK/bad.yaml"
"$DPERM" run "$WORK/bad.yaml" --out "$WORK/bad" 2> "$WORK/err"
check "reference_epochs 0 exits 2 at its position" \
  sh -c "[ $? = 2 ] && grep -q 'bad.yaml:6:36: optimality_gap.reference_epochs must be >= 1, got 0' '$WORK/err'"
check "...and writes nothing" [ ! -e "$WORK/bad" ]
finish

# erm_exact and objective_perturbation in a grid with optimality_gap: true: every record
# has f_star and optimality_gap, erm_exact's gap is 0 (the same solve as F(w*)), private
# runs spend exactly their target by their theorem, noise off is erm_exact; config errors
# exit 2 with a position.
. "$(dirname "$0")/lib.sh"

"$DPERM" run "$FIX/convex_erm.yaml" -j 2 --out "$WORK/a" --quiet >/dev/null
check "grid of erm_exact, objective_perturbation and gd exits 0" [ $? = 0 ]
R="$WORK/a/runs.jsonl"
check "20 records, all ok" sh -c "[ \$(jq -r .status '$R' | grep -c '^ok$') = 20 ]"
check "every record has f_star and optimality_gap" \
  sh -c "jq -e '(.metrics.f_star | type) == \"number\" and (.metrics.optimality_gap | type) == \"number\"' '$R' | grep -qv false"
check "one F(w*) for the whole grid" sh -c "[ \$(jq -r .metrics.f_star '$R' | sort -u | wc -l) = 1 ]"
# F(w*) is solved in the parent, the run's minimizer in a worker whose BLAS may use another
# thread count (so another summation order): equal up to rounding, not bit for bit.
check "erm_exact's gap is 0 up to 1e-12 and its gradient norm <= 1e-10" \
  sh -c "jq -e 'select(.config.algorithm.name == \"erm_exact\") | (.metrics.optimality_gap | fabs) <= 1e-12 and .metrics.grad_norm <= 1e-10' '$R' | grep -qv false"
check "no gap below -1e-12" sh -c "jq -e '.metrics.optimality_gap >= -1e-12' '$R' | grep -qv false"
check "objective_perturbation spends exactly its epsilon" \
  sh -c "jq -e 'select(.config.algorithm.name == \"objective_perturbation\" and .config.algorithm.noise == null) | .metrics.epsilon_spent == .config.epsilon' '$R' | grep -qv false"
check "gaussian: delta of privacy.delta, Kifer et al.; laplace: delta 0, Chaudhuri et al." \
  sh -c "jq -e 'select(.config.algorithm.mechanism == \"gaussian\") | .metrics.delta == 1e-5 and (.metrics.accountant | startswith(\"kifer12_thm2\"))' '$R' | grep -qv false &&
         jq -e 'select(.config.algorithm.mechanism == \"laplace\") | .metrics.delta == 0 and (.metrics.accountant | startswith(\"chaudhuri11_alg2\"))' '$R' | grep -qv false"
check "noise off: says so, spends inf (null), gap 0" \
  sh -c "jq -e 'select(.config.algorithm.noise == \"off\") | .metrics.noise == \"off\" and .metrics.epsilon_spent == null and (.metrics.optimality_gap | fabs) <= 1e-12' '$R' | grep -qv false"
check "the gap shrinks from epsilon 0.5 to 5 (mean over seeds and mechanisms)" \
  jq -se '[.[] | select(.config.algorithm.name == "objective_perturbation" and .config.algorithm.noise == null)]
          | (map(select(.config.epsilon == 0.5).metrics.optimality_gap) | add / length) >
            (map(select(.config.epsilon == 5).metrics.optimality_gap) | add / length)' "$R" >/dev/null

# A misspelt key: exit 2, FILE:LINE:COL, nothing written.
sed 's/mechanism: \[gaussian, laplace\]/mechansim: gaussian/' "$FIX/convex_erm.yaml" > "$WORK/bad.yaml"
"$DPERM" run "$WORK/bad.yaml" --out "$WORK/bad" 2> "$WORK/err"
check "bad algorithm key exits 2" [ $? = 2 ]
check "with its position and a suggestion" \
  sh -c "grep -q 'bad.yaml:[0-9]*:[0-9]*:.*mechansim' '$WORK/err' && grep -q mechanism '$WORK/err'"
check "and nothing written" [ ! -e "$WORK/bad" ]

# softmax is refused by objective_perturbation, at model.type, saying why.
cat > "$WORK/softmax.yaml" <<'YAML'
experiment: op_softmax
dataset: {name: synthetic, n: 200, d: 4, classes: 3}
model: {type: softmax, l2: 0.01}
algorithm: {name: objective_perturbation}
epsilon: 1.0
YAML
"$DPERM" run "$WORK/softmax.yaml" --out "$WORK/sm" 2> "$WORK/err"
check "objective_perturbation on softmax exits 2 naming why" \
  sh -c "[ $? = 2 ] && grep -q 'softmax.yaml:3:.*rank' '$WORK/err'"

# optimality_gap on a deep model measures against a non-private reference training
# (optimality_deep.c): the run succeeds and says what f_star is.
cat > "$WORK/deep.yaml" <<'YAML'
experiment: gap_deep
dataset: {name: synthetic, n: 200, d: 4, classes: 2}
model: {type: mlp, hidden: [8]}
train: {epochs: 1, batch_size: 20, lr: 0.1}
algorithm: {name: sgd}
optimality_gap: {reference_epochs: 2}
YAML
"$DPERM" run "$WORK/deep.yaml" --out "$WORK/dp" --quiet 2> "$WORK/err"
check "optimality_gap with a deep model records f_star_method (a reference training)" \
  sh -c "[ $? = 0 ] && grep -q '\"f_star_method\": *\"non-private Adam reference' '$WORK/dp/runs.jsonl'"
finish

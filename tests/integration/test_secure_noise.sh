# Secure noise (privacy.secure_noise, dperm run --secure-noise): seeded runs repeat bit
# for bit, secure runs with the same seed do not; secure records say so; the flag overrides
# the YAML; mechanisms without an exact sampler are refused before anything runs.
. "$(dirname "$0")/lib.sh"

# Every private algorithm whose noise the secure source draws, on one small problem.
cat > "$WORK/grid.yaml" <<'EOF'
experiment: secure
dataset: {name: synthetic, n: 600, d: 8, classes: 2, margin: 0.05, seed: 4}
model: {type: logistic, l2: 0.1}
privacy: {delta: 1.0e-3}
train: {epochs: 3, batch_size: 50, lr: 0.5}
epsilon: 0.8
grid:
  algorithm:
    - {name: dp_sgd, clip: 1.0}
    - {name: dp_lssgd, clip: 1.0, smoothing: 1}
    - {name: output_perturbation}
    - {name: rrpsgd, rounds: 2000}
    - {name: dp_sgd_bassily, batch_size: 50}
    - {name: input_perturbation, iterations: 20}
  seed: [1]
EOF
sed 's/privacy: {delta: 1.0e-3}/privacy: {delta: 1.0e-3, secure_noise: true}/' "$WORK/grid.yaml" > "$WORK/secure.yaml"

"$DPERM" run "$WORK/grid.yaml" -j 2 --out "$WORK/seeded1" --quiet >/dev/null 2>"$WORK/err.seeded"
check "seeded sweep exits 0" [ $? = 0 ]
"$DPERM" run "$WORK/grid.yaml" -j 2 --out "$WORK/seeded2" --quiet >/dev/null
check "seeded records carry no secure_noise field" \
  [ "$(jq -c 'select(has("secure_noise") or has("reproducible"))' "$WORK/seeded1/runs.jsonl" | wc -l)" = 0 ]
check "seeded sweep prints no secure-noise note" sh -c "! grep -q CSPRNG '$WORK/err.seeded'"
stable_records "$WORK/seeded1/runs.jsonl" > "$WORK/s1"
stable_records "$WORK/seeded2/runs.jsonl" > "$WORK/s2"
check "two seeded sweeps: identical records" cmp -s "$WORK/s1" "$WORK/s2"

"$DPERM" run "$WORK/secure.yaml" -j 2 --out "$WORK/secure1" --quiet >/dev/null 2>"$WORK/err.secure"
check "secure sweep exits 0" [ $? = 0 ]
"$DPERM" run "$WORK/secure.yaml" -j 2 --out "$WORK/secure2" --quiet >/dev/null 2>/dev/null
check "secure records say secure_noise true, reproducible false (6 of 6)" \
  [ "$(jq -c 'select(.secure_noise == true and .reproducible == false and .config.privacy.secure_noise == true and .status == "ok")' "$WORK/secure1/runs.jsonl" | wc -l)" = 6 ]
check "the note is printed once" [ "$(grep -c 'CSPRNG.*not reproducible by design' "$WORK/err.secure")" = 1 ]
# Same seed, same ids, different noise: every algorithm's final weights differ, seen in its
# training loss; the privacy accounting is the same as the seeded run's.
jq -r '[.id, .metrics.train_loss] | @tsv' "$WORK/secure1/runs.jsonl" | sort > "$WORK/l1"
jq -r '[.id, .metrics.train_loss] | @tsv' "$WORK/secure2/runs.jsonl" | sort > "$WORK/l2"
check "two secure sweeps, same seed: same ids" \
  [ "$(cut -f1 "$WORK/l1" | tr '\n' ' ')" = "$(cut -f1 "$WORK/l2" | tr '\n' ' ')" ]
check "two secure sweeps, same seed: every run's weights differ" \
  [ "$(paste "$WORK/l1" "$WORK/l2" | awk '$2 == $4' | wc -l)" = 0 ]
check "secure and seeded runs spend the same epsilon" \
  [ "$(jq -r '.metrics.epsilon_spent' "$WORK/secure1/runs.jsonl" | sort | tr '\n' ' ')" = \
    "$(jq -r '.metrics.epsilon_spent' "$WORK/seeded1/runs.jsonl" | sort | tr '\n' ' ')" ]

# --secure-noise overrides the YAML (here: secure_noise: false), and the runs' ids are
# those of the YAML saying true.
sed 's/secure_noise: true/secure_noise: false/' "$WORK/secure.yaml" > "$WORK/off.yaml"
"$DPERM" run "$WORK/off.yaml" -j 2 --out "$WORK/flag" --quiet --secure-noise >/dev/null 2>&1
check "--secure-noise over secure_noise: false exits 0" [ $? = 0 ]
check "--secure-noise: records say secure_noise true" \
  [ "$(jq -c 'select(.secure_noise == true and .config.privacy.secure_noise == true)' "$WORK/flag/runs.jsonl" | wc -l)" = 6 ]
check "--secure-noise: the ids of the YAML saying true" \
  [ "$(jq -r .id "$WORK/flag/runs.jsonl" | sort | tr '\n' ' ')" = "$(cut -f1 "$WORK/l1" | tr '\n' ' ')" ]
cut -f1 "$WORK/l1" > "$WORK/ids.secure"
check "--secure-noise: ids differ from the seeded runs'" \
  [ -z "$(jq -r .id "$WORK/seeded1/runs.jsonl" | sort | comm -12 - "$WORK/ids.secure")" ]

# The l2-norm Laplace of output perturbation has no exact sampler: refused, nothing written.
sed 's/    - {name: output_perturbation}/    - {name: output_perturbation, mechanism: laplace}/' \
  "$WORK/grid.yaml" > "$WORK/lap.yaml"
"$DPERM" run "$WORK/lap.yaml" --out "$WORK/lap" --quiet --secure-noise >/dev/null 2>"$WORK/err.lap"
check "secure output_perturbation laplace: exit 2" [ $? = 2 ]
check "... with one line at the mechanism's position" \
  grep -q "^dperm: $WORK/lap.yaml:[0-9]*:[0-9]*: privacy.secure_noise has no exact sampler for the l2-norm Laplace" "$WORK/err.lap"
check "... and nothing written" [ ! -e "$WORK/lap" ]
finish

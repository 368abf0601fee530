# -j 1 and -j 2 give bit-identical metrics and curves for every run, and the same ids
# as the dry run lists.
. "$(dirname "$0")/lib.sh"

"$DPERM" run "$FIX/small.yaml" -j 1 --out "$WORK/j1" --quiet >/dev/null
check "run -j 1 exits 0" [ $? = 0 ]
"$DPERM" run "$FIX/small.yaml" -j 2 --out "$WORK/j2" --quiet >/dev/null
check "run -j 2 exits 0" [ $? = 0 ]
check "8 records" [ "$(wc -l < "$WORK/j1/runs.jsonl")" = 8 ]
# Longest first: the four dp_sgd runs (twice an sgd run's estimated cost) go before the sgd
# runs, whose epsilon twins are recorded as copies after them.
check "-j 1 runs the costlier dp_sgd runs first" \
  [ "$(jq -r .config.algorithm.name "$WORK/j1/runs.jsonl" | head -n 4 | sort -u)" = dp_sgd ]
stable_records "$WORK/j1/runs.jsonl" > "$WORK/a"
stable_records "$WORK/j2/runs.jsonl" > "$WORK/b"
check "-j 1 and -j 2 records identical" cmp -s "$WORK/a" "$WORK/b"
"$DPERM" run "$FIX/small.yaml" --dry-run | awk 'NF > 2 {print $2}' | sort > "$WORK/dry"
jq -r .id "$WORK/j1/runs.jsonl" | sort > "$WORK/ids"
check "recorded ids equal the dry run's" cmp -s "$WORK/dry" "$WORK/ids"
check "dry run counts 8 runs" sh -c "'$DPERM' run '$FIX/small.yaml' --dry-run | tail -n 1 | grep -q '^8 runs'"
check "summary.csv has a header and 8 rows" [ "$(wc -l < "$WORK/j1/summary.csv")" = 9 ]
check "every private run spent <= its epsilon" sh -c \
  "jq -e 'select(.config.algorithm.name == \"dp_sgd\") | .metrics.epsilon_spent <= .metrics.epsilon' '$WORK/j1/runs.jsonl' | grep -qv false"
check "provenance names the BLAS kernels" sh -c "jq -e '.provenance.blas_core | length > 0' '$WORK/j1/runs.jsonl' >/dev/null"
"$DPERM" run "$FIX/small.yaml" --only algorithm.name=dp_sgd --only seed=2 --out "$WORK/only" --quiet >/dev/null
check "--only keeps 2 runs" [ "$(wc -l < "$WORK/only/runs.jsonl")" = 2 ]

# On real data too: Fashion-MNIST (Debian's package, installed by make deps) through the
# linear models' path (OpenBLAS's threaded matrix products changed the last bits between
# one thread and two there) and an MLP (its lanes and split GEMMs). At -j 1 the worker has
# both cores' threads, at -j 2 one each; the records must not differ in any bit.
if "$DPERM" data list 2>/dev/null | grep -q '^fashion_mnist *found'; then
  cat > "$WORK/real.yaml" <<'EOF2'
experiment: jreal
dataset: {name: fashion_mnist, subsample: 20000, scale: minmax}
privacy: {delta: 1.0e-5}
train: {epochs: 1, batch_size: 128, lr: 0.5, eval_every: 1}
grid:
  model.type: [softmax, mlp]
  algorithm:
    - {name: dp_lssgd, clip: 1.0, noise_multiplier: 1.1, smoothing: [0, 1]}
EOF2
  "$DPERM" run "$WORK/real.yaml" -j 1 --out "$WORK/r1" --quiet >/dev/null
  check "fashion_mnist: run -j 1 exits 0" [ $? = 0 ]
  "$DPERM" run "$WORK/real.yaml" -j 2 --out "$WORK/r2" --quiet >/dev/null
  check "fashion_mnist: run -j 2 exits 0" [ $? = 0 ]
  check "fashion_mnist: 4 records, all ok" \
    [ "$(jq -r 'select(.status == "ok") | .id' "$WORK/r1/runs.jsonl" | wc -l)" = 4 ]
  stable_records "$WORK/r1/runs.jsonl" > "$WORK/ra"
  stable_records "$WORK/r2/runs.jsonl" > "$WORK/rb"
  check "fashion_mnist: -j 1 and -j 2 records identical" sh -c "[ -s '$WORK/ra' ] && cmp -s '$WORK/ra' '$WORK/rb'"
else
  echo "note: fashion_mnist is not installed (make deps installs it); the real-data check is skipped"
fi
finish

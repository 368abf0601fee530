# Runs that train alike train once: a non-private run does not depend on epsilon, so in a
# grid of sgd and dp_sgd over epsilon the sgd runs of one seed form a group whose first
# run trains and whose others are recorded as copies marked same_run_as, in a whole
# sweep, an extended one, a sharded one, and after the training run failed.
. "$(dirname "$0")/lib.sh"

cd "$WORK"
cat > share.yaml <<'EOF2'
experiment: share
dataset: {name: synthetic, n: 1200, d: 8, classes: 3, margin: 0.05, seed: 3}
model: {type: softmax, l2: 1.0e-3}
privacy: {delta: 1.0e-5}
train: {epochs: 1, batch_size: 64, lr: 0.5, eval_every: 1}
grid:
  algorithm: [{name: sgd}, {name: dp_sgd, clip: 1.0}]
  epsilon: [1.0, 2.0, 4.0]
  seed: [1, 2]
report:
  tables:
    - {name: acc, rows: algorithm.name, cols: epsilon, cell: test_accuracy}
EOF2

"$DPERM" run share.yaml --dry-run > dry 2> err
check "dry run: 4 of 12 runs train what an earlier run trains (a note, the count stays last)" \
  sh -c "grep -q '^dperm: note: 4 of these runs train what an earlier run trains (a non-private run does not depend on epsilon)' err && tail -n 1 dry | grep -qx '12 runs'"
check "dry run: a shared run names the run it trains with" \
  sh -c "[ \$(grep -c '(trained once with run [0-9]*)' dry) = 4 ]"

"$DPERM" run share.yaml --out r -j 2 > out 2> err
check "the sweep exits 0" [ $? = 0 ]
check "12 records, one per run" [ "$(record_count r/runs.jsonl)" = 12 ]
check "8 runs trained, 4 recorded as copies" \
  grep -q '^dperm: 8 runs done in r (8 ok, 0 diverged, 0 failed; 4 more recorded as copies of runs that train alike)' out
check "the progress counts the 8 that train" sh -c "grep -q '\[8/8\]' err && ! grep -q '\[9/' err"
check "4 sgd records are copies, no dp_sgd record is" \
  [ "$(jq -r 'select(.same_run_as) | .config.algorithm.name' r/runs.jsonl | sort | uniq -c | tr -s ' ')" = " 4 sgd" ]
# A copy: its own id, index and config (its epsilon), the trained run's numbers.
jq -c 'select(.same_run_as == null and .config.algorithm.name == "sgd") | {id, seed: .config.seed, metrics: (.metrics | del(.cpu_seconds, .wall_seconds)), curves}' r/runs.jsonl | sort > trained
jq -c 'select(.same_run_as) as $c | {id: $c.same_run_as, seed: $c.config.seed, metrics: ($c.metrics | del(.cpu_seconds, .wall_seconds)), curves: $c.curves}' r/runs.jsonl | sort -u > copied
check "each copy has the numbers of the run it names, of its own seed" cmp -s trained copied
check "copies keep their own epsilon and id" \
  [ "$(jq -r 'select(.same_run_as) | "\(.config.epsilon) \(.id != .same_run_as)"' r/runs.jsonl | sort | uniq | tr '\n' ' ')" = "2 true 4 true " ]
# Sharing is sound only if epsilon really changes nothing: train the epsilon 2 sgd runs on
# their own (no earlier run of their group in this sweep) and compare with the copies.
"$DPERM" run share.yaml --out alone --only algorithm.name=sgd --only epsilon=2 -j 2 --quiet
jq -c '{id, metrics: (.metrics | del(.cpu_seconds, .wall_seconds)), curves}' alone/runs.jsonl | sort > alone.rec
jq -c 'select(.config.algorithm.name == "sgd" and .config.epsilon == 2) | {id, metrics: (.metrics | del(.cpu_seconds, .wall_seconds)), curves}' r/runs.jsonl | sort > copies.rec
check "the runs trained alone equal the copies bit for bit" cmp -s alone.rec copies.rec
check "... and trained alone they are no copies" [ "$(jq -r 'select(.same_run_as)' alone/runs.jsonl | wc -l)" = 0 ]

"$DPERM" report r > /dev/null 2> err
check "the report says records copy another run's training" \
  grep -q '^4 of these records copy another run.s training (marked same_run_as)' r/report.md
check "the table says which of its records serve several cells" \
  grep -q '^Shared runs: 4 records of this table copy 2 training runs (same_run_as)' r/tables/acc.md

# An extended grid: the new sgd runs copy recorded ones without training.
sed 's/epsilon: \[1.0, 2.0, 4.0\]/epsilon: [1.0, 2.0, 4.0, 8.0]/' share.yaml > share8.yaml
"$DPERM" run share8.yaml --out r --resume -j 2 > out 2> err
check "the extended sweep trains only the 2 new dp_sgd runs" \
  sh -c "grep -q '^dperm: 14 of 16 runs already recorded in r; running 2$' err && grep -q '^dperm: 2 runs done in r (2 ok, 0 diverged, 0 failed; 2 more recorded as copies' out"
check "... and records the 2 new sgd runs as copies" \
  [ "$(jq -r 'select(.config.epsilon == 8 and .same_run_as) | .config.algorithm.name' r/runs.jsonl | tr '\n' ' ')" = "sgd sgd " ]
check "... 16 records, no id twice" \
  sh -c "[ \$(wc -l < r/runs.jsonl) = 16 ] && [ \$(jq -r .id r/runs.jsonl | sort -u | wc -l) = 16 ]"

# Shards: a copy is written by the shard that trains its group.
"$DPERM" run share.yaml --out s --shard 0/2 -j 1 --quiet 2> err
"$DPERM" run share.yaml --out s --shard 1/2 -j 1 --quiet 2>> err
check "two shards write 12 records between them" \
  [ "$(cat s/runs.0-of-2.jsonl s/runs.1-of-2.jsonl | wc -l)" = 12 ]
check "... each copy in the file of the run it copies" sh -c '
  for f in s/runs.0-of-2.jsonl s/runs.1-of-2.jsonl; do
    for from in $(jq -r "select(.same_run_as) | .same_run_as" "$f"); do
      grep -q "\"id\":\"$from\"" "$f" || exit 1
    done
  done'
"$DPERM" merge s > /dev/null 2> err
check "... and merge into the whole sweep's records" \
  sh -c "[ \$(wc -l < s/runs.jsonl) = 12 ] && [ \$(jq -r 'select(.same_run_as)' s/runs.jsonl | grep -c '^{') = 4 ]"

# The training run fails: its copies are failed too, and --resume retries the group once.
first=$(grep -m1 'algorithm.name=sgd' dry | awk '{print $1}')
DPERM_TEST_CRASH_RUN=$first "$DPERM" run share.yaml --out f -j 2 --quiet 2> err
check "a crashed training run fails the sweep (exit 1)" [ $? = 1 ]
check "... and its 2 copies are recorded failed with it" \
  [ "$(jq -r 'select(.status == "failed") | .config.algorithm.name' f/runs.jsonl | tr '\n' ' ')" = "sgd sgd sgd " ]
"$DPERM" run share.yaml --out f --resume -j 2 > out 2> err
check "--resume trains the group once and records its copies" \
  sh -c "grep -q '^dperm: 1 runs done in f (1 ok, 0 diverged, 0 failed; 2 more recorded as copies' out && [ \$(jq -r 'select(.status == \"ok\")' f/runs.jsonl | grep -c '^{') = 12 ]"
finish

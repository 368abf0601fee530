# PATE end to end on Fashion-MNIST (Debian's package; make deps installs it): teachers
# trained once per ensemble, in parallel, resumable, their votes reused by every
# aggregator of the grid; each record's accounting and student; bad settings exit 2
# with nothing written.
. "$(dirname "$0")/lib.sh"

if ! "$DPERM" data list 2>/dev/null | grep -q '^fashion_mnist *found'; then
  echo "note: fashion_mnist is not installed (make deps installs it); test_pate is skipped"
  finish
  exit $?
fi

cat > "$WORK/pate.yaml" <<'EOF2'
experiment: pate_small
dataset: {name: fashion_mnist, subsample: 6000, split: {public: 1000}}
teachers:
  count: 20
  model: {type: softmax}
  train: {epochs: 5, batch_size: 32, lr: 0.5, eval_every: 5}
model: {type: softmax}
train: {epochs: 10, batch_size: 16, lr: 0.5, eval_every: 10}
grid:
  algorithm:
    - {name: pate, aggregator: confident_gnmax, threshold: 15, sigma1: 4, sigma: 2, queries: 300}
    - {name: pate, aggregator: lnmax, lambda: 2, queries: 100}
    - {name: pate, aggregator: ptr, ptr_epsilon: 2, ptr_delta: 1.0e-3, queries: 100}
EOF2
"$DPERM" run "$WORK/pate.yaml" -j 2 --out "$WORK/a" 2> "$WORK/a.err" > /dev/null
check "run exits 0" [ $? = 0 ]
R="$WORK/a/runs.jsonl"
check "3 records, all ok" [ "$(jq -r 'select(.status == "ok") | .id' "$R" | wc -l)" = 3 ]
T=$(ls -d "$WORK"/a/teachers/*/ 2>/dev/null | head -n 1)
check "one ensemble folder of 20 label files of 1000 bytes" sh -c \
  "[ \$(ls '$T' | grep -c '\.labels\$') = 20 ] && [ \$(cat '$T'/*.labels | wc -c) = 20000 ]"
check "teachers.jsonl: 20 teachers, ok, 300 rows each" \
  [ "$(jq -r 'select(.status == "ok" and .rows == 300) | .index' "$T/teachers.jsonl" | sort -u | wc -l)" = 20 ]
check "teachers.jsonl: each line the SHA-256 of its label file" \
  [ "$(jq -r 'select(.index == 7) | .labels_sha256' "$T/teachers.jsonl")" = "$(sha256sum < "$T/7.labels" | cut -d' ' -f1)" ]
sha=$(for i in $(seq 0 19); do cat "$T/$i.labels"; done | sha256sum | cut -d' ' -f1)
check "every record carries the votes' SHA-256" \
  [ "$(jq -r .metrics.teacher_votes_sha256 "$R" | sort -u)" = "$sha" ]
m() { jq -r --arg a "$1" "select(.metrics.aggregator == \$a) | .metrics.$2" "$R"; }
check "lnmax answers every query" [ "$(m lnmax queries_answered)" = 100 ]
check "confident_gnmax answers some of its 300" sh -c \
  "a=\$(jq -r 'select(.metrics.aggregator == \"confident_gnmax\") | .metrics.queries_answered' '$R'); [ \$a -gt 16 ] && [ \$a -lt 300 ]"
check "label accuracy in (0.5, 1]" sh -c \
  "jq -e 'select(.metrics.aggregator != \"ptr\") | .metrics.label_accuracy > 0.5 and .metrics.label_accuracy <= 1' '$R' | grep -qv false"
check "epsilon_spent is the data-independent bound" sh -c \
  "jq -e '.metrics.epsilon_spent == .metrics.epsilon_data_independent' '$R' | grep -qv false"
check "the data-dependent bound is below it and marked not private" sh -c \
  "jq -e 'select(.metrics.aggregator != \"ptr\") | .metrics.epsilon_data_dependent < .metrics.epsilon_data_independent and .metrics.epsilon_data_dependent_private == false' '$R' | grep -qv false"
# LNMax, 100 answers at lambda 2: eps 1 each; RDP min(eps, eps^2 alpha / 2) composed, at
# delta 1e-5 (the default): more than 1e-5's own term, at most 100 (basic composition)
check "lnmax's data-independent epsilon: RDP of 100 1-DP answers" sh -c \
  "e=\$(jq -r 'select(.metrics.aggregator == \"lnmax\") | .metrics.epsilon_spent' '$R'); awk -v e=\$e 'BEGIN { exit !(e > 30 && e < 100) }'"
check "ptr: basic composition of 100 (2, 1e-3) queries" \
  [ "$(m ptr epsilon_spent) $(m ptr delta)" = "200 0.1" ]
check "students were evaluated on the 1000 held-out test rows" sh -c \
  "jq -e '.dataset.n_test == 9000 and (.metrics.test_accuracy > 0.3)' '$R' | grep -qv false"

# The votes are reused: another aggregator added to the grid trains no teacher.
sed 's/^    - {name: pate, aggregator: ptr.*/&\n    - {name: pate, aggregator: gnmax, sigma: 3, queries: 50}/' "$WORK/pate.yaml" > "$WORK/more.yaml"
"$DPERM" run "$WORK/more.yaml" -j 2 --out "$WORK/a" --resume 2> "$WORK/b.err" > /dev/null
check "resume with one more aggregator exits 0" [ $? = 0 ]
check "...trains no teacher" sh -c "! grep -q 'pate teachers' '$WORK/b.err'"
check "...and its record reads the same votes" \
  [ "$(jq -r .metrics.teacher_votes_sha256 "$R" | sort -u)" = "$sha" ]
# A lost label file is the one teacher trained again, with the same labels.
cp "$T/7.labels" "$WORK/7.before"
rm "$T/7.labels"
jq -c 'select(.metrics.aggregator != "gnmax")' "$R" > "$WORK/kept" && mv "$WORK/kept" "$R"
"$DPERM" run "$WORK/more.yaml" -j 2 --out "$WORK/a" --resume 2> "$WORK/c.err" > /dev/null
check "a lost label file: one teacher trained again" grep -q 'training 1 of 20' "$WORK/c.err"
check "...with the same labels" cmp -s "$T/7.labels" "$WORK/7.before"

# -j 1 and -j 2: the same records, teachers included.
"$DPERM" run "$WORK/pate.yaml" -j 1 --out "$WORK/j1" --quiet > /dev/null
stable_records "$WORK/a/runs.jsonl" | grep -v '"aggregator":"gnmax"' > "$WORK/sa"
stable_records "$WORK/j1/runs.jsonl" > "$WORK/sb"
check "-j 1 and -j 2 records identical" sh -c "[ -s '$WORK/sa' ] && cmp -s '$WORK/sa' '$WORK/sb'"

# The smooth-sensitivity release: the released epsilon is the RDP at the order, plus
# smooth sensitivity x sigma x N(0, 1), plus GNSS's cost (Theorem 23), plus
# ln(1/delta)/(order - 1).
sed 's/sigma: 2, queries: 300}/sigma: 2, queries: 300, release: {order: 8, beta: 0.05, sigma: 0.5}}/' \
  "$WORK/pate.yaml" > "$WORK/rel.yaml"
"$DPERM" run "$WORK/rel.yaml" --only algorithm.aggregator=confident_gnmax --out "$WORK/rel" --quiet > /dev/null
check "release: run exits 0" [ $? = 0 ]
RR="$WORK/rel/runs.jsonl"
jqt() { jq -e "$1" "$2" > /dev/null; }
check "release: marked private, with its parts" \
  jqt '.metrics | .epsilon_data_dependent_private == true and .smooth_sensitivity > 0 and .release_rdp > 0' "$RR"
check "release: epsilon_spent also pays for the release" \
  jqt '.metrics | .epsilon_spent > .epsilon_data_independent' "$RR"
check "release: GNSS cost as Theorem 23" \
  jqt '.metrics | ((.release_gnss_rdp - (8 * (0.1 | exp) / 0.25 + (-0.5 * ((1 - 0.8) | log) + 0.4) / 7)) | fabs) < 1e-9 * .release_gnss_rdp' "$RR"
check "release: R + GNSS + ln(1/delta)/(order - 1), off by a noise within 6 SS sigma" \
  jqt '.metrics | ((.epsilon_data_dependent_released - (.release_rdp + .release_gnss_rdp + ((1 / 1.0e-5) | log) / 7)) | fabs) as $d | $d > 0 and $d < 6 * .smooth_sensitivity * 0.5' "$RR"

# The smoothed student (DPlis App. D): the same labels, another student.
{ sed -e '/^grid:/,$d' -e 's/^experiment: .*/experiment: pate_smooth/' "$WORK/pate.yaml"
  cat <<'EOF2'
grid:
  algorithm:
    - {name: pate, aggregator: gnmax, sigma: 2, queries: 200}
    - {name: pate, aggregator: gnmax, sigma: 2, queries: 200, smooth_sigma: 0.05, samples: 3}
EOF2
} > "$WORK/smooth.yaml"
"$DPERM" run "$WORK/smooth.yaml" --out "$WORK/sm" --quiet > /dev/null
check "smoothed student: run exits 0" [ $? = 0 ]
SM="$WORK/sm/runs.jsonl"
check "smoothed student: the same labels" \
  [ "$(jq -r '[.metrics.queries_answered, .metrics.label_accuracy] | @text' "$SM" | sort -u | wc -l)" = 1 ]
check "smoothed student: recorded" \
  [ "$(jq -r '.metrics.student_smooth_sigma' "$SM" | sort | tr '\n' ' ')" = "0 0.05 " ]
check "smoothed student: another student" [ "$(jq -r .metrics.test_loss "$SM" | sort -u | wc -l)" = 2 ]

# Secure noise applies to the aggregators as to every mechanism.
"$DPERM" run "$WORK/pate.yaml" --only algorithm.aggregator=lnmax --secure-noise --out "$WORK/sec" \
  --quiet > /dev/null 2>&1
check "secure noise: run exits 0" [ $? = 0 ]
check "secure noise: the record says not reproducible, same teachers" \
  jqt 'select(.metrics.aggregator == "lnmax") | .reproducible == false and .metrics.queries_answered == 100' "$WORK/sec/runs.jsonl"

# Bad settings: exit 2, one line, nothing written.
bad() { # NAME SED-EXPRESSION EXPECTED-SUBSTRING
  sed "$2" "$WORK/pate.yaml" > "$WORK/$1.yaml"
  "$DPERM" run "$WORK/$1.yaml" --out "$WORK/$1" > /dev/null 2> "$WORK/$1.err"
  rc=$?
  check "$1: exit 2" [ $rc = 2 ]
  check "$1: says '$3'" grep -q "$3" "$WORK/$1.err"
  check "$1: writes nothing" [ ! -e "$WORK/$1" ]
}
bad count 's/count: 20/count: 7000/' "teachers.count 7000 leaves a part empty: the training set has 6000 rows"
bad batch 's/batch_size: 32, lr/batch_size: 301, lr/' "teachers.train.batch_size 301 exceeds the 300 rows"
bad public 's/, split: {public: 1000}//' "pate asks its queries on a public set"
bad queries 's/queries: 300/queries: 1001/' "algorithm.queries 1001 exceeds the 1000 public examples"
bad private_teachers 's/  count: 20/  count: 20\n  algorithm: {name: dp_sgd, clip: 1, noise_multiplier: 1}/' "PATE's teachers train non-privately"
bad release_beta 's/sigma: 2, queries: 300}/sigma: 2, queries: 300, release: {order: 10, beta: 0.05, sigma: 1}}/' "algorithm.release.beta 0.05: Theorem 23 needs beta < 1 / (2 order) = 0.05"
bad release_lnmax 's/lambda: 2, queries: 100}/lambda: 2, queries: 100, release: {order: 10, beta: 0.01, sigma: 1}}/' "algorithm.release: the smooth-sensitivity analysis is for gnmax and confident_gnmax"
bad samples_alone 's/lambda: 2, queries: 100}/lambda: 2, queries: 100, samples: 3}/' "algorithm.samples is the student's smoothing K: it needs algorithm.smooth_sigma > 0"
bad other_setting 's/lambda: 2, queries/lambda: 2, sigma: 3, queries/' "algorithm.sigma is not used by aggregator lnmax"
finish

# dperm audit end to end: the table and its exit status, --json, --out (written once, never
# overwritten), a mechanism without its noise caught with exit 3, bad options exit 2.
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 2

cat > "$WORK/ok.yaml" <<'YAML'
experiment: audit_ok
dataset: {name: synthetic, n: 120, d: 4, classes: 2, seed: 2}
model: {type: logistic, l2: 0.01}
train: {epochs: 3, batch_size: 96, lr: 0.5}
algorithm: {name: dp_sgd, clip: 1.0}
grid:
  epsilon: [0.5, 2.0]
audit: {trials: 200, seed: 7}
YAML
"$DPERM" audit "$WORK/ok.yaml" > "$WORK/table" 2> "$WORK/err"
check "a private DP-SGD: exit 0" [ $? = 0 ]
check "the table has its header and one row per run" \
  sh -c "grep -q '^| algorithm | epsilon | delta | trials | FPR | FNR | threshold | eps lower bound | verdict |' '$WORK/table' && [ \$(grep -c '^| dp_sgd |' '$WORK/table') = 2 ]"
check "one progress line per audit on stderr" [ "$(grep -c '^dperm audit: [12]/2 dp_sgd' "$WORK/err")" = 2 ]

"$DPERM" audit "$WORK/ok.yaml" --json --trials 100 --seed 3 > "$WORK/json" 2>/dev/null
jq -e '.schema == 1 and (.audits | length) == 2 and .seed == 3 and
       all(.audits[]; .trials == 100 and .verdict == "below claim" and
           .neighbours == "add_remove" and .epsilon_lower_bound <= .epsilon and
           .evaluated_without == 50 and .run.algorithm.name == "dp_sgd")' "$WORK/json" > /dev/null
check "--json: the audits, their verdicts and options" [ $? = 0 ]
"$DPERM" audit "$WORK/ok.yaml" --json --trials 100 --seed 3 > "$WORK/json2" 2>/dev/null
check "the same seed gives the same audit" \
  sh -c "jq -S 'del(.audits[].seconds)' '$WORK/json' > '$WORK/a'; jq -S 'del(.audits[].seconds)' '$WORK/json2' > '$WORK/b'; cmp -s '$WORK/a' '$WORK/b'"

"$DPERM" audit "$WORK/ok.yaml" --trials 100 --out "$WORK/out" > /dev/null 2>&1
check "--out writes audit.md and audit.json" \
  sh -c "grep -q '^| dp_sgd |' '$WORK/out/audit.md' && jq -e '.audits | length == 2' '$WORK/out/audit.json' >/dev/null"
cp "$WORK/out/audit.json" "$WORK/kept.json"
"$DPERM" audit "$WORK/ok.yaml" --trials 100 --out "$WORK/out" > /dev/null 2> "$WORK/err"
check "a folder holding an audit: exit 2, one error line and a hint" \
  sh -c "[ $? = 2 ] && grep -q 'audit.json already exists: an audit is never overwritten' '$WORK/err' && [ \$(wc -l < '$WORK/err') = 2 ]"
check "... and the audit there is untouched" cmp -s "$WORK/out/audit.json" "$WORK/kept.json"

# Output perturbation with its noise switched off (algorithm.noise: off, a debug switch of
# the config): the same claim, no privacy; the audit must say so.
cat > "$WORK/off.yaml" <<'YAML'
experiment: audit_off
dataset: {name: synthetic, n: 120, d: 4, classes: 2, seed: 2}
model: {type: logistic, l2: 0}
algorithm: {name: output_perturbation, mechanism: laplace, iterations: 5, feature_bound: 2.0,
            norm_bound: 1.0, noise: off}
epsilon: 1.0
audit: {trials: 200}
YAML
"$DPERM" audit "$WORK/off.yaml" > "$WORK/table" 2>/dev/null
check "output perturbation without noise: exit 3" [ $? = 3 ]
check "... its row says VIOLATION" grep -q '^| output_perturbation | 1 | 0 | 200 | .* | VIOLATION |$' "$WORK/table"

"$DPERM" audit "$WORK/ok.yaml" --trials 3 > /dev/null 2> "$WORK/err"
check "--trials 3: exit 2" [ $? = 2 ]
"$DPERM" audit "$WORK/ok.yaml" --confidence 1.5 > /dev/null 2> "$WORK/err"
check "--confidence 1.5: exit 2" [ $? = 2 ]
"$DPERM" audit > /dev/null 2> "$WORK/err"
check "no config: exit 2 with the usage line" \
  sh -c "[ $? = 2 ] && grep -q 'dperm audit: missing CONFIG.yaml' '$WORK/err'"
"$DPERM" audit --help | grep -q '^usage: dperm audit CONFIG.yaml'
check "--help prints the usage" [ $? = 0 ]
finish

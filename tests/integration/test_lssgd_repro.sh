# DP-LSSGD reproduction: every config of configs/lssgd/ parses and expands at both scales
# (dperm run --dry-run, so `make test` catches a broken one), and `dperm smoothing`
# writes Tables 3, 4 beside the published numbers and Fig. 2, refusing bad arguments with
# exit 2 before writing anything.
. "$(dirname "$0")/lib.sh"

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$ROOT" || exit 1
for c in configs/lssgd/*.yaml; do
  for s in quick full; do
    "$DPERM" run "$c" --scale "$s" --dry-run > "$WORK/dry" 2>&1
    check "$c expands at scale $s" sh -c "tail -n 1 '$WORK/dry' | grep -Eq '^[0-9]+ runs$'"
  done
done

# Fig. 6 right searches the learning rate as the paper did: 2 NMs x 4 optimizers x 3 rates
"$DPERM" run configs/lssgd/fig6_eps.yaml --scale quick --dry-run > "$WORK/dry" 2>&1
check "fig6_eps expands to 24 runs (2 NMs x 4 optimizers x 3 learning rates)" \
  sh -c "tail -n 1 '$WORK/dry' | grep -qx '24 runs'"
check "fig6_eps: its table and figure pick the best learning rate" \
  [ "$(grep -c 'select: {best_over: train.lr.value, by: test_accuracy, prefer: max}' configs/lssgd/fig6_eps.yaml)" = 2 ]

# Table 2 under both protocols, one cell (epsilon 0.3, LS sigma 3, seed 1) at quick scale:
# the authors' released protocol and dperm's private one, each what it claims to be.
"$DPERM" run configs/lssgd/table2.yaml --scale quick -j 2 --quiet --out "$WORK/t2" \
  --only epsilon=0.3 --only algorithm.smoothing=3 --only seed=1 > /dev/null 2>&1
check "table2 slice: one run per protocol" \
  [ "$(jq -r 'select(.status == "ok") | .config.protocol' "$WORK/t2/runs.jsonl" | sort | tr '\n' ' ')" = "as_published private " ]
# pub JQ / prv JQ: JQ over the as_published / private record
pub() { jq -r "select(.config.protocol == \"as_published\") | $1" "$WORK/t2/runs.jsonl"; }
prv() { jq -r "select(.config.protocol == \"private\") | $1" "$WORK/t2/runs.jsonl"; }
check "as_published: the authors' code (batch-mean clip, shuffled passes of ceil(n/b) steps, a/t_0 per epoch, standardized pixels, uniform init)" \
  [ "$(pub '[.config.algorithm.clip_mode, .config.train.sampling, .config.train.partial_batch, .config.train.lr.schedule, .dataset.preprocessing.standardize.std[0], .config.model.init] | tostring')" = '["batch_mean_per_tensor","shuffle","keep","inverse_epoch",0.3081,"uniform_fan_in"]' ]
check "as_published: no valid epsilon (verdict none), the paper's claim, and estimates far above it" \
  [ "$(pub '[.metrics.privacy_verdict, .metrics.epsilon_tight, .metrics.epsilon_data_dependent > 10 * .metrics.epsilon_claimed, .metrics.epsilon_worst_case >= .metrics.epsilon_data_dependent] | tostring')" = '["none",null,true,true]' ]
check "private: per-example clipping, Thm 1's claim confirmed by pld_wor" \
  [ "$(prv '[.config.algorithm.clip_mode // "per_example", .metrics.privacy_verdict, (.metrics.tight_accountant | startswith("pld_wor"))] | tostring')" = '["per_example","holds",true]' ]
check "the as-published protocol is the more accurate one (it spends far more than it claims)" \
  [ "$(jq -s 'map({(.config.protocol): .metrics.test_accuracy}) | add | .as_published > .private' "$WORK/t2/runs.jsonl")" = true ]
"$DPERM" report "$WORK/t2" --format md > /dev/null 2>&1
check "its report: as published has no valid epsilon in its cell, private its tight one" \
  grep -q '(no valid eps) | .*(tight eps [0-9.]*) |$' "$WORK/t2/report.md"
check "its report: the paper beside both protocols, the claim judged per protocol" \
  sh -c "grep -q '| paper | ours, as_published | ours, private |' '$WORK/t2/report.md' && grep -q 'protocol as_published\]' '$WORK/t2/report.md'"

"$DPERM" smoothing --out "$WORK/sm" > "$WORK/sm.log" 2>&1
check "dperm smoothing exits 0" [ $? = 0 ]
check "Table 3: every gamma agrees with the paper as printed" \
  grep -q "Table 3 (gamma): 15 of 15 cells agree" "$WORK/sm/report.md"
check "Table 4: every beta agrees with the paper as printed" \
  grep -q "Table 4 (beta): 15 of 15 cells agree" "$WORK/sm/report.md"
check "Fig. 2's claim is judged" grep -q 'Claim "LS removes the noise" (Fig. 2): holds' "$WORK/sm/report.md"
check "table3.csv: a header and 15 cells" [ "$(wc -l < "$WORK/sm/table3.csv")" = 16 ]
check "table4.csv: sigma 3, d 1e4 is 0.149" grep -q '^10000,3,0.1493423605221770[0-9]*,.*,0.149,yes$' "$WORK/sm/table4.csv"
check "Fig. 2 data: 100 points in 1-D" [ "$(grep -vc '^#' "$WORK/sm/fig2_1d.dat")" = 100 ]
check "Fig. 2 script written" [ -s "$WORK/sm/fig2.gp" ]
if command -v gnuplot >/dev/null 2>&1; then
  check "Fig. 2 drawn" sh -c "head -c 4 '$WORK/sm/fig2.png' | grep -q PNG"
fi
check "report.html says what report.md says (a table, the claim, the figure)" \
  sh -c "grep -q '<li>Table 3 (gamma): 15 of 15 cells agree with the paper as printed.</li>' '$WORK/sm/report.html' && grep -q '<td>0.149342</td><td>0.149</td>' '$WORK/sm/report.html' && grep -q 'Claim &quot;LS removes the noise&quot; (Fig. 2): holds' '$WORK/sm/report.html' && grep -q '<img src=\"fig2.png\"' '$WORK/sm/report.html'"
check "fidelity.json counts the cells that agree and the claim's verdict" \
  sh -c "jq -e '[.tables[].within] == [15, 15] and [.tables[].compared] == [15, 15] and .claims[0].verdict == \"holds\"' '$WORK/sm/fidelity.json' > /dev/null"
# In a results folder dperm made (make reproduce's results/SCALE/), the index lists it.
mkdir -p "$WORK/res" && touch "$WORK/res/.dperm-results"
"$DPERM" smoothing --out "$WORK/res/lssgd_smoothing" > /dev/null 2>&1
check "the results index lists the smoothing report with its page title and fidelity" \
  grep -q '<a href="lssgd_smoothing/report.html">lssgd_smoothing</a></th><td style="text-align:left">DP-LSSGD Tables 3, 4 and Fig. 2 (the smoothing operator)</td><td>—</td><td>[0-9-]* [0-9:]* UTC</td><td style="text-align:left">30 of 30 cells within the paper&#39;s band; 1 of 1 claims hold</td>' "$WORK/res/index.html"
cp "$WORK/sm/fig2_1d.dat" "$WORK/seed1.dat"
"$DPERM" smoothing --out "$WORK/sm" --seed 2 > /dev/null 2>&1
check "another seed redraws the noise" sh -c "[ -s '$WORK/sm/fig2_1d.dat' ] && ! cmp -s '$WORK/sm/fig2_1d.dat' '$WORK/seed1.dat'"

"$DPERM" smoothing --out "$WORK/bad" --seed x > /dev/null 2> "$WORK/err"
check "a bad seed exits 2" [ $? = 2 ]
check "...naming --seed" grep -q -- "--seed" "$WORK/err"
"$DPERM" smoothing --out "$WORK/bad" --reference-dir "$WORK/nowhere" > /dev/null 2> "$WORK/err"
check "a missing reference exits 2" [ $? = 2 ]
check "...and writes nothing" [ ! -e "$WORK/bad" ]
check "...saying what to do" grep -q -- "--reference-dir" "$WORK/err"
finish

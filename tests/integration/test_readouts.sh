# Read-outs (train.readout): one run read at several epochs and epsilons, the same bits
# as the run without them, and reports keyed by read-out (docs/results.md, "Read-outs").
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.." || exit 2

R="$FIX/readouts"
"$DPERM" run "$R/mlp.yaml" --scale small --out "$WORK/ro" -j 2 -q 2> "$WORK/err"
check "read-out sweep runs" [ "$(jq -r .status "$WORK/ro/runs.jsonl" | sort -u)" = ok ]
first=$(head -n 1 "$WORK/ro/runs.jsonl")
check "a record carries one entry per read-out, in epoch order (epochs 1, 3; eps 1.9, 2.5 at 2, 4)" \
  [ "$(echo "$first" | jq -c '[.readouts[] | [.epoch, .epsilon_target]]')" = '[[1,null],[2,1.9],[3,null],[4,2.5]]' ]
check "an epsilon read-out is the first epoch whose rdp epsilon reaches its target" \
  sh -c "echo '$first' | jq -e >/dev/null '[.readouts[] | select(.epsilon_target) | .epsilon_spent >= .epsilon_target] | all'"
check "an entry holds its step, model and privacy measurements" \
  sh -c "echo '$first' | jq -e >/dev/null '.readouts[1] | .iteration == 40 and (.test_accuracy | type) == \"number\" and (.test_loss | type) == \"number\" and .epsilon_pld < .epsilon_spent and .privacy_verdict == \"holds\"'"
# the epsilon of each read-out is what the calculator gives for its steps
want=$("$DPERM" privacy epsilon --sigma 1.2 --q 0.05 --steps 40 --delta 1e-5 | sed 's/epsilon = \([^ ]*\).*/\1/')
got=$(echo "$first" | jq '.readouts[1].epsilon_spent')
check "read-out epsilon = dperm privacy epsilon at its steps ($got ~ $want)" \
  awk -v a="$got" -v b="$want" 'BEGIN { exit !((a - b) ^ 2 < (1e-5 * b) ^ 2) }'

# the same run without read-outs: every number it shares is the same
"$DPERM" run "$R/mlp_plain.yaml" --out "$WORK/plain" -j 1 -q 2>> "$WORK/err"
jq -cS '.metrics | del(.cpu_seconds, .wall_seconds)' "$WORK/ro/runs.jsonl" | sort > "$WORK/m.ro"
jq -cS '.metrics | del(.cpu_seconds, .wall_seconds)' "$WORK/plain/runs.jsonl" | sort > "$WORK/m.plain"
check "read-outs change no final metric (bit for bit)" cmp -s "$WORK/m.ro" "$WORK/m.plain"
jq -c '[.seed // 1, .curves.iteration[-1], .curves.test_loss[-1], .curves.train_loss[-1]]' \
  "$WORK/ro/runs.jsonl" | sort > "$WORK/c.ro"
jq -c '[.seed // 1, .curves.iteration[-1], .curves.test_loss[-1], .curves.train_loss[-1]]' \
  "$WORK/plain/runs.jsonl" | sort > "$WORK/c.plain"
check "read-outs change no final curve point" cmp -s "$WORK/c.ro" "$WORK/c.plain"
"$DPERM" run "$R/mlp.yaml" --out "$WORK/ro1" -j 1 -q 2>> "$WORK/err"
stable_records "$WORK/ro/runs.jsonl" > "$WORK/s2"
stable_records "$WORK/ro1/runs.jsonl" > "$WORK/s1"
jq -cS '.readouts' "$WORK/ro/runs.jsonl" | sort > "$WORK/r2"
jq -cS '.readouts' "$WORK/ro1/runs.jsonl" | sort > "$WORK/r1"
check "-j 1 and -j 2 give the same records and read-outs" sh -c "cmp -s '$WORK/s1' '$WORK/s2' && cmp -s '$WORK/r1' '$WORK/r2'"

# reports keyed by read-out
"$DPERM" report "$WORK/ro" --format md,html > /dev/null 2>> "$WORK/err"
md="$WORK/ro/report.md"
check "a table takes readout.epoch as its columns, one cell per read-out epoch" \
  grep -q '| model.type | readout.epoch=1 ours | paper | diff | readout.epoch=2 ours' "$md"
check "the fidelity comparison works on read-out cells (1 of 2 in band)" \
  grep -q 'Table by_epoch: 1 of 2 compared cells within' "$md"
check "a read-out table counts read-outs and the runs they come from" \
  grep -q '^Read-outs: 8 ok, 0 failed, 0 diverged, of 2 runs' "$md"
check "a table takes readout.epsilon_target as its columns (two runs per cell, not four)" \
  grep -q '| mlp | 1.998 ± 0.000 (n=2) | 2.552 ± 0.000 (n=2) |' "$md"
check "a figure takes readout.epsilon as its x (4 points)" \
  [ "$(grep -c '^[0-9]' "$WORK/ro/figures/acc_vs_eps.dat")" = 4 ]
check "a report states its scale (md and html)" sh -c "grep -q '^Scale: small ' '$md' && grep -q '<p>Scale: small ' '$WORK/ro/report.html'"
check "a table states the settings every one of its runs has" \
  grep -q '^Every run of this table: dataset.name=synthetic, .*algorithm.noise_multiplier=1.2' "$md"
check "no warnings" [ ! -s "$WORK/err" ]
finish

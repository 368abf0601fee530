# Private runs calibrate their noise with the configured accountant and record the
# epsilon it says they spent: never above the target, and close below it; tighter
# accountants need less noise for the same target.
. "$(dirname "$0")/lib.sh"

"$DPERM" run "$FIX/accountants.yaml" -j 2 --out "$WORK/a" --quiet >/dev/null
check "runs under four accountants exit 0" [ $? = 0 ]
R="$WORK/a/runs.jsonl"
check "8 records" [ "$(wc -l < "$R")" = 8 ]
check "every run spent <= its target epsilon" \
  sh -c "jq -e '.metrics.epsilon_spent <= .metrics.epsilon' '$R' | grep -qv false"
check "and within 2% below it (calibrated, not wasteful)" \
  sh -c "jq -e '.metrics.epsilon_spent >= 0.98 * .metrics.epsilon' '$R' | grep -qv false"
check "each record names its accountant" \
  sh -c "jq -e '.metrics.accountant | startswith(\"rdp\") or startswith(\"pld\") or startswith(\"moments\")' '$R' | grep -qv false"
# less_noise A B: at epsilon 1, accountant A calibrates a smaller noise multiplier than B.
less_noise() {
  jq -se --arg a "$1" --arg b "$2" '
    def s($n): map(select(.config.privacy.accountant == $n and .config.epsilon == 1.0))[0].metrics.noise_multiplier;
    s($a) < s($b)' "$R" >/dev/null
}
check "pld needs less noise than rdp" less_noise pld rdp
check "rdp needs less noise than moments" less_noise rdp moments
check "rdp_wor runs use without-replacement batches" \
  sh -c "jq -r 'select(.config.privacy.accountant == \"rdp_wor\") | .metrics.accountant' '$R' | grep -q 'without replacement'"
check "noise std is sigma x C" \
  sh -c "jq -e '.metrics.noise_std == .metrics.noise_multiplier * .config.algorithm.clip' '$R' | grep -qv false"
# A delta above 1/n (it permits releasing a row) is warned about once, naming the delta
# and n; the runs still run. A delta below 1/n is not warned about.
"$DPERM" run "$FIX/delta_loose.yaml" -j 1 --out "$WORK/loose" --quiet >/dev/null 2>"$WORK/loose.err"
check "delta > 1/n: the sweep runs (exit 0)" [ $? = 0 ]
check "delta > 1/n: one warning naming delta 0.01 and n = 400" \
  sh -c "[ \$(grep -c 'warning: 1 of 1 private runs have privacy.delta above 1/n (e.g. delta 0.01 with n = 400 ' '$WORK/loose.err') = 1 ] && [ \$(wc -l < '$WORK/loose.err') = 1 ]"
sed 's/delta: 0.01/delta: 1.0e-3/' "$FIX/delta_loose.yaml" > "$WORK/tight.yaml"
"$DPERM" run "$WORK/tight.yaml" --dry-run >/dev/null 2>"$WORK/tight.err"
check "delta < 1/n: no warning" [ ! -s "$WORK/tight.err" ]
finish

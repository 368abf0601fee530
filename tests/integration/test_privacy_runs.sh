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
finish

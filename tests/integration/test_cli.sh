# The CLI surface: help, version, list, privacy, report.
. "$(dirname "$0")/lib.sh"

check "--help exits 0" sh -c "'$DPERM' --help | grep -q 'usage: dperm'"
check "run --help exits 0" sh -c "'$DPERM' run --help | grep -q -- '--resume'"
check "--version names git and libraries" sh -c "'$DPERM' --version | grep -q 'OpenBLAS' && '$DPERM' --version | grep -q 'git'"
check "list algorithms names dp_sgd" sh -c "'$DPERM' list algorithms | grep -q dp_sgd"
check "list accountants names rdp" sh -c "'$DPERM' list accountants | grep -q rdp"
# Abadi et al.'s setting: q 0.01, sigma 4, 10000 steps, delta 1e-5; improved RDP
# conversion 1.0355 (shared/reference/privacy/README.md).
out=$("$DPERM" privacy epsilon --sigma 4 --q 0.01 --steps 10000 --delta 1e-5)
check "privacy epsilon matches the reference 1.0355" sh -c "echo '$out' | grep -qE 'epsilon = 1\.03[45]'"
out=$("$DPERM" privacy sigma --epsilon 1.0355 --q 0.01 --steps 10000 --delta 1e-5)
check "privacy sigma inverts it" sh -c "echo '$out' | grep -qE 'sigma = (4|4\.00[0-9]*|3\.99[0-9]*) '"
out=$("$DPERM" privacy steps --epsilon 1.0355 --sigma 4 --q 0.01 --delta 1e-5)
check "privacy steps inverts it" sh -c "echo '$out' | grep -qE 'steps = (99[0-9][0-9]|100[0-9][0-9]) '"
# The rate as a fraction, and the schedule as epochs of a data set: DPlis's MNIST setting
# (sigma 1.1, batch 256 of 60,000, 26 epochs of 234 steps) is its eps 1.99 under the
# legacy RDP accountant (DPlis Table 2; dperm's order grid gives 1.994).
a=$("$DPERM" privacy epsilon --sigma 1.1 --q 256/60000 --steps 6084 --delta 1e-5 --accountant rdp_classic)
b=$("$DPERM" privacy epsilon --sigma 1.1 --epochs 26 --n 60000 --batch 256 --delta 1e-5 --accountant rdp_classic)
check "privacy --q 256/60000 is the rate 256/60000 (epsilon 1.994)" sh -c "echo '$a' | grep -qF 'epsilon = 1.99415 ' && echo '$a' | grep -qF 'q 0.00426667, 6084 steps'"
check "privacy --epochs 26 --n 60000 --batch 256 is 6084 steps at q 256/60000" [ "$a" = "$b" ]
"$DPERM" privacy epsilon --sigma 1.1 --epochs 26 --n 60000 --delta 1e-5 >/dev/null 2>"$WORK/err"
check "privacy --epochs without --batch exits 2 with one line" sh -c "[ $? = 2 ] && [ \$(wc -l < '$WORK/err') = 1 ] && grep -q 'go together' '$WORK/err'"
"$DPERM" privacy epsilon --sigma 1.1 --q 256/0 --steps 3 --delta 1e-5 >/dev/null 2>"$WORK/err"
check "privacy --q 256/0 exits 2 with one line" sh -c "[ $? = 2 ] && [ \$(wc -l < '$WORK/err') = 1 ] && grep -q 'fraction A/B' '$WORK/err'"
out=$("$DPERM" privacy epsilon --sigma 4 --q 0.01 --steps 10000 --delta 1e-5 --accountant moments)
check "the moments accountant gives Abadi et al.'s 1.26" sh -c "echo '$out' | grep -qE 'epsilon = 1\.2[56]'"
out=$("$DPERM" privacy epsilon --sigma 4 --q 0.01 --steps 10000 --delta 1e-5 --verbose)
check "--verbose lists all eight accountants" [ "$(echo "$out" | grep -cE '^  (rdp|rdp_classic|moments|rdp_wor|pld|advanced|basic|lssgd_theorem1) ')" = 8 ]
"$DPERM" privacy epsilon --sigma 4 --q 0.01 --steps 10 --delta 1e-5 --accountant rpd 2> "$WORK/err"
check "an unknown accountant exits 2 and lists the known" sh -c "[ $? = 2 ] && grep -q 'known: rdp' '$WORK/err'"
"$DPERM" privacy sigma --epsilon 1e-9 --q 1 --steps 1000000 --delta 1e-5 2> "$WORK/err"
check "an unreachable target exits 2 with one line" sh -c "[ $? = 2 ] && grep -q 'out of reach' '$WORK/err'"

out=$("$DPERM" list datasets)
check "list datasets says how to train the regression sets" \
  sh -c "echo \"\$1\" | grep -E '^  (wine_quality|bike) ' | grep -c 'model.type squared or huber' | grep -qx 2 \
         && ! echo \"\$1\" | grep -q 'no trainer'" sh "$out"

"$DPERM" bench --model linear_784_10 --seconds 0.02 --repeats 1 --dplis-samples 2 --json > "$WORK/bench" 2>&1
check "bench --json exits 0" [ $? = 0 ]
check "bench reports dgemm, sgemm, sgd, dp_sgd, dp_lssgd and dplis lines" \
  [ "$(jq -r '.kernel // .mode' "$WORK/bench" | sort | tr '\n' ' ')" = "dgemm dp_lssgd dp_sgd dplis sgd sgemm " ]
check "bench throughput is positive" sh -c "jq -e 'select(.examples_per_s) | .examples_per_s > 0 and .batch == 256' '$WORK/bench' | grep -qv false"
check "bench's DPlis line has K = 2 and its cost against DP-SGD" \
  jq -e 'select(.mode == "dplis") | .samples == 2 and .cost_vs_dp_sgd > 0' "$WORK/bench" > /dev/null
"$DPERM" bench --model linear_784_10 --seconds 0.02 --repeats 1 --dplis-samples 0 --json > "$WORK/bench0" 2>&1
check "bench --dplis-samples 0 leaves DPlis out" sh -c "! grep -q dplis '$WORK/bench0'"
"$DPERM" bench --model nope 2>/dev/null
check "bench with an unknown model exits 2" [ $? = 2 ]

"$DPERM" run "$FIX/small.yaml" --out "$WORK/rep" --quiet >/dev/null
"$DPERM" report "$WORK/rep" > "$WORK/out"
check "report exits 0" [ $? = 0 ]
check "report writes the Markdown table" [ -s "$WORK/rep/tables/acc.md" ]
check "report writes the CSV table" [ -s "$WORK/rep/tables/acc.csv" ]
check "report writes a PNG figure" sh -c "head -c 8 '$WORK/rep/figures/acc_eps.png' | od -An -tx1 | grep -q '89 50 4e 47'"
check "report keeps the gnuplot script and data" sh -c "[ -s '$WORK/rep/figures/acc_eps.gp' ] && [ -s '$WORK/rep/figures/acc_eps.dat' ]"
"$DPERM" report "$WORK/nowhere" 2>/dev/null
check "report of a missing folder exits 2" [ $? = 2 ]
finish

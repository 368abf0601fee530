# Real datasets: `dperm data list|info|check`, runs on iris (DPERM_DATA) and on Debian's
# Fashion-MNIST (also as mnist's fallback, recorded), the missing-dataset error (exit 2,
# nothing written), corrupt data files and bad dataset keys.
. "$(dirname "$0")/lib.sh"

FMNIST=/usr/share/datasets/fashion-mnist
have_shared=0
if [ -n "${DPERM_DATA:-}" ] && [ -f "${DPERM_DATA%%:*}/uci/iris/iris.data" ]; then have_shared=1; fi
EMPTY="$WORK/empty"
mkdir -p "$EMPTY"

# ---- dperm data -----------------------------------------------------------------------
"$DPERM" data --help > "$WORK/out"
check "data --help exits 0" [ $? = 0 ]
"$DPERM" data frob 2> "$WORK/err"
check "data with an unknown subcommand exits 2" [ $? = 2 ]
"$DPERM" data info imagenett 2> "$WORK/err"
check "data info on an unknown name exits 2" [ $? = 2 ]
if [ "$have_shared" = 1 ]; then
  "$DPERM" data list > "$WORK/list"
  check "data list exits 0 with the shared datasets" [ $? = 0 ]
  for d in mnist adult bank bank_additional wine_quality bike kddcup99 breast_cancer iris; do
    check "data list: $d found and verified" grep -qE "^$d +found .* verified$" "$WORK/list"
  done
  check "data list: credit_default validated by format (no published sum)" \
    grep -qE "^credit_default +found .*no published sum \(CSV export of the .xls" "$WORK/list"
  check "data list: cifar10 missing, with how to get it" grep -qE '^cifar10 +missing .*make data' "$WORK/list"
  check "data list: shape after preprocessing" grep -qE '^adult +found +30162/0/15060 x 105 ' "$WORK/list"
  "$DPERM" data check > "$WORK/check"
  check "data check exits 0" [ $? = 0 ]
  "$DPERM" data info iris > "$WORK/info"
  check "data info iris: class balance" grep -q 'Iris-setosa' "$WORK/info"
  check "data info iris: feature ranges" grep -q 'features in \[' "$WORK/info"
  DPERM_DATA= "$DPERM" data info iris --data-dir "${DPERM_DATA%%:*}" > "$WORK/info"
  check "data info NAME --data-dir DIR (options after the name)" grep -q 'Iris-setosa' "$WORK/info"
else
  echo "note: DPERM_DATA does not hold the shared datasets; list/check/iris checks skipped"
fi
if [ -d "$FMNIST" ]; then
  DPERM_DATA= "$DPERM" data info fashion_mnist > "$WORK/info"
  check "data info fashion_mnist from Debian's package" grep -q "from $FMNIST" "$WORK/info"
  check "...60000 training rows" grep -qE '^train +60000 rows' "$WORK/info"
fi

# ---- runs ------------------------------------------------------------------------------
cat > "$WORK/iris.yaml" <<'EOF'
experiment: iris_it
dataset: {name: iris, split: {test_fraction: 0.3}}
model: {type: softmax}
train: {epochs: 3, batch_size: 10, lr: 0.5}
algorithm: {name: dp_sgd, clip: 1.0}
epsilon: 4.0
EOF
if [ "$have_shared" = 1 ]; then
  "$DPERM" run "$WORK/iris.yaml" --out "$WORK/iris" -q
  check "a run on iris exits 0" [ $? = 0 ]
  check "...records the dataset and its verified file" \
    [ "$(jq -r '.dataset.name + " " + .dataset.files[0].published_sha256' "$WORK/iris/runs.jsonl")" = "iris match" ]
  check "...and its split (105 + 45)" [ "$(jq -c '[.dataset.n_train, .dataset.n_test]' "$WORK/iris/runs.jsonl")" = "[105,45]" ]
  check "...and its preprocessing" [ "$(jq -r '.dataset.preprocessing.normalize' "$WORK/iris/runs.jsonl")" = unit_l2 ]
fi
cat > "$WORK/mnist.yaml" <<'EOF'
experiment: mnist_it
dataset: {name: mnist, subsample: 1500, split: {validation: 500}}
model: {type: softmax}
train: {epochs: 5, batch_size: 100, lr: 0.5}
algorithm: {name: sgd}
EOF
if [ -d "$FMNIST" ]; then
  DPERM_DATA= "$DPERM" run "$WORK/mnist.yaml" --data-dir "$EMPTY" --out "$WORK/fm" -q 2> "$WORK/err"
  check "mnist missing: the run falls back to fashion_mnist and exits 0" [ $? = 0 ]
  check "...says so on stderr" grep -q "using fashion_mnist from $FMNIST" "$WORK/err"
  check "...and in the record" \
    [ "$(jq -c '[.dataset.requested, .dataset.name, .dataset.fallback]' "$WORK/fm/runs.jsonl")" = '["mnist","fashion_mnist",true]' ]
  check "...with the split asked (1000 + 500 validation + 10000 test)" \
    [ "$(jq -c '[.dataset.n_train, .dataset.n_validation, .dataset.n_test]' "$WORK/fm/runs.jsonl")" = "[1000,500,10000]" ]
  check "...and a useful model (accuracy > 0.5)" \
    [ "$(jq '.metrics.test_accuracy > 0.5' "$WORK/fm/runs.jsonl")" = true ]
fi
sed 's/name: mnist,/name: mnist, fallback: false,/' "$WORK/mnist.yaml" > "$WORK/nofb.yaml"
DPERM_DATA= "$DPERM" run "$WORK/nofb.yaml" --data-dir "$EMPTY" --out "$WORK/nofb" 2> "$WORK/err"
check "a missing dataset exits 2" [ $? = 2 ]
check "...in one line naming the folders and what to do" \
  grep -qxF "dperm: $WORK/nofb.yaml:2:17: dataset 'mnist' not found in: $EMPTY, datasets/data, /usr/share/datasets; run \`make data\` or pass --data-dir, or set DPERM_DATA to the folder holding it" "$WORK/err"
check "...and writes nothing" [ ! -e "$WORK/nofb" ]

# A corrupt data file: the error names the file and line; exit 2, nothing written.
mkdir -p "$WORK/bad/uci/iris"
printf '5.1,3.5,1.4,0.2,Iris-setosa\n4.9,3.0,1.4,0.2,Iris-setosa\n4.7,x,1.3,0.2,Iris-setosa\n' > "$WORK/bad/uci/iris/iris.data"
DPERM_DATA= "$DPERM" run "$WORK/iris.yaml" --data-dir "$WORK/bad" --out "$WORK/badrun" 2> "$WORK/err"
check "a corrupt data file exits 2" [ $? = 2 ]
check "...naming file and line" grep -qF "dperm: $WORK/bad/uci/iris/iris.data:3:1: field 2: 'x' is not a number" "$WORK/err"
check "...and writes nothing" [ ! -e "$WORK/badrun" ]

# Dataset keys are validated with positions and suggestions.
sed 's/split: {test_fraction: 0.3}/normalise: unit_l2/' "$WORK/iris.yaml" > "$WORK/key.yaml"
"$DPERM" run "$WORK/key.yaml" --out "$WORK/k" 2> "$WORK/err"
check "a misspelt dataset key exits 2 with a suggestion" grep -q "key.yaml:2:23: unknown key 'normalise' in dataset; did you mean 'normalize'?" "$WORK/err"
sed 's/split: {test_fraction: 0.3}/labels: pm1/' "$WORK/iris.yaml" > "$WORK/pm1.yaml"
"$DPERM" run "$WORK/pm1.yaml" --out "$WORK/k" 2> "$WORK/err"
check "pm1 without a positive class on a 3-class set exits 2" grep -q "needs dataset.positive" "$WORK/err"
# the model is checked against the data's shape once the files are found
if [ "$have_shared" = 1 ]; then
  sed 's/name: iris, split: {test_fraction: 0.3}/name: wine_quality/' "$WORK/iris.yaml" > "$WORK/wine.yaml"
  "$DPERM" run "$WORK/wine.yaml" --out "$WORK/k" 2> "$WORK/err"
  check "a regression dataset with a classifier exits 2 and says why" grep -q "wine_quality is a regression dataset (real target): use model.type squared or huber" "$WORK/err"
fi
# Data that `make data` put into the repository is found when dperm runs from another
# folder: a copy of the program in REPO/bin finds REPO/datasets/data (here a truncated iris,
# so the message names the file it found), and a dataset found nowhere names every folder
# searched and DPERM_DATA.
mkdir -p "$WORK/repo/bin" "$WORK/repo/datasets/data/uci/iris" "$WORK/elsewhere"
cp "$DPERM" "$WORK/repo/bin/dperm"
cp "$(dirname "$0")/../bad_inputs/data/data-iris-truncated/uci/iris/iris.data" "$WORK/repo/datasets/data/uci/iris/"
printf 'experiment: i\ndataset: {name: iris}\nmodel: {type: softmax}\ntrain: {epochs: 1, batch_size: 16, lr: 0.1}\nalgorithm: {name: sgd}\n' > "$WORK/elsewhere/i.yaml"
(cd "$WORK/elsewhere" && env -u DPERM_DATA "$WORK/repo/bin/dperm" run i.yaml --dry-run > /dev/null 2> "$WORK/err")
check "from another folder, the repository's datasets/data is searched" \
  grep -qF "dperm: $WORK/repo/datasets/data/uci/iris/iris.data: 2 data rows" "$WORK/err"
sed 's/name: iris/name: adult/' "$WORK/elsewhere/i.yaml" > "$WORK/elsewhere/a.yaml"
(cd "$WORK/elsewhere" && env -u DPERM_DATA "$WORK/repo/bin/dperm" run a.yaml --dry-run > /dev/null 2> "$WORK/err")
check "a dataset found nowhere names every folder searched and DPERM_DATA" \
  grep -qF "dataset 'adult' not found in: datasets/data, $WORK/repo/datasets/data, /usr/share/datasets; run \`make data\` or pass --data-dir, or set DPERM_DATA to the folder holding it" "$WORK/err"
finish

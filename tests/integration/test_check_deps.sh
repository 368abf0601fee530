# make check-deps: the include directions of harness/layers.txt hold for the tree as it is
# (with no exception listed), and a copy of the tree with one wrong include of each kind
# fails, naming the file, the line and why.
. "$(dirname "$0")/lib.sh"

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
check "the tree passes, with no exception in layers.txt" \
  sh -c "sh '$ROOT/tests/check_deps.sh' | grep -qx 'include directions: ok' && ! grep -q '^allow' '$ROOT/harness/layers.txt'"

mkdir -p "$WORK/tree/tests"
cp -r "$ROOT/harness" "$ROOT/algorithms" "$ROOT/datasets" "$WORK/tree/"
cp "$ROOT/tests/check_deps.sh" "$WORK/tree/tests/"
# wrong FILE INCLUDE EXPECTED: add `#include "INCLUDE"` as FILE's last line; check-deps must
# exit 1 and print FILE:LINE: INCLUDE (EXPECTED).
wrong() {
  _file=$1 _inc=$2 _why=$3
  cp "$ROOT/$_file" "$WORK/tree/$_file"
  printf '#include "%s"\n' "$_inc" >> "$WORK/tree/$_file"
  _line=$(wc -l < "$WORK/tree/$_file")
  sh "$WORK/tree/tests/check_deps.sh" > "$WORK/out" 2> "$WORK/err"
  _rc=$?
  check "$_file including $_inc: exit 1" [ "$_rc" = 1 ]
  check "$_file including $_inc: says where and why" \
    grep -qxF "$_file:$_line: $_inc ($_why)" "$WORK/out"
  cp "$ROOT/$_file" "$WORK/tree/$_file"
}
wrong harness/spec/spec.c harness/sweep/plan.h "spec may not include sweep (harness/layers.txt)"
wrong harness/store/store.c harness/report/report.h "store may not include report (harness/layers.txt)"
wrong harness/cli/cli_run.c harness/spec/spec_int.h "spec_int.h is private to harness/spec"
wrong algorithms/train_common.c harness/spec/spec.h "algorithms never includes harness/"
wrong datasets/csv.c algorithms/models/model.h "datasets/ includes only algorithms/base/"
check "the copy passes again once the includes are undone" \
  sh -c "sh '$WORK/tree/tests/check_deps.sh' | grep -qx 'include directions: ok'"

finish

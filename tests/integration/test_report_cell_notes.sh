# Cells without runs by design and claims within a context, on hand-written records:
# rows (dataset.seed, algorithm.name) x epsilon, algorithm b not run at epsilon 2 (as
# Zhang17 Table 3's Bassily et al. at eps >= 1), a cell note saying why; a claim "a beats
# b" compares a and b on the same dataset.seed only (a on seed 2 is worse than b on seed
# 1, so comparing across seeds would fail it) and skips the noted cells.
. "$(dirname "$0")/lib.sh"

R="$WORK/results/notes"
mkdir -p "$R"
rec() {   # rec INDEX SEED ALGO EPS GAP
  printf '{"schema":1,"id":"%016x","index":%d,"experiment":"notes","status":"ok","config":{"experiment":"notes","dataset":{"name":"synthetic","seed":%d},"algorithm":{"name":"%s"},"epsilon":%s,"seed":1},"metrics":{"optimality_gap":%s},"curves":{},"provenance":{"dperm_version":"0.1.0","git_revision":"abc","host":"h","started":"2026-01-01T00:00:00Z"}}\n' \
    "$1" "$1" "$2" "$3" "$4" "$5"
}
{ rec 1 1 a 1 1; rec 2 1 b 1 2; rec 3 1 a 2 0.5
  rec 4 2 a 1 10; rec 5 2 b 1 20; rec 6 2 a 2 5; } > "$R/runs.jsonl"
cat > "$R/config.yaml" <<'YAML'
experiment: notes
dataset: {name: synthetic}
model: {type: logistic}
train: {epochs: 1, batch_size: 10, lr: 0.1}
algorithm: {name: gd}
report:
  formats: [md, csv, html, tex]
  tables:
    - {name: gap, rows: [dataset.seed, algorithm.name], cols: epsilon, cell: optimality_gap,
       cell_notes: [{where: {algorithm.name: b, epsilon: 2}, text: "not run: b needs eps < 1.5"}]}
    - {name: plain, rows: [dataset.seed, algorithm.name], cols: epsilon, cell: optimality_gap}
  claims:
    - {text: "a beats b", table: gap, better: {algorithm.name: a}, than: {algorithm.name: b}}
    - {text: "a beats b, no notes", table: plain, better: {algorithm.name: a},
       than: {algorithm.name: b}}
    - {text: "b beats a", table: gap, better: {algorithm.name: b}, than: {algorithm.name: a}}
YAML
"$DPERM" report "$R" > "$WORK/out" 2> "$WORK/err"
check "report exits 0" [ $? = 0 ]
check "a noted cell shows its note" grep -qE '^\| 1 \| b \| 2\.000 \(n=1\) \| not run: b needs eps < 1\.5 \|$' "$R/tables/gap.md"
check "a cell without a note says no runs" grep -qE '^\| 1 \| b \| 2\.000 \(n=1\) \| no runs \|$' "$R/tables/plain.md"
check "LaTeX gets the note with < as \\textless{}" grep -q 'not run: b needs eps \\textless{} 1.5' "$R/tables/gap.tex"
check "the note is listed once under the table, with its cell count" \
  grep -q '^2 cells without runs by design: not run: b needs eps < 1.5.' "$R/tables/gap.md"
check "report.html shows the note in the cell" grep -q '<td[^>]*>not run: b needs eps &lt; 1.5</td>' "$R/report.html"
check "a claim compares within the same dataset.seed and skips noted cells" \
  grep -qE '^- Claim "a beats b": holds \(gap: 2 comparisons, all in favour\)' "$R/report.md"
check "without the note the missing cells leave the claim open" \
  grep -qE '^- Claim "a beats b, no notes": not enough data' "$R/report.md"
check "the reverse claim fails on a same-seed pair" \
  grep -qE '^- Claim "b beats a": does not hold \(gap: dataset.seed=1, algorithm.name=b 2 vs dataset.seed=1, algorithm.name=a 1 at epsilon=1\)' "$R/report.md"

# A cell note must name the table's rows or cols paths, and be well formed.
sed -i 's/where: {algorithm.name: b, epsilon: 2}/where: {train.lr: 2}/' "$R/config.yaml"
"$DPERM" report "$R" > "$WORK/out" 2> "$WORK/err"
check "a note on another path is refused (exit 2)" [ $? = 2 ]
check "the error names the note and the path" grep -q 'cell_notes\[0\].where.train.lr: not one of the table.s rows or cols paths' "$WORK/err"

# The experiment file's cell_notes are checked before a sweep starts, at their position.
cat > "$WORK/bad.yaml" <<'YAML'
experiment: bad
dataset: {name: synthetic, n: 200, d: 3}
model: {type: logistic}
train: {epochs: 1, batch_size: 10, lr: 0.1}
algorithm: {name: sgd}
report:
  tables:
    - {name: t, rows: algorithm.name, cell: test_accuracy,
       cell_notes: [{where: {algorithm.name: sgd}}]}
YAML
"$DPERM" run "$WORK/bad.yaml" --dry-run --out "$WORK/bad" > /dev/null 2> "$WORK/err"
check "a note without text is refused (exit 2)" [ $? = 2 ]
check "at its position" grep -q 'bad.yaml:9:21: report.tables\[0\].cell_notes\[0\]: missing required key .text.' "$WORK/err"
check "nothing was written" [ ! -e "$WORK/bad" ]
finish

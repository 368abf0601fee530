# A report beside a paper: a tiny synthetic grid shaped like DP-LSSGD Table 2 (LS sigma
# x epsilon, two learning rates, two seeds), a reference file written here, best-of
# selection over the learning rate and two claims; then the Markdown, CSV, LaTeX and
# HTML outputs, the marks, the fidelity lines and the results index.
. "$(dirname "$0")/lib.sh"

mkdir -p "$WORK/configs/reference"
# Paper values chosen so that sigma = 0 at epsilon 4 is certainly outside its band
# (accuracy cannot be 150 %) and sigma = 1 at epsilon 1 certainly inside (± 2 std of 100).
cat > "$WORK/configs/reference/tiny.yaml" <<'EOF'
source: {paper: "Tiny paper <i>", table: Table 2, page: 6}
metric: test_accuracy
unit: percent
scale: 100
runs: 5
rows: algorithm.smoothing
cols: epsilon
cells:
  - {row: 0, col: 4.0, mean: 150.00, std: 1.00}
  - {row: 1, col: 1.0, mean: 50.00, std: 100.00}
  - {row: 1, col: 4.0, mean: 60.00}
EOF
cat > "$WORK/configs/tiny.yaml" <<'EOF'
experiment: tiny
paper: "Tiny paper, Table 2"
dataset: {name: synthetic, n: 400, d: 5, classes: 3, margin: 0.05, seed: 3}
model: {type: softmax, l2: 1.0e-3}
privacy: {delta: 1.0e-5}
train: {epochs: 1, batch_size: 32, lr: 0.5}
grid:
  algorithm:
    - {name: dp_lssgd, clip: 1.0, smoothing: [0, 1]}
  epsilon: [1.0, 4.0]
  train.lr: [0.1, 0.5]
  seed: [1, 2]
report:
  formats: [md, csv, tex, html, png, pdf, svg]
  tables:
    - {name: table2, rows: algorithm.smoothing, cols: epsilon, cell: test_accuracy,
       reference: configs/reference/tiny.yaml, select: {best_over: train.lr}}
  figures:
    - {name: acc, x: epsilon, y: test_accuracy, by: algorithm.smoothing, logx: true,
       where: {train.lr: 0.5}}
  claims:
    - {text: "accuracy is below 1.5 everywhere", table: table2, better: {algorithm.smoothing: 0},
       than: {algorithm.smoothing: 1}, higher_is_better: true}
    - {text: "sigma 0 beats sigma 1 or not, on average", table: table2, for: on_average,
       better: {algorithm.smoothing: [0, 1]}, than: {algorithm.smoothing: [0, 1]}}
EOF
cd "$WORK"
"$DPERM" run configs/tiny.yaml --out results/tiny -j 2 --quiet > /dev/null
check "the tiny grid runs" [ $? = 0 ]
"$DPERM" report results/tiny > out 2> err
check "report exits 0" [ $? = 0 ]
R=results/tiny
for f in tables/table2.md tables/table2.csv tables/table2.tex report.md report.html fidelity.json \
         figures/acc.png figures/acc.pdf figures/acc.svg figures/acc.gp figures/acc.dat; do
  check "report writes $f" [ -s "$R/$f" ]
done
check "the index lists the experiment" grep -q 'href="tiny/report.html"' results/index.html
check "the index names the band count" grep -q 'cells within the paper&#39;s band' results/index.html
check "the index gives each experiment's paper, scale and report date" \
  grep -qE '<a href="tiny/report.html">tiny</a></th><td style="text-align:left">Tiny paper, Table 2</td><td>full</td><td>[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2} UTC</td>' results/index.html
check "the Markdown table has ours, paper and diff per epsilon" \
  grep -q '| algorithm.smoothing | epsilon=1 ours | paper | diff | epsilon=4 ours | paper | diff |' "$R/tables/table2.md"
check "ours is in the paper's unit with its decimals" grep -qE '^\| 0 \| [0-9]+\.[0-9]{2} ± [0-9]+\.[0-9]{2} \(n=2, train.lr=0\.[15]\) \|' "$R/tables/table2.md"
check "a cell far from the paper is marked" grep -qE '^\| 0 \|.*\| [0-9.]+ ± [0-9.]+ \(n=2, train.lr=[0-9.]+\) † \| 150.00 ± 1.00 \| -' "$R/tables/table2.md"
check "a cell inside the band is not marked" grep -qE '^\| 1 \| [0-9.]+ ± [0-9.]+ \(n=2, train.lr=[0-9.]+\) \| 50.00 ± 100.00 \|' "$R/tables/table2.md"
check "a cell without a paper value says so" grep -qE '^\| 0 \| [^|]+ \| — \| — \|' "$R/tables/table2.md"
check "the best-of note names K and the unaccounted privacy" \
  grep -q 'Best of 2 configurations per cell: the value of train.lr .*(privacy spent on the search not accounted)' "$R/tables/table2.md"
check "the differing cells are counted, not listed again under the table that marks them" \
  sh -c "grep -qE \"^Ours lies outside the paper's band in [0-9]+ cells?, marked †.\\\$\" '$R/tables/table2.md' && grep -qE '^\| 0 \|.*†' '$R/tables/table2.md'"
check "the CSV has the paper columns" grep -q ',paper_mean,paper_std,paper_scale,diff,outside_band,note$' "$R/tables/table2.csv"
check "the CSV marks the outside cell" grep -qE '^0,4,test_accuracy,.*,150.00,1.00,100,-[0-9.]+,1,$' "$R/tables/table2.csv"
check "the LaTeX table is booktabs with a dagger" sh -c "grep -q '\\\\toprule' '$R/tables/table2.tex' && grep -q '\\\\dagger' '$R/tables/table2.tex' && grep -q 'multicolumn{3}{c}{epsilon = 4}' '$R/tables/table2.tex'"
check "fidelity in report.md counts the band" grep -qE '^- Table table2: [0-9] of 3 compared cells within the paper.s band \(Tiny paper <i>, Table 2, p. 6\)' "$R/report.md"
check "the first claim holds or fails with a comparison, never crashes" grep -qE '^- Claim "accuracy is below 1.5 everywhere": (holds|does not hold) \(table2: ' "$R/report.md"
check "two rows that must each beat the other cannot both win" \
  grep -qE '^- Claim "sigma 0 beats sigma 1 or not, on average": does not hold' "$R/report.md"
check "fidelity.json lists the outside cell" sh -c "jq -e '.tables[0].outside | map(select(.row == [0] and .col == 4)) | length == 1' '$R/fidelity.json' > /dev/null"
check "fidelity.json has two claim verdicts" sh -c "[ \"\$(jq '.claims | length' '$R/fidelity.json')\" = 2 ]"
check "report.html escapes the paper's name" sh -c "grep -q 'Tiny paper &lt;i&gt;' '$R/report.html' && ! grep -q 'Tiny paper <i>' '$R/report.html'"
check "report.html shows the figure as a PNG" grep -q '<img src="figures/acc.png"' "$R/report.html"
check "report.html marks outside cells" grep -q '<td class="outside">' "$R/report.html"
check "report.html names the data used" grep -q 'Data used: synthetic' "$R/report.html"
check "report.html loads nothing from the network" sh -c "! grep -qiE '(src|href)=\"(https?:)?//' '$R/report.html'"

check "report.html says the paper's numbers are printed beside ours" grep -q 'printed beside them as published' "$R/report.html"
# The same runs without a reference: the page does not claim the paper's numbers are shown.
cp -r "$R" results/tiny_noref
sed -i 's|reference: configs/reference/tiny.yaml, ||' results/tiny_noref/config.yaml
"$DPERM" report results/tiny_noref > /dev/null 2> err
check "without a reference: report exits 0" [ $? = 0 ]
check "... and says the paper prints no numbers here, not that they are beside ours" \
  sh -c "grep -q 'The paper prints no numbers for these tables' results/tiny_noref/report.html \
         && ! grep -q 'printed beside them' results/tiny_noref/report.html"

# The index is written only where dperm made the results folder: a user's own folder with
# an index.html of theirs keeps it; a folder dperm creates gets one.
mkdir -p mine && echo '<p>my own page</p>' > mine/index.html && cp mine/index.html mine.orig
"$DPERM" run configs/tiny.yaml --out mine/tiny -j 2 --quiet > /dev/null
"$DPERM" report mine/tiny > /dev/null 2> err
check "report into a user's folder exits 0" [ $? = 0 ]
check "... leaves the user's index.html as it was" cmp -s mine/index.html mine.orig
check "... and says so in one note" grep -q 'mine/index.html is not an index dperm wrote: left as it is' err
mkdir -p theirs
"$DPERM" run configs/tiny.yaml --out theirs/tiny -j 2 --quiet > /dev/null
"$DPERM" report theirs/tiny > /dev/null 2> err
check "a folder dperm did not make gets no index, and no note" sh -c "[ ! -e theirs/index.html ] && ! grep -q 'index' err"
"$DPERM" run configs/tiny.yaml --out fresh/tiny -j 2 --quiet > /dev/null
"$DPERM" report fresh/tiny > /dev/null 2> err
check "a results folder dperm made gets its index" grep -q 'href="tiny/report.html"' fresh/index.html
# A results root inside another (results/quick/ in results/, as make reproduce makes it):
# the outer index lists the inner experiments too, so one page lists every experiment.
mkdir -p outer && touch outer/.dperm-results
"$DPERM" run configs/tiny.yaml --out outer/quick/tiny -j 2 --quiet > /dev/null
"$DPERM" report outer/quick/tiny > /dev/null 2> err
check "the inner index lists the experiment" grep -q 'href="tiny/report.html"' outer/quick/index.html
check "... and so does the outer one, by its path" grep -q '<a href="quick/tiny/report.html">quick/tiny</a>' outer/index.html
# That folder holds experiments' folders: an experiment run into it is refused (exit 2),
# its index and the other experiment's records untouched.
cp fresh/index.html fresh.index
"$DPERM" run configs/tiny.yaml --out fresh -j 2 --quiet > /dev/null 2> err
check "a sweep into a results root exits 2, naming the folder to use instead" \
  sh -c "[ $? = 2 ] && grep -q '^dperm: fresh holds other experiments. results folders and their index, not one experiment.s runs$' err && grep -q 'pass --out fresh/NAME' err"
check "... and writes nothing there" \
  sh -c "[ ! -e fresh/runs.jsonl ] && cmp -s fresh/index.html fresh.index && [ \$(wc -l < fresh/tiny/runs.jsonl) = 16 ]"

# A metric name no run has is refused by `dperm report` at its position (it would draw an
# empty figure), with the closest metric; a config path no run has is refused already by
# `dperm run --dry-run`.
cp -r "$R" results/tiny_typo
sed -i 's/y: test_accuracy, by:/y: test_acc, by:/' results/tiny_typo/config.yaml
rm results/tiny_typo/report.md
"$DPERM" report results/tiny_typo > /dev/null 2> err
check "report: y: test_acc exits 2" [ $? = 2 ]
check "... with one line at its position naming test_accuracy" \
  sh -c "[ \$(wc -l < err) = 1 ] && grep -qE '^dperm: results/tiny_typo/config.yaml:[0-9]+:[0-9]+: report.figures\[0\].y: no run has the metric .test_acc.; did you mean .test_accuracy.\?$' err"
check "... and writes no report" [ ! -e results/tiny_typo/report.md ]
sed 's/rows: algorithm.smoothing,/rows: algorithm.smothing,/' configs/tiny.yaml > configs/typo.yaml
"$DPERM" run configs/typo.yaml --dry-run > /dev/null 2> err
check "run --dry-run: rows: algorithm.smothing exits 2 with the closest path" \
  sh -c "[ $? = 2 ] && grep -q \"report.tables\[0\].rows: no run has the config path 'algorithm.smothing'; did you mean 'algorithm.smoothing'?\" err"

# Figures label their axes and key in words (a table of names), and a figure's own
# xlabel / ylabel win.
check "the figure's axes and key have human labels" \
  sh -c "grep -qx \"set xlabel 'Privacy budget epsilon'\" '$R/figures/acc.gp' && grep -q \"^set ylabel 'Test accuracy (%)'\" '$R/figures/acc.gp' && grep -q \"title 'Laplacian smoothing sigma'\" '$R/figures/acc.gp'"
cp -r "$R" results/tiny_labels
sed -i 's/y: test_accuracy, by:/y: test_accuracy, ylabel: "Accuracy of the last iterate", by:/' results/tiny_labels/config.yaml
"$DPERM" report results/tiny_labels > /dev/null 2> err
check "a log axis labels its decades 10, 100, not 1e+01" grep -qx "set format x '%.10g'" "$R/figures/acc.gp"
check "a figure's ylabel overrides the table of names" \
  grep -q "^set ylabel 'Accuracy of the last iterate'" results/tiny_labels/figures/acc.gp

# A figure beside a table with a reference (its y the table's cell, its x the columns, its
# by the rows) plots in the paper's unit and draws the paper's values as hollow markers
# in the colour of their series; `table: none` turns that off.
check "a figure beside a percent table plots percent" \
  sh -c "grep -qx \"set ylabel 'Test accuracy (%)'   # lines: mean over runs; bands/bars: +- sample std\" '$R/figures/acc.gp' && awk '/^# series: 1/{getline; exit !(\$2 > 1 && \$2 <= 100)}' '$R/figures/acc.dat'"
check "... draws the paper's values, hollow, in their series' colours" \
  sh -c "grep -q '^  data index 2 using 1:2:3 with yerrorbars lc 1 pt 6 ' '$R/figures/acc.gp' && grep -q '^  data index 3 using 1:2:3 with yerrorbars lc 2 pt 6 ' '$R/figures/acc.gp' && grep -q \"keyentry with points pt 6 .* title 'Paper (hollow markers)'\" '$R/figures/acc.gp'"
check "... with the paper's numbers in the data file (std 0 where none is printed)" \
  sh -c "awk '/paper.s values beside series: 0/{getline; print; exit}' '$R/figures/acc.dat' | grep -qx '4 150 1 1' && awk '/paper.s values beside series: 1/{getline; getline; print; exit}' '$R/figures/acc.dat' | grep -qx '4 60 0 1'"
check "... and says so under the figure" \
  grep -q "^Hollow markers: the paper's values (Tiny paper <i>, Table 2, p. 6; table table2's reference)" "$R/report.md"
check "error bars of two series at one x are drawn aside (a factor on a log axis)" \
  sh -c "grep -q '^  data index 0 using (\\\$1\*0\.9[0-9]*):2:3 with yerrorlines' '$R/figures/acc.gp' && grep -q '^  data index 1 using (\\\$1\*1\.0[0-9]*):2:3 with yerrorlines' '$R/figures/acc.gp'"
cp -r "$R" results/tiny_nopaper
sed -i 's/y: test_accuracy, by:/y: test_accuracy, table: none, by:/' results/tiny_nopaper/config.yaml
"$DPERM" report results/tiny_nopaper > /dev/null 2> err
check "table: none plots the metric as recorded, without the paper's values" \
  sh -c "grep -q \"^set ylabel 'Test accuracy'   #\" results/tiny_nopaper/figures/acc.gp && ! grep -q 'pt 6' results/tiny_nopaper/figures/acc.gp"
sed 's/y: test_accuracy, by:/y: test_accuracy, table: tabel2, by:/' configs/tiny.yaml > configs/badtable.yaml
"$DPERM" run configs/badtable.yaml --dry-run > /dev/null 2> err
check "a figure's table naming no table exits 2 at its position" \
  sh -c "[ $? = 2 ] && grep -qE \"^dperm: configs/badtable.yaml:[0-9]+:[0-9]+: report.figures\\[0\\].table 'tabel2': no table of report.tables has that name\" err"
# Runs evaluated on a validation split record it under test_*: the figure says validation.
cp -r "$R" results/tiny_val
sed -i 's/"dataset":{"name":"synthetic"/"dataset":{"evaluate":"validation","name":"synthetic"/' results/tiny_val/runs.jsonl
"$DPERM" report results/tiny_val > /dev/null 2> err
check "runs evaluated on a validation split: the axis says Validation accuracy" \
  grep -q "^set ylabel 'Validation accuracy (%)'" results/tiny_val/figures/acc.gp

# a broken reference stops the report at its position, with exit 2
sed -i 's/mean: 60.00}/mean: sixty}/' configs/reference/tiny.yaml
"$DPERM" report results/tiny > /dev/null 2> err
check "a malformed reference exits 2" [ $? = 2 ]
check "the error names the reference file, line and column" grep -q 'tiny.yaml:11:30: cells\[2\].mean: expected a number' err
"$DPERM" run configs/tiny.yaml --out results/tiny2 --dry-run > /dev/null 2> err
check "run refuses the sweep before running" [ $? = 2 ]
finish

# `make install` into a DESTDIR: the program, its man page (every command's --help) and the
# configs land under PREFIX; the installed dperm runs from any folder and looks for
# datasets in PREFIX/share/dperm/datasets.
. "$(dirname "$0")/lib.sh"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
STAGE="$WORK/stage"
P="$STAGE/opt/dperm"
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$ROOT" install DESTDIR="$STAGE" PREFIX=/opt/dperm \
  > "$WORK/out" 2>&1
check "make install DESTDIR=... PREFIX=/opt/dperm exits 0" [ $? = 0 ]
check "the program is installed, executable" [ -x "$P/bin/dperm" ]
check "the man page has a section per command" \
  sh -c "for c in RUN REPORT MERGE SLURM LIST PRIVACY DATA BENCH AUDIT SMOOTHING; do grep -q \"^.SH \\\"DPERM \$c\\\"\" '$P/share/man/man1/dperm.1' || exit 1; done"
check "the man page renders without warnings" \
  sh -c "! command -v groff >/dev/null || [ -z \"\$(groff -man -ww -z '$P/share/man/man1/dperm.1' 2>&1)\" ]"
check "the configs are installed" [ -f "$P/share/dperm/configs/quick.yaml" ]
mkdir -p "$WORK/elsewhere"
(cd "$WORK/elsewhere" && "$P/bin/dperm" run "$P/share/dperm/configs/quick.yaml" --dry-run > "$WORK/dry" 2>&1)
check "the installed dperm plans an installed config from another folder" \
  sh -c "[ $? = 0 ] && grep -qE '^[0-9]+ runs$' '$WORK/dry'"
mkdir -p "$P/share/dperm/datasets/uci/iris"
cp "$ROOT/tests/bad_inputs/data/data-iris-truncated/uci/iris/iris.data" "$P/share/dperm/datasets/uci/iris/"
printf 'experiment: i\ndataset: {name: iris}\nmodel: {type: softmax}\ntrain: {epochs: 1, batch_size: 16, lr: 0.1}\nalgorithm: {name: sgd}\n' > "$WORK/elsewhere/i.yaml"
(cd "$WORK/elsewhere" && env -u DPERM_DATA "$P/bin/dperm" run i.yaml --dry-run > /dev/null 2> "$WORK/err")
check "the installed dperm finds datasets in PREFIX/share/dperm/datasets" \
  grep -qF "$P/share/dperm/datasets/uci/iris/iris.data: 2 data rows" "$WORK/err"
env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$ROOT" uninstall DESTDIR="$STAGE" PREFIX=/opt/dperm > /dev/null 2>&1
check "make uninstall removes the program and the man page" \
  [ ! -e "$P/bin/dperm" -a ! -e "$P/share/man/man1/dperm.1" -a ! -e "$P/share/dperm/configs" ]
finish

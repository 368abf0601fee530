# Crash safety: SIGKILL of a running sweep at 10 random moments (during start-up, mid-run
# and near the end, with -j 2 so forked workers die too), a --resume after each, and a
# full disk, both as a tiny tmpfs (when mount is permitted) and as a file size limit
# (ulimit -f, always). Each ends with exactly the grid's ids, no duplicates, no half lines
# and the numbers of an uninterrupted sweep; no record written before a kill or a full disk
# is lost or changed.
#
# The kill moments come from bash's RANDOM seeded with DPERM_CRASH_SEED (default: the
# clock); the seed is printed so a failure can be replayed with the same moments.
. "$(dirname "$0")/lib.sh"

SWEEP="$FIX/sweep.yaml"
N=48
SEED=${DPERM_CRASH_SEED:-$(date +%s)}
RANDOM=$SEED
echo "     (kill moments seeded with DPERM_CRASH_SEED=$SEED)"
# rand LO HI: an integer in [LO, HI] from the seeded sequence.
rand() { echo $(($1 + RANDOM % ($2 - $1 + 1))); }
# msleep MS: sleep MS milliseconds.
msleep() { sleep "$(printf '0.%03d' "$1")"; }

"$DPERM" run "$SWEEP" -j 2 --out "$WORK/clean" --quiet >/dev/null
check "uninterrupted sweep exits 0" [ $? = 0 ]

# ---- 10 kills at random moments --------------------------------------------------------
# Phases in order of progress: start (a random delay of 0-150 ms after launch: grid
# expansion, reading the records, writing config.yaml and sweep.json, first forks), mid
# (once a random number of records exists, then 0-80 ms more), end (once 46 or 47 of the
# 48 records exist, then 0-100 ms: the last runs or the final summary.csv).
DIR="$WORK/killed"
phases="start start mid mid start mid mid mid end end"
mids=$(for i in 1 2 3 4 5; do rand 2 42; done | sort -n)
landed=0
kill_no=0
prev_ok=1
for phase in $phases; do
  kill_no=$((kill_no + 1))
  "$DPERM" run "$SWEEP" -j 2 --out "$DIR" --resume --quiet >/dev/null 2>&1 &
  pid=$!
  case $phase in
    start) msleep "$(rand 0 150)" ;;
    mid) target=$(echo "$mids" | head -n 1); mids=$(echo "$mids" | tail -n +2)
         wait_records "$pid" "$DIR/runs.jsonl" "$target"; msleep "$(rand 0 80)" ;;
    end) wait_records "$pid" "$DIR/runs.jsonl" $((37 + kill_no)); msleep "$(rand 0 100)" ;;
  esac
  kill -9 "$pid" 2>/dev/null && landed=$((landed + 1))
  wait "$pid" 2>/dev/null
  n=$(record_count "$DIR/runs.jsonl")
  echo "     kill $kill_no ($phase): $n records"
  # Every complete line is a record, ids are unique, and the records of the previous
  # stop are still there byte for byte at the start of the file.
  [ -f "$DIR/runs.jsonl" ] && ! whole_lines "$DIR/runs.jsonl" && prev_ok=0
  [ "$(head -n "$n" "$DIR/runs.jsonl" 2>/dev/null | jq -r .id | sort | uniq -d | wc -l)" = 0 ] || prev_ok=0
  if [ -f "$WORK/prev" ]; then
    head -c "$(stat -c %s "$WORK/prev")" "$DIR/runs.jsonl" | cmp -s - "$WORK/prev" || prev_ok=0
  fi
  [ -f "$DIR/runs.jsonl" ] && head -n "$n" "$DIR/runs.jsonl" > "$WORK/prev"
done
sleep 0.2
check "no orphan workers after the kills" sh -c "! pgrep -f '[s]weep.yaml -j 2 --out $DIR' >/dev/null"
check "at least 8 of the 10 kills stopped a running sweep ($landed did)" [ "$landed" -ge 8 ]
check "after every kill: whole records, unique ids, earlier records unchanged" [ "$prev_ok" = 1 ]
"$DPERM" run "$SWEEP" -j 2 --out "$DIR" --resume --quiet >/dev/null
check "resume after the kills exits 0" [ $? = 0 ]
check_sweep_equal "after 10 kills" "$WORK/clean" "$DIR" "$N"
leftover=$(ls -A "$DIR" | grep -v -x -e runs.jsonl -e summary.csv -e config.yaml -e config.original.yaml -e sweep.json)
check "no temporary files left${leftover:+ (left: $leftover)}" [ -z "$leftover" ]
# What a kill between a worker's record file and its collection leaves: a job file whose
# number belongs to the killed sweep's job list. A resume with nothing left to run clears it.
mkdir -p "$DIR/.work" && echo '{}' > "$DIR/.work/job-47.json"
"$DPERM" run "$SWEEP" -j 2 --out "$DIR" --resume --quiet >/dev/null
check "a stale worker record file is cleared by the next resume" [ ! -e "$DIR/.work" ]

# ---- full disk -------------------------------------------------------------------------
# full_disk LABEL DIR MESSAGE CMD...: run the sweep into DIR under CMD (which limits the
# space), expect exit 1 with one error line naming a file of DIR and MESSAGE, whole records
# only, then keep a copy of what was written for the checks after the resume.
full_disk() {
  _l=$1 _dir=$2 _msg=$3
  shift 3
  "$@" "$DPERM" run "$SWEEP" -j 2 --out "$_dir" --quiet >/dev/null 2>"$WORK/err"
  _st=$?
  check "$_l: exit status 1 (some runs not done, the others recorded)" [ "$_st" = 1 ]
  check "$_l: one error line naming the file and '$_msg'" \
    [ "$(grep -v '^dperm: hint: ' "$WORK/err" | grep -c -E "^dperm: cannot [a-z ]+ $_dir/[^ ]+: $_msg\$")" = 1 \
      -a "$(grep -v -c '^dperm: hint: ' "$WORK/err")" = 1 ]
  sed 's/^/     /' "$WORK/err"
  _n=$(record_count "$_dir/runs.jsonl")
  check "$_l: the sweep stopped part way ($_n of $N recorded)" [ "$_n" -gt 0 -a "$_n" -lt "$N" ]
  check "$_l: runs.jsonl holds whole lines only" sh -c "[ \"\$(tail -c 1 '$_dir/runs.jsonl' | od -An -c | tr -d ' ')\" = '\\n' ] && jq -e . '$_dir/runs.jsonl' >/dev/null"
  cp "$_dir/runs.jsonl" "$WORK/before_resume"
}
# after_room LABEL DIR: --resume (with room again) completes the sweep, and every record
# written before the failure is still at the start of runs.jsonl, unchanged.
after_room() {
  "$DPERM" run "$SWEEP" -j 2 --out "$2" --resume --quiet >/dev/null
  check "$1: --resume with room again exits 0" [ $? = 0 ]
  check "$1: the records written before the failure are unchanged" \
    sh -c "head -c \$(stat -c %s '$WORK/before_resume') '$2/runs.jsonl' | cmp -s - '$WORK/before_resume'"
  check_sweep_equal "$1" "$WORK/clean" "$2" "$N"
}

# A file size limit of 30 KB: runs.jsonl reaches it after about 15 records. SIGXFSZ is
# ignored by dperm, so the append fails with EFBIG instead of killing the sweep.
full_disk "ulimit -f" "$WORK/limited" "File too large" bash -c 'ulimit -f 30 && exec "$@"' bash
after_room "ulimit -f" "$WORK/limited"

MNT="$WORK/tmpfs"
mkdir -p "$MNT"
if mount -t tmpfs -o size=64k dperm-test "$MNT" 2>/dev/null; then
  trap 'umount "$MNT" 2>/dev/null; rm -rf "$WORK"' EXIT
  full_disk "64 KB tmpfs" "$MNT/r" "No space left on device" env
  # Still full: a second attempt fails too, and loses nothing. It may append whole
  # records first: the first pass can stop while a worker's record file still holds a
  # page, and the cleanup that frees it leaves room for one more record (seen: 27
  # records after the first pass, 28 after the resume). So the earlier records must be
  # an unchanged prefix, never rewritten, and every line whole.
  "$DPERM" run "$SWEEP" -j 2 --out "$MNT/r" --resume --quiet >/dev/null 2>&1
  check "64 KB tmpfs: a resume on the still full disk fails" [ $? != 0 ]
  check "64 KB tmpfs: ... keeps the earlier records as an unchanged prefix, whole lines only" \
    sh -c "head -c \$(stat -c %s '$WORK/before_resume') '$MNT/r/runs.jsonl' | cmp -s - '$WORK/before_resume' \
           && jq -e . '$MNT/r/runs.jsonl' >/dev/null"
  # The same on purpose: free one record's room by cutting the last record off (a page
  # of tmpfs), resume on the otherwise full disk: it appends whole records after the
  # kept ones and fails when the disk is full again.
  _n=$(record_count "$MNT/r/runs.jsonl")
  head -n $((_n - 1)) "$MNT/r/runs.jsonl" > "$WORK/cut" && cat "$WORK/cut" > "$MNT/r/runs.jsonl"
  "$DPERM" run "$SWEEP" -j 2 --out "$MNT/r" --resume --quiet >/dev/null 2>&1
  _st=$?
  _m=$(record_count "$MNT/r/runs.jsonl")
  check "64 KB tmpfs, room for one record: the resume appends ($_m records from $((_n - 1))) and fails when full" \
    [ "$_st" = 1 -a "$_m" -ge "$_n" ]
  check "64 KB tmpfs, room for one record: the kept records are an unchanged prefix, whole lines only" \
    sh -c "head -c \$(stat -c %s '$WORK/cut') '$MNT/r/runs.jsonl' | cmp -s - '$WORK/cut' \
           && jq -e . '$MNT/r/runs.jsonl' >/dev/null"
  cp "$MNT/r/runs.jsonl" "$WORK/before_resume"
  mount -o remount,size=4m "$MNT"
  after_room "64 KB tmpfs" "$MNT/r"
  umount "$MNT"
else
  echo "     (mount -t tmpfs not permitted here: the full disk is tested with ulimit -f only)"
fi
finish

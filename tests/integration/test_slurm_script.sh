# dperm slurm without a cluster: the scripts it writes, option checks, and --submit against
# a stand-in sbatch that records its arguments (the real cluster test is tests/slurm/).
. "$(dirname "$0")/lib.sh"
OUT="$WORK/res"
"$DPERM" slurm "$FIX/sweep.yaml" --out "$OUT" --shards 5 --max-parallel 2 --cpus-per-task 3 \
  --partition short --time 1:30:00 --mem 2G --sbatch-arg=--account=proj --only seed=1 >"$WORK/out" 2>&1
status=$?
check "dperm slurm writes the scripts (exit 0)" [ $status = 0 ]
A="$OUT/slurm/array.sbatch"
R="$OUT/slurm/report.sbatch"
check "array script: one task per shard, at most 2 at once" grep -qx '#SBATCH --array=0-4%2' "$A"
check "array script: --cpus-per-task, --partition, --time, --mem, extra args" sh -c "
  grep -qx '#SBATCH --cpus-per-task=3' '$A' && grep -qx '#SBATCH --partition=short' '$A' &&
  grep -qx '#SBATCH --time=1:30:00' '$A' && grep -qx '#SBATCH --mem=2G' '$A' &&
  grep -qx '#SBATCH --account=proj' '$A'"
check "array script: a log per task (%A_%a) in slurm/logs, which exists" \
  sh -c "grep -q '^#SBATCH --output=.*/slurm/logs/%x-%A_%a.out' '$A' && [ -d '$OUT/slurm/logs' ]"
check "array script: the same binary and config by absolute path" \
  sh -c "grep -qF \"exec '$DPERM' run '$(cd "$FIX" && pwd)/sweep.yaml'\" '$A'"
check "array script: shard from the task id, -j from the cpus, --resume, --only passed on" \
  grep -qF -- "--shard \"\$SLURM_ARRAY_TASK_ID/5\" -j \"\${SLURM_CPUS_PER_TASK:-3}\" --resume --out '$(cd "$OUT" && pwd)' --only 'seed=1'" "$A"
check "report script: merge, then report, cancelled if a task fails" sh -c "
  grep -q 'merge \"\$DIR\"' '$R' && grep -q 'report \"\$DIR\"' '$R' &&
  grep -qx '#SBATCH --kill-on-invalid-dep=yes' '$R'"
check "scripts are valid sh" sh -c "sh -n '$A' && sh -n '$R'"

# The array script runs as Slurm would run task 0 (its environment by hand).
SLURM_ARRAY_TASK_ID=0 SLURM_CPUS_PER_TASK=1 sh "$A" >/dev/null 2>&1
check "task 0 of the script runs its shard" [ -s "$OUT/runs.0-of-5.jsonl" ]

# ---- option checks ------------------------------------------------------------------------
bad() { # bad NAME ARGS...: exit 2 and a message
  name=$1; shift
  "$DPERM" slurm "$FIX/sweep.yaml" --out "$WORK/bad" "$@" >/dev/null 2>"$WORK/err"
  check "$name (exit 2)" sh -c "[ $? = 2 ] && grep -q 'dperm' '$WORK/err'"
}
bad "--shards 0 is refused" --shards 0
bad "--shards and --runs-per-task together are refused" --shards 2 --runs-per-task 3
bad "--cpus-per-task x is refused" --cpus-per-task x
bad "--mem with a shell character is refused" --mem '2G;reboot'
bad "--time with a space is refused" --time '1 day'
bad "--sbatch-arg that is not an option is refused" --sbatch-arg account
bad "an unknown option is refused" --nodes 3
"$DPERM" slurm "$FIX/bad_key.yaml" --out "$WORK/bad" >/dev/null 2>"$WORK/err"
check "a config error shows before anything is submitted (exit 2)" [ $? = 2 ]
check "nothing written for a bad config" [ ! -e "$WORK/bad" ]

"$DPERM" slurm "$FIX/sweep.yaml" --out "$WORK/rpt" --runs-per-task 10 >"$WORK/out" 2>&1
check "--runs-per-task 10 over 48 runs: 5 tasks" grep -qx '#SBATCH --array=0-4%5' "$WORK/rpt/slurm/array.sbatch"
"$DPERM" slurm "$FIX/small.yaml" --out "$WORK/many" --shards 100 >"$WORK/out" 2>&1
check "more shards than runs: one run each" grep -qx '#SBATCH --array=0-7%8' "$WORK/many/slurm/array.sbatch"

# ---- --submit with a stand-in sbatch ---------------------------------------------------------
mkdir -p "$WORK/bin"
cat > "$WORK/bin/sbatch" <<EOF
#!/bin/sh
echo "\$*" >> "$WORK/sbatch.calls"
n=\$(wc -l < "$WORK/sbatch.calls")
echo "\$((1000 + n));cluster"
EOF
chmod +x "$WORK/bin/sbatch"
PATH="$WORK/bin:$PATH" "$DPERM" slurm "$FIX/small.yaml" --out "$WORK/sub" --shards 2 --submit >"$WORK/out" 2>&1
check "--submit exits 0" [ $? = 0 ]
check "--submit prints both job ids" sh -c "grep -q '^array job: 1001 ' '$WORK/out' && grep -q '^report job: 1002 ' '$WORK/out'"
check "the array is submitted with --parsable" \
  grep -qx -- "--parsable $(cd "$WORK/sub" && pwd)/slurm/array.sbatch" "$WORK/sbatch.calls"
check "the report job depends on the array (afterok)" \
  grep -qx -- "--parsable --dependency=afterok:1001 $(cd "$WORK/sub" && pwd)/slurm/report.sbatch" "$WORK/sbatch.calls"
printf '#!/bin/sh\necho "sbatch: error: invalid partition" >&2\nexit 1\n' > "$WORK/bin/sbatch"
PATH="$WORK/bin:$PATH" "$DPERM" slurm "$FIX/small.yaml" --out "$WORK/sub" --submit >/dev/null 2>"$WORK/err"
check "a failing sbatch: exit 2 with its message and a hint" sh -c "[ $? = 2 ] && grep -q 'invalid partition' '$WORK/err' && grep -q 'hint' '$WORK/err'"
finish

# test_slurm.sh: dperm on a real Slurm cluster: a single-node cluster on this machine
# (slurmctld + slurmd + a private munged, all configured in a temporary folder), a small
# grid submitted with `dperm slurm --submit`, and the merged records compared with a
# local `dperm run` of the same grid. Then the resubmission path: a crashed run fails its
# array task (the report job is cancelled), and a second submission runs only that run.
#
# Needs root on Debian/Ubuntu: installs slurm-wlm and munge with apt-get when missing.
# Everything it starts is stopped by pid file at exit; ports are picked at random and
# all state lives in the temporary folder, so it can run again and again on one machine
# (even next to a leftover cluster of an interrupted run). Run by `make test-slurm`.
. "$(dirname "$0")/../integration/lib.sh"
T0=$(date +%s)
chmod 755 "$WORK" # munged refuses a socket folder others could not reach or could write
C="$WORK/cluster"
mkdir -p "$C/state" "$C/spool" "$C/munge"
chmod 755 "$C/munge"

stop_pidfile() { # stop the daemon of one pid file: TERM, then KILL after 10 s
  [ -f "$1" ] || return 0
  pid=$(cat "$1" 2>/dev/null)
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null
}
stop_cluster() {
  stop_pidfile "$C/slurmd.pid"
  stop_pidfile "$C/slurmctld.pid"
  stop_pidfile "$C/munged.pid"
}
cleanup() {
  stop_cluster
  if [ "$NFAIL" != 0 ] || [ -n "${KEEP:-}" ]; then
    for f in "$C"/*.log; do [ -f "$f" ] && { echo "---- $f (last lines)"; tail -n 15 "$f"; }; done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" != 0 ]; then
  fail "this test starts Slurm daemons and needs root (run: sudo make test-slurm)"
  finish
  exit
fi

# ---- install -----------------------------------------------------------------------------
missing=""
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "     installing$missing (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq $missing >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq $missing >/dev/null 2>&1; }
fi
check "slurm-wlm and munge installed" sh -c 'command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged >/dev/null' >/dev/null

# ---- munge: a private daemon with its own key and socket ----------------------------------
head -c 1024 /dev/urandom > "$C/munge.key"
chmod 600 "$C/munge.key"
SOCK="$C/munge/munge.socket"
munged --socket="$SOCK" --key-file="$C/munge.key" --pid-file="$C/munged.pid" \
  --log-file="$C/munged.log" --seed-file="$C/munged.seed"
check "munged started and answers" sh -c "munge -S '$SOCK' -n | unmunge -S '$SOCK' >/dev/null"

# ---- slurm: one node with this machine's CPUs ----------------------------------------------
HOST=$(hostname -s)
CPUS=$(nproc)
PORT=$((20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 20000))
cat > "$C/slurm.conf" <<EOF
ClusterName=dpermtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$C/state
SlurmdSpoolDir=$C/spool
SlurmctldPidFile=$C/slurmctld.pid
SlurmdPidFile=$C/slurmd.pid
SlurmctldLogFile=$C/slurmctld.log
SlurmdLogFile=$C/slurmd.log
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
MinJobAge=600
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=500 State=UNKNOWN
PartitionName=dperm Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$C/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
idle=""
for _ in $(seq 1 300); do
  idle=$(sinfo -h -o %t 2>/dev/null)
  [ "$idle" = idle ] && break
  sleep 0.1
done
check "single-node cluster up ($CPUS CPUs, node state '$idle')" [ "$idle" = idle ]

# job_state ID: COMPLETED, FAILED, CANCELLED, ... (array: the worst of its tasks)
job_state() {
  scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | sort -u | tr '\n' ' '
}
# wait_jobs ID...: until none is pending or running; 120 s at most
wait_jobs() {
  ids=$(echo "$*" | tr ' ' ',')
  for _ in $(seq 1 1200); do
    [ -z "$(squeue -h -j "$ids" -t PENDING,RUNNING,CONFIGURING,COMPLETING 2>/dev/null)" ] && return 0
    sleep 0.1
  done
  return 1
}
# results FILE...: what must be identical to a local run (provenance and timings differ)
results() {
  jq -cS '{id, status, config, metrics: (.metrics | del(.cpu_seconds, .wall_seconds)), curves}' "$@" | sort
}

# ---- a grid on the cluster equals a local run -----------------------------------------------
"$DPERM" run "$FIX/small.yaml" -j 2 --out "$WORK/local" --quiet >/dev/null
results "$WORK/local/runs.jsonl" > "$WORK/local.results"

OUT="$WORK/cluster-run"
"$DPERM" slurm "$FIX/small.yaml" --out "$OUT" --shards 4 --cpus-per-task 1 --submit > "$WORK/submit.txt" 2>&1
check "dperm slurm --submit exits 0" [ $? = 0 ]
A=$(sed -n 's/^array job: \([0-9]*\).*/\1/p' "$WORK/submit.txt")
R=$(sed -n 's/^report job: \([0-9]*\).*/\1/p' "$WORK/submit.txt")
check "it prints the array and report job ids ($A, $R)" test -n "$A" -a -n "$R"
check "the array script: 4 tasks, -j from --cpus-per-task, --resume" sh -c "
  grep -q -- '--array=0-3%4' '$OUT/slurm/array.sbatch' &&
  grep -q -- '--shard \"\$SLURM_ARRAY_TASK_ID/4\" -j \"\${SLURM_CPUS_PER_TASK:-1}\" --resume' '$OUT/slurm/array.sbatch'"
check "the report job waits for the array (afterok)" \
  sh -c "scontrol show job '$R' | grep -q 'Dependency=afterok:$A\|Reason=Dependency\|JobState=COMPLETED\|JobState=RUNNING'"
wait_jobs "$A" "$R"
check "both jobs finished within 120 s" [ $? = 0 ]
check "array tasks completed ($(job_state "$A"))" [ "$(job_state "$A")" = "COMPLETED " ]
check "report job completed ($(job_state "$R"))" [ "$(job_state "$R")" = "COMPLETED " ]
check "one record file per shard" [ "$(ls "$OUT"/runs.*-of-4.jsonl | wc -l)" = 4 ]
check "per-task logs" [ "$(ls "$OUT"/slurm/logs/*_[0-3].out | wc -l)" = 4 ]
results "$OUT/runs.jsonl" > "$WORK/cluster.results"
check "merged runs.jsonl has the grid's 8 runs" [ "$(wc -l < "$OUT/runs.jsonl")" = 8 ]
check "merged records equal a local run (ids, status, config, metrics, curves)" \
  cmp -s "$WORK/local.results" "$WORK/cluster.results"
check "the report job wrote the report and summary.csv" test -s "$OUT/report.md" -a -s "$OUT/summary.csv"

# ---- a failed task, then a resubmission that runs only what is missing ------------------------
OUT="$WORK/cluster-retry"
# sbatch passes the environment on: the worker of grid run 5 (a dp_sgd run; runs 3 and 4,
# sgd at another epsilon, are copies of runs 1 and 2 and have no worker) crashes in its
# array task.
DPERM_TEST_CRASH_RUN=5 "$DPERM" slurm "$FIX/small.yaml" --out "$OUT" --shards 4 --submit > "$WORK/submit.txt" 2>&1
A=$(sed -n 's/^array job: \([0-9]*\).*/\1/p' "$WORK/submit.txt")
R=$(sed -n 's/^report job: \([0-9]*\).*/\1/p' "$WORK/submit.txt")
wait_jobs "$A" "$R"
check "with a crashed run: jobs finished within 120 s" [ $? = 0 ]
check "one array task failed ($(job_state "$A"))" sh -c "echo '$(job_state "$A")' | grep -q FAILED"
check "the report job was cancelled, not run ($(job_state "$R"))" [ "$(job_state "$R")" = "CANCELLED " ]
check "the crashed run is recorded as failed" \
  [ "$(jq -r 'select(.status == "failed") | .index' "$OUT"/runs.*-of-4.jsonl)" = 4 ]
"$DPERM" slurm "$FIX/small.yaml" --out "$OUT" --shards 4 --submit > "$WORK/submit.txt" 2>&1
A2=$(sed -n 's/^array job: \([0-9]*\).*/\1/p' "$WORK/submit.txt")
R2=$(sed -n 's/^report job: \([0-9]*\).*/\1/p' "$WORK/submit.txt")
wait_jobs "$A2" "$R2"
check "resubmission: jobs finished within 120 s" [ $? = 0 ]
check "resubmission: report job completed ($(job_state "$R2"))" [ "$(job_state "$R2")" = "COMPLETED " ]
reran=$(cat "$OUT"/slurm/logs/dperm-small-"$A2"_*.out | sed -n 's/.*; running \([0-9]*\)$/\1/p' | awk '{ s += $1 } END { print s + 0 }')
check "resubmission ran only the missing run (ran: ${reran:-?})" [ "${reran:-0}" = 1 ]
results "$OUT/runs.jsonl" > "$WORK/retry.results"
check "after resubmission, merged records equal a local run" cmp -s "$WORK/local.results" "$WORK/retry.results"

# ---- stop ----------------------------------------------------------------------------------------
pids=$(cat "$C"/slurmd.pid "$C"/slurmctld.pid "$C"/munged.pid 2>/dev/null | tr '\n' ' ')
stop_cluster
alive=""
for p in $pids; do kill -0 "$p" 2>/dev/null && alive="$alive $p"; done
check "the daemons it started are stopped (pids $pids)" test -n "$pids" -a -z "$alive"
echo "     (wall time: $(($(date +%s) - T0)) s)"
finish

#!/usr/bin/env bash
# Restart with a large database (issue #16, item 4; not in ctest: about two minutes and 600 MB
# of disk). canopyd on fat-tree-16k (16,384 nodes) with PENDING jobs waiting (100,000 by default)
# and FINISHED jobs in the accounting history (1,000,000 by default, left memory after
# MinJobAge: in_memory = 0). It measures:
#   1. start to answering RPCs on that database (exec until `canopyctl ping` answers);
#   2. the same after kill -9 of the running canopyd (the restart proper);
#   3. that it read what is live: squeue lists every pending job, sacct still finds the oldest
#      finished one, and scheduling resumes: one agent hosting 16 of the nodes registers and
#      the queue's first jobs run on it and complete.
# The rows are copies of two jobs submitted through sbatch (one left pending, one run to its
# end on the agent), written with python3's sqlite3 while canopyd is stopped: filling a
# database of this size through the API takes longer than the measurement.
#
# Usage: tests/bench/restart_bench.sh [BUILD_DIR]      (default: build/)
#   CANOPY_BENCH_PENDING=100000 CANOPY_BENCH_FINISHED=1000000 tests/bench/restart_bench.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
PENDING="${CANOPY_BENCH_PENDING:-100000}"
FINISHED="${CANOPY_BENCH_FINISHED:-1000000}"
CANOPYD="$BUILD/scheduler/server/canopyd"
AGENT="$BUILD/agent/server/canopy-agent"
CTL="$BUILD/ctl/canopyctl"
. "$ROOT/tests/scale/cluster_work.sh"
canopy_require restart_bench "$CANOPYD" "$AGENT" "$CTL"

CANOPYD_PID=""
AGENT_PID=""
work_pids() { echo $AGENT_PID $CANOPYD_PID; }
canopy_fat_tree_work restart "$CTL"
# Room for the pending jobs (MaxJobCount counts the jobs canopyd holds, 10,000 by default).
printf '\nMaxJobCount=%d\n' $((PENDING + 10000)) >>"$WORK/conf/slurm.conf"
DB="$WORK/state/canopy.db"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# Starts canopyd; STARTED_IN: the seconds from exec until it answered a ping.
STARTED_IN=""
start_canopyd() {
  local t0
  t0=$(now)
  "$CANOPYD" --config "$CONF" --listen 127.0.0.1:0 --state_dir "$WORK/state" --port_file "$WORK/port" \
    --log_level warn >>"$WORK/canopyd.log" 2>&1 &
  CANOPYD_PID=$!
  for _ in $(seq 1 6000); do
    if [ -S "$WORK/state/canopyd.sock" ] && "$CTL" ping >/dev/null 2>&1; then
      STARTED_IN=$(elapsed "$t0" "$(now)")
      return 0
    fi
    kill -0 "$CANOPYD_PID" 2>/dev/null || { cat "$WORK/canopyd.log" >&2; fail "canopyd exited"; }
    sleep 0.01
  done
  fail "canopyd did not answer within 60 s"
}
start_agent() {
  local flags=()
  [ "$(id -u)" -eq 0 ] && flags+=(--allow_root_jobs)
  "$AGENT" --controller "127.0.0.1:$(cat "$WORK/port")" --virtual_nodes 'gpu[00001-00016]' \
    --spool_dir "$WORK/spool" --log_level warn "${flags[@]}" >>"$WORK/agent.log" 2>&1 &
  AGENT_PID=$!
}
stop_agent() {
  kill "$AGENT_PID" 2>/dev/null || true
  wait "$AGENT_PID" 2>/dev/null || true
  AGENT_PID=""
}
wait_state() {  # JOB STATE: waits up to 30 s for the job to reach STATE
  for _ in $(seq 1 300); do
    [ "$(squeue -h -t all -j "$1" -o %T 2>/dev/null)" = "$2" ] && return 0
    sleep 0.1
  done
  fail "job $1 is $(squeue -h -t all -j "$1" -o %T 2>/dev/null), not $2, after 30 s"
}

echo "restart_bench: fat-tree-16k, $PENDING pending + $FINISHED finished jobs, work dir $WORK"
start_canopyd
# The finished template runs to its end on the agent (a COMPLETED row with its nodes).
start_agent
DONE_JOB=$(sbatch --parsable -J history -N 1 --gpus-per-node=1 -o /dev/null --wrap true)
wait_state "$DONE_JOB" COMPLETED
stop_agent
# The pending template waits: the only nodes that had an agent are set DOWN until the end.
scontrol update NodeName='gpu[00001-00016]' State=DOWN Reason=restart_bench
PENDING_JOB=$(sbatch --parsable -J queued -N 1 --gpus-per-node=1 -o /dev/null --wrap true)
kill "$CANOPYD_PID"
wait "$CANOPYD_PID" 2>/dev/null || true

t_fill=$(now)
python3 - "$DB" "$DONE_JOB" "$PENDING_JOB" "$PENDING" "$FINISHED" <<'EOF'
import sqlite3, sys
db, done_job, pending_job, pending, finished = sys.argv[1], *map(int, sys.argv[2:])
con = sqlite3.connect(db)
cols = [r[1] for r in con.execute("PRAGMA table_info(jobs)")]
node_cols = [r[1] for r in con.execute("PRAGMA table_info(job_nodes)")]
def copies(template, first, count, overrides):
    """`count` copies of job `template` as ids first, first+1, ...; `overrides` maps a column
    to an SQL expression of the new id `n` (times shift by a microsecond a job)."""
    select = [overrides.get(c, c) for c in cols]
    con.execute(f"""
        WITH RECURSIVE seq(n) AS (SELECT {first} UNION ALL SELECT n + 1 FROM seq
                                  WHERE n < {first + count - 1})
        INSERT INTO jobs ({", ".join(cols)})
        SELECT {", ".join(select)} FROM seq, jobs WHERE jobs.id = {template}""")
# Finished history first, with the lowest ids, as a long-lived cluster has it: ended in the past
# week, left memory (in_memory = 0), each with its node row.
first_done = pending_job + 1
copies(done_job, first_done, finished, {
    "id": "n", "in_memory": "0",
    "submit_time_us": f"submit_time_us - 604800000000 + (n - {first_done}) * 500000",
    "eligible_time_us": f"eligible_time_us - 604800000000 + (n - {first_done}) * 500000",
    "start_time_us": f"start_time_us - 604800000000 + (n - {first_done}) * 500000",
    "end_time_us": f"end_time_us - 604800000000 + (n - {first_done}) * 500000"})
select = [("n" if c == "job_id" else c) for c in node_cols]
con.execute(f"""
    WITH RECURSIVE seq(n) AS (SELECT {first_done} UNION ALL SELECT n + 1 FROM seq
                              WHERE n < {first_done + finished - 1})
    INSERT INTO job_nodes ({", ".join(node_cols)})
    SELECT {", ".join(select)} FROM seq, job_nodes WHERE job_nodes.job_id = {done_job}""")
first_pending = first_done + finished
copies(pending_job, first_pending, pending - 1, {
    "id": "n", "submit_time_us": f"submit_time_us + (n - {first_pending})",
    "eligible_time_us": f"eligible_time_us + (n - {first_pending})"})
con.execute("INSERT INTO meta(key, value) VALUES ('next_job_id', ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (first_pending + pending,))
con.commit()
# A running canopyd checkpoints as it goes; a 4 GB write-ahead log left by this fill is not
# what a restart finds.
con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
total, live = con.execute("SELECT COUNT(*), SUM(in_memory = 1) FROM jobs").fetchone()
print(f"database: {total} job rows, {live} live", file=sys.stderr)
con.close()
EOF
echo "database filled in $(elapsed "$t_fill" "$(now)") s: $(du -m "$DB" | cut -f1) MB"

start_canopyd
first=$STARTED_IN
echo "start on that database: answering RPCs after $first s (target under 5 s)"
pending_now=$(squeue -h -t PD -o %i | wc -l)
echo "squeue: $pending_now pending jobs"
(( pending_now == PENDING )) || fail "squeue lists $pending_now pending jobs, not $PENDING"

kill -9 "$CANOPYD_PID"
wait "$CANOPYD_PID" 2>/dev/null || true
echo "--- canopyd killed (kill -9) ---" >>"$WORK/canopyd.log"
start_canopyd
restart=$STARTED_IN
echo "restart after kill -9: answering RPCs after $restart s (target under 5 s)"
awk -v a="$first" -v b="$restart" 'BEGIN { exit !(a < 5 && b < 5) }' || fail "start took ${first} s / ${restart} s (target: under 5 s)"
(( $(squeue -h -t PD -o %i | wc -l) == PENDING )) || fail "pending jobs lost across kill -9"
oldest=$(sacct -n -X -j "$((PENDING_JOB + 1))" -o State -P -S 2000-01-01 | head -1)
[ "$oldest" = COMPLETED ] || fail "sacct: job $((PENDING_JOB + 1)) is '$oldest', not COMPLETED"
echo "sacct: finished job $((PENDING_JOB + 1)) read from the history: $oldest"

# Scheduling resumes: the queue's first pending job runs on the agent's nodes.
t_sched=$(now)
scontrol update NodeName='gpu[00001-00016]' State=RESUME
start_agent
wait_state "$PENDING_JOB" COMPLETED
echo "scheduling resumed: job $PENDING_JOB (first in the queue) completed $(elapsed "$t_sched" "$(now)") s after one agent of 16 nodes started"
echo "canopyd RSS: $(awk '/VmRSS/ { printf "%.0f MiB", $2 / 1024 }' /proc/$CANOPYD_PID/status)"
echo "restart_bench: all checks passed"

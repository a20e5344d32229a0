#!/usr/bin/env bash
# The 16,384-node scale test (issue #16; not in ctest: it takes about four minutes and most of
# the machine). One canopyd holds the fat-tree-16k cluster; AGENTS canopy-agent processes host
# its nodes as virtual nodes (2,048 each with the default 8), all started at once. It measures:
#   1. the registration storm: agents' start until every node is IDLE, and that canopyd refused
#      or dropped none of the 16,384 streams;
#   2. canopyd's CPU in steady state, heartbeats every 30 s (canopy.conf heartbeat_interval);
#   3. kill -9 of canopyd with a 64-node job running, restart on the same state and port: time
#      until every node is registered again, that none was marked DOWN meanwhile, that the job
#      kept running where it was, and that a new 128-node job is scheduled and completes.
# Prints one line per measure; exits non-zero if a check fails. Cleans up everything it started.
#
# Usage: tests/scale/scale_16k.sh [BUILD_DIR]        (default: build/)
#   CANOPY_SCALE_AGENTS=8 CANOPY_SCALE_STEADY_SECONDS=60 tests/scale/scale_16k.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
AGENTS="${CANOPY_SCALE_AGENTS:-8}"
STEADY_SECONDS="${CANOPY_SCALE_STEADY_SECONDS:-60}"
NODES=16384
CANOPYD="$BUILD/scheduler/server/canopyd"
AGENT="$BUILD/agent/server/canopy-agent"
CTL="$BUILD/ctl/canopyctl"
. "$ROOT/tests/scale/cluster_work.sh"
canopy_require scale_16k "$CANOPYD" "$AGENT" "$CTL"
if (( NODES % AGENTS != 0 )); then
  echo "scale_16k: CANOPY_SCALE_AGENTS must divide $NODES, got $AGENTS" >&2
  exit 2
fi

CANOPYD_PID=""
AGENT_PIDS=()
work_pids() { echo "${AGENT_PIDS[@]}" $CANOPYD_PID; }
canopy_fat_tree_work scale "$CTL"
# Nodes go DOWN after SlurmdTimeout (300 s here) without a word; agents beat every 30 s.
echo "heartbeat_interval: 30s" >"$WORK/conf/canopy.conf"

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
fail() { echo "FAIL: $*" >&2; exit 1; }
# canopyd's CPU seconds (user + system) so far.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
# "<state> <count>" lines for all nodes, e.g. "idle 16320" (sinfo's long states, one line each).
node_states() { sinfo -h -o '%T %D' 2>/dev/null | awk '{ n[$1] += $2 } END { for (s in n) print s, n[s] }'; }
count_state() { node_states | awk -v s="$1" '$1 == s { print $2; found = 1 } END { if (!found) print 0 }'; }
# Nodes in a state that counts as registered and serving: idle, allocated, mixed.
serving() { node_states | awk '$1 ~ /^(idle|allocated|mixed)$/ { n += $2 } END { print n + 0 }'; }
down_now() { node_states | awk '$1 ~ /down|fail/ { n += $2 } END { print n + 0 }'; }

start_canopyd() {
  "$CANOPYD" --config "$CONF" --listen "$1" --state_dir "$WORK/state" --port_file "$WORK/port" \
    --log_level warn >>"$WORK/canopyd.log" 2>&1 &
  CANOPYD_PID=$!
  for _ in $(seq 1 600); do
    [ -S "$WORK/state/canopyd.sock" ] && "$CTL" ping >/dev/null 2>&1 && return 0
    kill -0 "$CANOPYD_PID" 2>/dev/null || { cat "$WORK/canopyd.log" >&2; fail "canopyd exited"; }
    sleep 0.05
  done
  fail "canopyd did not answer within 30 s"
}

# Polls until `serving` reaches NODES; prints the seconds taken. Records the most nodes seen
# DOWN meanwhile in $WORK/max_down.
wait_all_serving() {
  local since=$1 limit=$2 max_down=0 d s
  while true; do
    s=$(serving)
    d=$(down_now)
    (( d > max_down )) && max_down=$d
    if (( s >= NODES )); then
      echo "$max_down" >"$WORK/max_down"
      elapsed "$since" "$(now)"
      return 0
    fi
    if awk -v a="$since" -v b="$(now)" -v l="$limit" 'BEGIN { exit !(b - a > l) }'; then
      echo "$max_down" >"$WORK/max_down"
      node_states >&2
      fail "only $s of $NODES nodes registered after ${limit}s"
    fi
    sleep 0.5
  done
}

echo "scale_16k: $NODES nodes, $AGENTS agents of $((NODES / AGENTS)) virtual nodes, work dir $WORK"
start_canopyd 127.0.0.1:0
PORT="$(cat "$WORK/port")"

# 1. The registration storm: every agent starts at once.
AGENT_FLAGS=()
[ "$(id -u)" -eq 0 ] && AGENT_FLAGS+=(--allow_root_jobs)
per_agent=$((NODES / AGENTS))
t0=$(now)
for i in $(seq 0 $((AGENTS - 1))); do
  first=$((i * per_agent + 1))
  last=$(((i + 1) * per_agent))
  "$AGENT" --controller "127.0.0.1:$PORT" --virtual_nodes "$(printf 'gpu[%05d-%05d]' "$first" "$last")" \
    --spool_dir "$WORK/spool$i" --log_level warn "${AGENT_FLAGS[@]}" >"$WORK/agent$i.log" 2>&1 &
  AGENT_PIDS+=($!)
done
storm=$(wait_all_serving "$t0" 120)
ended=$(cat "$WORK"/agent*.log | grep -c 'controller stream ended' || true)
echo "registration storm: all $NODES nodes IDLE ${storm} s after $AGENTS agents started; streams ended or refused meanwhile: $ended"
(( ended == 0 )) || fail "canopyd dropped or refused $ended streams during the storm"
echo "threads: canopyd $(ls /proc/$CANOPYD_PID/task | wc -l), agents $(for p in "${AGENT_PIDS[@]}"; do ls /proc/$p/task | wc -l; done | awk "{ n += \$1 } END { print n }") in all"

# 2. Steady state: canopyd's CPU over STEADY_SECONDS of heartbeats only.
sleep 35  # past the first round of heartbeats after registration
c0=$(cpu_seconds "$CANOPYD_PID")
t_cpu0=$(now)
sleep "$STEADY_SECONDS"
c1=$(cpu_seconds "$CANOPYD_PID")
t_cpu1=$(now)
awk -v c0="$c0" -v c1="$c1" -v t0="$t_cpu0" -v t1="$t_cpu1" -v n="$NODES" 'BEGIN {
  used = 100 * (c1 - c0) / (t1 - t0)
  printf "steady state: canopyd used %.2f%% of one core over %.0f s (%d nodes, heartbeats every 30 s: %.0f/s; target under 5%%: %s)\n",
    used, t1 - t0, n, n / 30, used < 5 ? "met" : "NOT met" }'
echo "canopyd RSS: $(awk '/VmRSS/ { printf "%.0f MiB", $2 / 1024 }' /proc/$CANOPYD_PID/status)"

# 3. kill -9 with a 64-node job running, then restart on the same state and port.
JOB=$(sbatch --parsable -J scale-run -N 64 --exclusive -o /dev/null --wrap 'sleep 600')
for _ in $(seq 1 100); do
  [ "$(squeue -h -j "$JOB" -o %T)" = RUNNING ] && break
  sleep 0.2
done
[ "$(squeue -h -j "$JOB" -o %T)" = RUNNING ] || fail "job $JOB did not start"
JOB_NODES=$(squeue -h -j "$JOB" -o %N)
kill -9 "$CANOPYD_PID"
wait "$CANOPYD_PID" 2>/dev/null || true
echo "--- canopyd killed (kill -9) ---" >>"$WORK/canopyd.log"
t_restart=$(now)
start_canopyd "127.0.0.1:$PORT"
answering=$(elapsed "$t_restart" "$(now)")
recovery=$(wait_all_serving "$t_restart" 120)
max_down=$(cat "$WORK/max_down")
echo "restart after kill -9: answering RPCs in ${answering} s; all $NODES nodes registered again in ${recovery} s; most nodes DOWN at any poll meanwhile: $max_down"
(( max_down == 0 )) || fail "$max_down nodes were DOWN during the recovery"
awk -v r="$recovery" 'BEGIN { exit !(r < 30) }' || fail "recovery took ${recovery}s (target: under 30 s)"
[ "$(squeue -h -j "$JOB" -o %T)" = RUNNING ] || fail "job $JOB is no longer RUNNING after the restart"
[ "$(squeue -h -j "$JOB" -o %N)" = "$JOB_NODES" ] || fail "job $JOB moved: $JOB_NODES -> $(squeue -h -j "$JOB" -o %N)"
fenced=$(cat "$WORK"/agent*.log | grep -c 'fenced' || true)
(( fenced == 0 )) || fail "agents fenced jobs $fenced times during the restart"
echo "job $JOB (64 nodes) kept running on $JOB_NODES; no agent fenced a job"

t_job=$(now)
NEW=$(sbatch --parsable -J scale-after -N 128 -o /dev/null --wrap true)
for _ in $(seq 1 300); do
  state=$(squeue -h -t all -j "$NEW" -o %T 2>/dev/null || true)
  [ "$state" = COMPLETED ] && break
  sleep 0.1
done
[ "$state" = COMPLETED ] || fail "job $NEW (128 nodes) ended $state, not COMPLETED"
echo "scheduling resumed: a 128-node job submitted after the restart completed in $(elapsed "$t_job" "$(now)") s"
scancel "$JOB"
echo "scale_16k: all checks passed"

#!/usr/bin/env bash
# The command line's round trips (issue #16): a real canopyd with one canopy-agent hosting the
# demo-16 cluster's 16 nodes, holding FINISHED finished and PENDING pending (held) jobs; then
# SUBMITS sequential `sbatch --wrap true` (their rate and median) and QUERIES sequential `squeue`
# calls (median, p90), each timed from fork to exit as a script or workflow engine sees it.
#
# The Canopy loops run twice: as shipped, and with CANOPY_CLI_TRANSPORT=grpc (calls over the unix
# socket through gRPC's own client runtime, as before the direct path).
#
# With SLURM_COMPARE_CONF set to the slurm.conf of a running Slurm (16 nodes on this machine:
# slurmctld and one slurmd per node on loopback, Slurm's multiple-slurmd build), the same loops
# run against it with Slurm's own sbatch and squeue (/usr/bin) in the same run, after it too has
# been given the same finished and pending jobs.
#
# With CANOPYCTL_COMPARE set to another canopyctl binary (an older build, say), the Canopy loops
# run with it too, against the same controller in the same run.
#
# Usage: tests/bench/cli_bench.sh [BUILD_DIR]       (not in ctest; about a minute)
#   FINISHED=1000 PENDING=1000 SUBMITS=300 QUERIES=100 SLURM_COMPARE_CONF=... tests/bench/cli_bench.sh
#   CANOPYCTL_COMPARE=/tmp/old/canopyctl tests/bench/cli_bench.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
FINISHED="${FINISHED:-1000}"
PENDING="${PENDING:-1000}"
SUBMITS="${SUBMITS:-300}"
QUERIES="${QUERIES:-100}"
PYTHON=/usr/bin/python3
for binary in "$BUILD/scheduler/server/canopyd" "$BUILD/agent/server/canopy-agent" "$BUILD/ctl/canopyctl"; do
  [ -x "$binary" ] || { echo "cli_bench: $binary is missing: build first (./deploy/build.sh)" >&2; exit 2; }
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/canopy-cli-bench.XXXXXX")"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Times `count` runs of a command (argv after --), one after another: prints
# "<label>: N runs, X/s, median M ms, p90 P ms". Exits non-zero if any run fails.
time_runs() {
  "$PYTHON" - "$@" <<'PY'
import statistics, subprocess, sys, time
label, count = sys.argv[1], int(sys.argv[2])
argv = sys.argv[4:]
took = []
start = time.perf_counter()
for _ in range(count):
    t = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    took.append(time.perf_counter() - t)
    if r.returncode != 0:
        sys.exit(f"{label}: {' '.join(argv)} failed ({r.returncode}): {r.stderr.decode().strip()}")
total = time.perf_counter() - start
took.sort()
print(f"{label}: {count} runs, {count / total:.0f}/s, median {statistics.median(took) * 1e3:.1f} ms, "
      f"p90 {took[int(0.9 * (count - 1))] * 1e3:.1f} ms")
PY
}

# Gives the controller the finished and pending jobs; $1 = the directory holding sbatch/squeue.
fill() {
  local bin="$1" left
  if (( FINISHED > 0 )); then
    "$bin/sbatch" -J done --array="1-$FINISHED" -o /dev/null --wrap true >/dev/null
  fi
  if (( PENDING > 0 )); then
    "$bin/sbatch" -J held -H --array="1-$PENDING" -o /dev/null --wrap true >/dev/null
  fi
  for _ in $(seq 1 600); do
    left=$("$bin/squeue" -h -t R,CG -o %i | wc -l)
    [ "$left" -eq 0 ] && [ "$("$bin/squeue" -h -t PD -n done -o %i | wc -l)" -eq 0 ] && return 0
    sleep 0.5
  done
  echo "cli_bench: the $FINISHED finished jobs did not finish" >&2
  exit 1
}

measure() {
  local who="$1" bin="$2"
  time_runs "$who sbatch --wrap true" "$SUBMITS" -- "$bin/sbatch" -o /dev/null --wrap true
  time_runs "$who squeue" "$QUERIES" -- "$bin/squeue"
  # Leave the next system an idle machine: the submitted jobs run and end.
  for _ in $(seq 1 600); do
    [ "$("$bin/squeue" -h -t PD,R,CG -o %i | wc -l)" -le "$PENDING" ] && break
    sleep 0.5
  done
}

mkdir -p "$WORK/conf" "$WORK/bin"
cp "$ROOT/tests/data/clusters/demo-16/slurm.conf" "$ROOT/tests/data/clusters/demo-16/topology.conf" \
  "$WORK/conf/"
"$BUILD/scheduler/server/canopyd" --config "$WORK/conf/slurm.conf" --listen 127.0.0.1:0 \
  --state_dir "$WORK/state" --port_file "$WORK/port" --log_level warn >"$WORK/canopyd.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 200); do [ -s "$WORK/port" ] && break; sleep 0.05; done
AGENT_FLAGS=()
[ "$(id -u)" -eq 0 ] && AGENT_FLAGS+=(--allow_root_jobs)
SLURM_CONF="$WORK/conf/slurm.conf" "$BUILD/agent/server/canopy-agent" \
  --controller "127.0.0.1:$(cat "$WORK/port")" --virtual_nodes 'gpu[001-016]' \
  --spool_dir "$WORK/spool" --log_level warn "${AGENT_FLAGS[@]}" >"$WORK/agent.log" 2>&1 &
PIDS+=($!)
"$BUILD/ctl/canopyctl" install-links "$WORK/bin" >/dev/null
(
  export SLURM_CONF="$WORK/conf/slurm.conf"
  export CANOPY_CONTROLLER="unix:$WORK/state/canopyd.sock"
  for _ in $(seq 1 100); do
    [ "$("$WORK/bin/sinfo" -h -t idle -o %D)" = 16 ] && break
    sleep 0.1
  done
  fill "$WORK/bin"
  echo "Canopy: 16 nodes, $FINISHED finished and $PENDING pending jobs in the controller"
  measure Canopy "$WORK/bin"
  # The same commands with their unix-socket calls through gRPC's own client (before issue #16's
  # direct calls, ctl/client/unix_grpc_call.h).
  CANOPY_CLI_TRANSPORT=grpc measure "Canopy, gRPC client" "$WORK/bin"
  if [ -n "${CANOPYCTL_COMPARE:-}" ]; then
    mkdir -p "$WORK/compare-bin"
    "$CANOPYCTL_COMPARE" install-links "$WORK/compare-bin" >/dev/null
    measure "Canopy, $CANOPYCTL_COMPARE" "$WORK/compare-bin"
    # Again with the build's own, so that neither has the machine's quieter minute to itself.
    measure "Canopy (again)" "$WORK/bin"
  fi
)
if [ -n "${SLURM_COMPARE_CONF:-}" ]; then
  (
    export SLURM_CONF="$SLURM_COMPARE_CONF"
    fill /usr/bin
    echo "Slurm $(/usr/bin/sinfo --version | cut -d' ' -f2): $(/usr/bin/sinfo -h -o %D) nodes, $FINISHED finished and $PENDING pending jobs in slurmctld"
    measure Slurm /usr/bin
    /usr/bin/scancel -n held,done 2>/dev/null || true
  )
fi

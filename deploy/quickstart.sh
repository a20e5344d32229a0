#!/usr/bin/env bash
# Canopy quickstart: installs what is missing, builds, then runs a real canopyd and one
# canopy-agent hosting 16 virtual nodes with fake GPUs on 127.0.0.1, shows the nodes and the
# topology, submits a 4-node and a 2-node 8-GPU job and three 1-GPU jobs with sbatch (the
# multi-node ones run an srun step), shows where they ran and their output; then the queue policy:
# accounts and a QOS through sacctmgr, a job array, a dependency and a hold, sprio and sshare,
# an inference job that preempts two array tasks under one leaf switch, and sacct's record of
# every job (the preempted runs too). It stops everything it
# started when it ends (or on Ctrl-C).
#
#   ./deploy/quickstart.sh            # run the demo and exit
#   QUICKSTART_KEEP=1 ./deploy/quickstart.sh   # leave the cluster up until Ctrl-C
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${CANOPY_BUILD_DIR:-$ROOT/build}"

echo "==> building Canopy (first run: a few minutes)"
"$ROOT/deploy/build.sh" | grep -vE "^(-- |\[[0-9]+/[0-9]+\] Building)" || true

WORK="$(mktemp -d /tmp/canopy-quickstart.XXXXXX)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

CONFIG="$ROOT/deploy/examples/quickstart.yaml"
echo "==> starting canopyd (state in $WORK/state, logs in $WORK/*.log)"
"$BUILD_DIR/scheduler/server/canopyd" --config "$CONFIG" --listen 127.0.0.1:0 \
  --state_dir "$WORK/state" --port_file "$WORK/port" >"$WORK/canopyd.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do
  [ -s "$WORK/port" ] && break
  sleep 0.1
done
if [ ! -s "$WORK/port" ]; then
  echo "canopyd did not start:" >&2
  cat "$WORK/canopyd.log" >&2
  exit 1
fi
echo "    canopyd is listening on 127.0.0.1:$(cat "$WORK/port") and unix:$WORK/state/canopyd.sock"
# The unix socket: canopyd identifies local callers by it (job owners, operators).
export CANOPY_CONTROLLER="unix:$WORK/state/canopyd.sock"

echo "==> starting canopy-agent with 16 virtual nodes gpu[001-016], 8 fake H100 each"
# The demo's jobs are yours: when you run it as root, the agent must accept root's jobs, which a
# production agent refuses (canopy-agent --min_job_uid, --allow_root_jobs).
AGENT_FLAGS=()
[ "$(id -u)" -eq 0 ] && AGENT_FLAGS+=(--allow_root_jobs)
CANOPY_CONFIG="$CONFIG" "$BUILD_DIR/agent/server/canopy-agent" --virtual_nodes 'gpu[001-016]' \
  "${AGENT_FLAGS[@]}" >"$WORK/agent.log" 2>&1 &
PIDS+=($!)

CTL="$BUILD_DIR/ctl/canopyctl"
# sbatch, srun, squeue, sacct, ... are canopyctl under Slurm's names; job scripts find srun on
# PATH.
mkdir -p "$WORK/bin"
"$CTL" install-links "$WORK/bin" >/dev/null
export PATH="$WORK/bin:$PATH"
for _ in $(seq 1 100); do
  idle=$("$CTL" nodes 2>/dev/null | awk '$2 == "idle"' | wc -l)
  [ "$idle" -eq 16 ] && break
  sleep 0.2
done

echo
echo "\$ canopyctl nodes"
"$CTL" nodes
echo
echo "\$ canopyctl topology"
"$CTL" topology
echo
echo "\$ scontrol show topology"
scontrol show topology
echo
echo "\$ sinfo"
sinfo
echo
echo "\$ scontrol show hostnames 'gpu[001-003]'"
scontrol show hostnames 'gpu[001-003]'

JOBS="$WORK/jobs"
mkdir -p "$JOBS"
cd "$JOBS"
STEP='echo "$SLURMD_NODENAME at $SLURM_TOPOLOGY_ADDR rank $SLURM_PROCID of ${SLURM_NTASKS:-1}, GPUs $CUDA_VISIBLE_DEVICES"'
echo
echo "==> submitting jobs (output files in $JOBS)"
echo "\$ sbatch -J train4 -N 4 --ntasks-per-node=1 --gpus-per-node=8 --wrap 'srun -l ...; sleep 3'"
sbatch -J train4 -N 4 --ntasks-per-node=1 --gpus-per-node=8 -o '%x-%j.out' \
  --wrap "srun -l sh -c '$STEP'; sleep 3"
echo "\$ sbatch -J train2 -N 2 --ntasks-per-node=2 --gpus-per-node=8 --wrap 'srun -l ...; sleep 3'"
sbatch -J train2 -N 2 --ntasks-per-node=2 --gpus-per-node=8 -o '%x-%j.out' \
  --wrap "srun -l sh -c '$STEP'; sleep 3"
for i in 1 2 3; do
  echo "\$ sbatch -J small$i --gpus-per-node=1 --wrap '...; sleep 3'"
  sbatch -J "small$i" --gpus-per-node=1 -o '%x-%j.out' --wrap "$STEP; sleep 3"
done
sleep 1.5
echo
echo "\$ squeue"
squeue
echo
echo "\$ canopyctl topology     # which jobs sit under each switch"
"$CTL" topology
METRICS_URL="$(grep -o 'http://[^ ]*/metrics' "$WORK/canopyd.log" | head -1)"
if [ -n "$METRICS_URL" ] && command -v curl >/dev/null; then
  echo
  echo "\$ curl -s $METRICS_URL | grep '^canopy_switch_gpus'   # the same, for Prometheus"
  curl -s "$METRICS_URL" | grep '^canopy_switch_gpus' || true
fi
WEB_URL="$(grep -o 'cluster view on http://[^ ]*' "$WORK/canopyd.log" | head -1 | cut -d' ' -f4)"
if [ -n "$WEB_URL" ] && command -v curl >/dev/null; then
  echo
  echo "\$ curl -s ${WEB_URL}api/v1/jobs | head -c 300   # the web view's JSON; open $WEB_URL"
  curl -s "${WEB_URL}api/v1/jobs" | head -c 300 || true
  echo
fi
for _ in $(seq 1 150); do
  [ -z "$(squeue -h -t PD,CF,R,CG -o %i)" ] && break
  sleep 0.2
done
echo
echo "\$ canopyctl jobs         # where they ran: nodes and leaf switches"
"$CTL" jobs
for f in train4-*.out train2-*.out small*.out; do
  echo
  echo "\$ cat $f"
  cat "$f"
done

echo
echo "==> queue policy: accounts, a QOS, an array, a dependency, a hold, preemption"
ME="$(id -un)"
run() {
  echo "\$ $*"
  "$@"
}
run sacctmgr -i add account research fairshare=70
run sacctmgr -i add account interns fairshare=30
run sacctmgr -i add user "$ME" account=research defaultaccount=research
run sacctmgr -i add qos inference Priority=1000 Preempt=normal GraceTime=5
run sacctmgr show qos format=name,priority,preempt,preemptmode,gracetime
echo "\$ sbatch --parsable -J sweep --array=1-4 --gpus-per-node=8 --wrap 'sleep 30'"
ARRAY=$(sbatch --parsable -J sweep --array=1-4 --gpus-per-node=8 -o /dev/null --wrap 'sleep 30')
echo "$ARRAY"
run sbatch -J eval --dependency="afterok:$ARRAY" --gpus-per-node=1 -o /dev/null --wrap true
HELD=$(sbatch --parsable -J later -H --gpus-per-node=1 -o /dev/null --wrap true)
echo "\$ sbatch -J later -H ...   -> job $HELD, held"
run sbatch -J fill -N 12 --gpus-per-node=8 -o /dev/null --wrap 'sleep 60'
sleep 1.5
run squeue
run sprio -l
run sshare -a
echo
echo "# a 2-node inference job on a full cluster: the two cheapest jobs under one leaf switch get"
echo "# SIGTERM, 5 s of GraceTime, and are requeued"
echo "\$ sbatch -q inference -J serve -N 2 --gpus-per-node=8 --wrap 'sleep 5'"
SERVE=$(sbatch --parsable -q inference -J serve -N 2 --gpus-per-node=8 -o /dev/null \
  --wrap 'sleep 5')
for _ in $(seq 1 100); do
  [ "$(squeue -h -j "$SERVE" -o %T)" = RUNNING ] && break
  sleep 0.2
done
run squeue -o '%.8i %.9q %.8j %.2t %.8r %N'
run scontrol release "$HELD"
run scancel -u "$ME"
echo
echo "# accounting: every job, the runs preemption requeued (-D), and who cancelled what"
sleep 1
run sacct -a -X -D --format=JobID,JobName%8,QOS%9,State%14,ExitCode,Restarts,NodeList%14
cd "$ROOT"

if [ "${QUICKSTART_KEEP:-0}" = 1 ]; then
  echo
  echo "Cluster is up: export CANOPY_CONTROLLER=$CANOPY_CONTROLLER PATH=$WORK/bin:\$PATH"
  echo "and use sbatch, squeue, srun, scancel, sinfo, scontrol or canopyctl. Ctrl-C stops it."
  wait
fi
echo
echo "==> stopping the agent and canopyd"

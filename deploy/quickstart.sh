#!/usr/bin/env bash
# Canopy quickstart: installs what is missing, builds, then runs a real canopyd and one
# canopy-agent hosting 16 virtual nodes with fake GPUs on 127.0.0.1, shows the nodes and the
# topology, and stops everything it started when it ends (or on Ctrl-C).
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
export CANOPY_CONTROLLER="127.0.0.1:$(cat "$WORK/port")"
echo "    canopyd is listening on $CANOPY_CONTROLLER"

echo "==> starting canopy-agent with 16 virtual nodes gpu[001-016], 8 fake H100 each"
CANOPY_CONFIG="$CONFIG" "$BUILD_DIR/agent/server/canopy-agent" --virtual_nodes 'gpu[001-016]' \
  >"$WORK/agent.log" 2>&1 &
PIDS+=($!)

CTL="$BUILD_DIR/ctl/canopyctl"
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
"$BUILD_DIR/ctl/scontrol" show topology
echo
echo "\$ sinfo"
"$BUILD_DIR/ctl/sinfo"
echo
echo "\$ scontrol show hostnames 'gpu[001-003]'"
"$BUILD_DIR/ctl/scontrol" show hostnames 'gpu[001-003]'

if [ "${QUICKSTART_KEEP:-0}" = 1 ]; then
  echo
  echo "Cluster is up: export CANOPY_CONTROLLER=$CANOPY_CONTROLLER and use $CTL. Ctrl-C stops it."
  wait
fi
echo
echo "==> stopping the agent and canopyd"

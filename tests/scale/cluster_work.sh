# Sourced by tests/scale/scale_16k.sh and tests/bench/restart_bench.sh: the checks and the work
# directory both start with. The sourcing script defines `work_pids`, a function that prints the
# pids of the processes it started (canopyd, agents) at the moment it is called.
#
#   canopy_require NAME BINARY...   exits 2, naming the first binary that is not built
#   canopy_fat_tree_work NAME CTL   WORK: a new directory, removed at exit unless KEEP_WORK is set
#                                   or the script failed
#                                   (the processes of work_pids are stopped first); CONF: its copy
#                                   of fat-tree-16k's slurm.conf (topology.conf beside it);
#                                   SLURM_CONF and CANOPY_CONTROLLER set for the CLI, whose Slurm
#                                   names (sbatch, squeue, ...) come first on PATH

canopy_require() {
  local name=$1 binary
  shift
  for binary in "$@"; do
    [ -x "$binary" ] || { echo "$name: $binary is missing: build first (./deploy/build.sh)" >&2; exit 2; }
  done
}

canopy_work_cleanup() {
  local status=$? pid pids
  pids=$(work_pids)
  for pid in $pids; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in $pids; do
    wait "$pid" 2>/dev/null || true
  done
  # A failed run keeps its logs: what went wrong (an agent that died) is only in them.
  if [ -n "${KEEP_WORK:-}" ] || [ "$status" -ne 0 ]; then
    echo "$CANOPY_WORK_NAME: logs kept in $WORK"
  else
    rm -rf "$WORK"
  fi
}

canopy_fat_tree_work() {
  CANOPY_WORK_NAME=$1
  local ctl=$2 clusters
  clusters="$(cd "$(dirname "${BASH_SOURCE[0]}")/../data/clusters" && pwd)"
  WORK="$(mktemp -d "${TMPDIR:-/tmp}/canopy-$CANOPY_WORK_NAME.XXXXXX")"
  trap canopy_work_cleanup EXIT
  trap 'exit 130' INT TERM
  mkdir -p "$WORK/conf" "$WORK/bin"
  cp "$clusters/fat-tree-16k/slurm.conf" "$clusters/fat-tree-16k/topology.conf" "$WORK/conf/"
  CONF="$WORK/conf/slurm.conf"
  export SLURM_CONF="$CONF"
  export CANOPY_CONTROLLER="unix:$WORK/state/canopyd.sock"
  "$ctl" install-links "$WORK/bin" >/dev/null
  export PATH="$WORK/bin:$PATH"
}

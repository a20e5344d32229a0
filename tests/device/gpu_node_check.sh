#!/usr/bin/env bash
# Canopy on a real GPU node: NVML discovery, GPU confinement (device filter, CUDA_VISIBLE_DEVICES),
# cgroup v2 memory and CPU limits, through canopyd + canopy-agent + sbatch, as root. Run from a
# bundle made by tests/device/make_bundle.sh; writes agent.log to $OUT when set. What to expect
# (seen on an H200, docs/reliability.md): job a sees one GPU as CUDA_VISIBLE_DEVICES=0 and
# computes on it; job b (no GPU) gets EPERM opening /dev/nvidia0 and no device in nvidia-smi or
# torch; job c (--mem=64M, 600 MB) ends OUT_OF_MEMORY; jobs d and e run on CPUs of their own, and
# e's memory.max is 1 GiB.
set -u
D="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LD_LIBRARY_PATH="$D/lib:/usr/local/nvidia/lib64:/usr/local/nvidia/lib"
echo "== host"; uname -r; nvidia-smi -L; ldconfig -p | grep -E 'nvidia-ml|libcuda.so' | head -3
ls /usr/local/nvidia/lib64 2>/dev/null | grep -E 'nvidia-ml' | head -3
ls -l /dev/nvidia* 2>&1 | head; stat -c '%n %t:%T' /dev/nvidia0 2>&1
echo "cgroup: $(cat /proc/self/cgroup)"; mount | grep cgroup
cat /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/cgroup.subtree_control 2>&1
echo "== probe"; "$D/bin/canopy-gpu-probe"; echo "probe rc=$?"
W=$(mktemp -d /tmp/devcheck.XXXXXX); mkdir -p "$W/bin" "$W/spool"
"$D/bin/canopyd" --config "$D/gpu_node.yaml" --listen 127.0.0.1:0 --state_dir "$W/state" \
  --port_file "$W/port" > "$W/canopyd.log" 2>&1 &
for _ in $(seq 100); do [ -s "$W/port" ] && break; sleep 0.1; done
export CANOPY_CONTROLLER="unix:$W/state/canopyd.sock"
# As systemd's Delegate=yes would: the agent starts alone in a cgroup of its own.
CG=/sys/fs/cgroup/canopy-devcheck; mkdir -p "$CG"
sh -c 'echo $$ > "$0/cgroup.procs" && shift && exec "$@"' "$CG" x "$D/bin/canopy-agent" \
  --controller "$CANOPY_CONTROLLER" --node_name gpu01 --gpu_provider nvml \
  --allow_root_jobs --spool_dir "$W/spool" --log_level debug > "$W/agent.log" 2>&1 &
"$D/bin/canopyctl" install-links "$W/bin" > /dev/null; export PATH="$W/bin:$PATH"
for _ in $(seq 60); do sinfo -h -o '%t' | grep -q idle && break; sleep 0.5; done
echo "== sinfo"; sinfo; scontrol show node gpu01
cd "$W"
P='unset LD_LIBRARY_PATH; '
a=$(sbatch --parsable -G 1 -o a.out --wrap "$P"'echo CVD=$CUDA_VISIBLE_DEVICES JOB_GPUS=$SLURM_JOB_GPUS; nvidia-smi -L; python3 -c "import torch; print(\"torch sees\", torch.cuda.device_count(), torch.cuda.get_device_name(0)); x=torch.ones(1024,1024,device=\"cuda\"); print(\"sum\", float((x@x).sum()))"')
b=$(sbatch --parsable -G 0 -o b.out --wrap "$P"'echo CVD=[$CUDA_VISIBLE_DEVICES]; head -c1 /dev/nvidia0 >/dev/null; echo "open nvidia0 rc=$?"; nvidia-smi -L; echo "smi rc=$?"; python3 -c "import torch; print(\"torch available\", torch.cuda.is_available())"')
c=$(sbatch --parsable --mem=64M -o c.out --wrap "$P"'python3 -c "b = bytearray(600 * 1024 * 1024); print(\"allocated\", len(b))"')
d=$(sbatch --parsable -c 2 -o d.out --wrap 'grep Cpus_allowed_list /proc/self/status; cat /proc/self/cgroup')
e=$(sbatch --parsable -c 2 --mem=1G -o e.out --wrap 'grep Cpus_allowed_list /proc/self/status; cat /sys/fs/cgroup$(cut -d: -f3 /proc/self/cgroup)/memory.max')
for _ in $(seq 120); do [ -z "$(squeue -h)" ] && break; sleep 1; done
echo "== squeue (should be empty)"; squeue
echo "== sacct"; sacct -j "$a,$b,$c,$d,$e" -X -o JobID,State,ExitCode,AllocTRES%40
for f in a b c d e; do echo "== $f.out"; cat "$f.out"; done
echo "== canopyd.log"; tail -40 canopyd.log
[ -n "${OUT:-}" ] && cp agent.log "$OUT/agent.log"
echo "== agent.log (head)"; head -12 agent.log; echo "== cgroups"; find "$CG" -maxdepth 2 -type d; cat "$CG/cgroup.subtree_control"
kill %1 %2 2>/dev/null; sleep 1; rm -rf "$W"

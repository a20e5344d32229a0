// scontrol listpids [JOBID[.STEPID]] [NODENAME]: the processes of the jobs running on this host,
// in Slurm's table (PID, JOBID, STEPID, LOCALID, GLOBALID).
//
// Slurm asks the local slurmd, which tracks each step's processes. Canopy reads /proc instead:
// a process belongs to the job and step named by its SLURM_JOB_ID / SLURM_STEP_ID ("batch"
// without one), which every process started by canopy-agent carries and its children inherit;
// a task is the session leader the agent started (it reads SLURM_LOCALID / SLURM_PROCID), every
// other process shows "-" there, as Slurm prints its tasks' children. A process that cleared its
// environment is not listed. Only processes whose environment the caller may read are seen:
// a user sees their own jobs, root every job.
#pragma once

#include <sys/types.h>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace canopy::ctl::scontrol {

// One process of a job, as read from /proc.
struct JobProcess {
  pid_t pid = 0;
  uint32_t job_id = 0;
  std::optional<uint32_t> step_id;  // nullopt: the batch step
  std::string node;                 // SLURMD_NODENAME ("" if unset)
  std::optional<int> local_id;      // tasks only
  std::optional<int> global_id;
  std::string cluster;  // SLURM_CLUSTER_NAME ("" if unset)
};

// What to list: every job (no id, or "*"), one job, or one step, optionally of one node.
struct ListPidsQuery {
  std::optional<uint32_t> job_id;
  std::optional<uint32_t> step_id;
  std::string node;  // empty: any node of this host
};

// The processes of jobs on this host that the caller may inspect, from `proc_root` ("/proc").
std::vector<JobProcess> ReadJobProcesses(const std::string& proc_root = "/proc");

// Where scontrol runs. Slurm asks the slurmd of the node it runs on; inside a job, Canopy
// likewise lists only the processes of the job's cluster and node (SLURM_CLUSTER_NAME,
// SLURMD_NODENAME of the caller), since one host may carry several virtual nodes, or clusters.
// Empty fields do not filter; a NODENAME argument replaces `node`.
struct ListPidsScope {
  std::string cluster;
  std::string node;
};

// Runs `scontrol listpids ARGS` over `processes` (already read): prints the table on `out`,
// Slurm's messages on `err`, returns the exit code.
int ListPids(const std::vector<std::string>& args, const std::vector<JobProcess>& processes,
             const ListPidsScope& scope, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::scontrol

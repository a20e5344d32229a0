// What a SPANK host knows about the job, step and task its hooks run for: the answers to
// spank_get_item. An item left unset answers ESPANK_NOT_AVAIL (Canopy does not know it here).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace canopy::spank {

struct JobItems {
  std::optional<uid_t> uid;
  std::optional<gid_t> gid;
  std::optional<std::vector<gid_t>> supplementary_gids;
  std::optional<uint32_t> job_id;
  std::optional<uint32_t> step_id;  // SLURM_BATCH_SCRIPT (0xfffffffb) for the batch script
  std::optional<uint32_t> nnodes;
  std::optional<uint32_t> node_id;
  std::optional<uint32_t> local_task_count;
  std::optional<uint32_t> total_task_count;
  std::optional<uint16_t> ncpus;               // CPUs of the job on this node
  std::optional<uint32_t> cpus_per_task;       // S_STEP_CPUS_PER_TASK
  std::optional<std::string> job_alloc_cores;  // "0-3,8": the job's CPUs on this node
  std::optional<uint64_t> job_alloc_mem_mb;
  std::optional<std::string> step_alloc_cores;
  std::optional<uint64_t> step_alloc_mem_mb;
  std::optional<uint32_t> restart_count;
  std::optional<uint32_t> array_job_id;  // 0 for a job outside an array, as in Slurm
  std::optional<uint32_t> array_task_id;
  // Per local task id: its global task id (rank), and its pid once forked (0 before).
  std::vector<uint32_t> global_task_ids;
  std::vector<pid_t> task_pids;
};

// The task a task hook runs for.
struct TaskItems {
  int local_id = 0;
  std::optional<int> exit_status;  // wait(2) status, in slurm_spank_task_exit only
};

}  // namespace canopy::spank

// What accounting (sacct) records about a job beyond its own record: the runs of a requeued job
// before its last one, and its steps. The job's record (core::Job) is its last attempt; these
// are kept beside it in the store and never read back by the scheduler.
//
// Plain value types, made by the lifecycle at the moment they happen (a requeue, a step's start
// and end) and saved with the batch that made them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/core/ids.h"
#include "scheduler/core/job.h"

namespace canopy::core {

// One run of a job that was requeued: how it ended. `attempt` is the job's restart_count during
// that run (0 for the first).
struct JobAttempt {
  JobId job;
  int32_t attempt = 0;
  JobState state = JobState::kRequeued;  // REQUEUED, NODE_FAIL or PREEMPTED
  std::string state_message;             // why it ended ("node gpu002 not responding")
  absl::Time eligible_time = absl::InfinitePast();
  absl::Time start_time = absl::InfinitePast();
  absl::Time end_time = absl::InfinitePast();
  int32_t exit_code = 0;
  int32_t exit_signal = 0;
  Allocation allocation;  // where it ran

  friend bool operator==(const JobAttempt&, const JobAttempt&) = default;
};

// An srun step of one attempt of a job, as it started or as it ended.
struct StepRecord {
  JobId job;
  int32_t attempt = 0;
  uint32_t step_id = 0;
  std::string name;  // the program (argv[0]'s base name), as Slurm names steps
  JobState state = JobState::kRunning;
  absl::Time start_time = absl::InfinitePast();
  absl::Time end_time = absl::InfinitePast();  // InfinitePast while running
  int32_t exit_code = 0;                       // highest of its tasks'
  int32_t exit_signal = 0;                     // a signal that ended a task, 0 = none
  std::vector<NodeId> nodes;
  int32_t ntasks = 0;
  int32_t cpus = 0;                     // tasks x CPUs per task
  int32_t gpus = 0;                     // the job's GPUs on the step's nodes
  std::vector<int32_t> tasks_per_node;  // on each of `nodes` (sattach's layout)

  friend bool operator==(const StepRecord&, const StepRecord&) = default;
};

}  // namespace canopy::core

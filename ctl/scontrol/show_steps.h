// `scontrol show steps [JOBID[_TASK][.STEPID]]`: the step id's words and a running step's
// record in Slurm 22.05's layout (slurm_sprint_job_step_info):
//
//   StepId=5.0 UserId=1000 StartTime=2026-12-02T09:43:39 TimeLimit=UNLIMITED
//      State=RUNNING Partition=gpu NodeList=gpu[001-002]
//      Nodes=2 CPUs=2 Tasks=2 Name=hostname Network=(null)
//      TRES=cpu=2,mem=0,node=2
//      ResvPorts=(null)
//      CPUFreqReq=Default Dist=Block
//      SrunHost:Pid=(null):0
//
// Canopy's steps have no time limit of their own, no reserved ports and no recorded srun host
// or pid: those print as Slurm prints them unset. Dist is srun's default, Block. mem= is the
// job's memory on the step's nodes (0 when the job has no memory limit, as in Slurm). Pure;
// thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/types.pb.h"

namespace canopy::ctl::scontrol {

struct StepTarget {
  uint32_t job_id = 0;
  std::optional<uint32_t> task;     // JOBID_TASK: one task of array JOBID
  std::optional<uint32_t> step_id;  // .STEPID; none: every step of the job
  bool batch = false;               // .batch: the batch script's step
};

// "5", "5.0", "5.batch", "7_2", "7_2.1". InvalidArgument "slurm_get_job_steps error: Invalid job id
// specified" (what scontrol prints, exit 1) for anything else.
absl::StatusOr<StepTarget> ParseStepTarget(const std::string& text);

// Slurm's message when `target` names no running step: "Job step 5.0 not found" ("Job step
// 7_2.0 not found" for a task). Without a step id Slurm prints its NO_VAL step number.
std::string StepNotFound(const StepTarget& target);

// A running batch job's script as Slurm lists it, step "batch" on the batch host (1 task, and
// CPUs=0 and TRES=(null) as slurmctld shows the batch step):
//
//   StepId=1.batch UserId=0 StartTime=2026-12-07T17:16:07 TimeLimit=UNLIMITED
//      State=RUNNING Partition=gpu NodeList=gpu001
//      Nodes=1 CPUs=0 Tasks=1 Name=batch Network=(null)
//      TRES=(null)
//      ResvPorts=(null)
//      CPUFreqReq=Default
//      SrunHost:Pid=(null):0
//
// HasBatchStep: the job has one to show (it runs a script, and has started on its nodes).
bool HasBatchStep(const canopy::v1::Job& job);
std::string RenderBatchStep(const canopy::v1::Job& job, absl::TimeZone tz, bool one_liner);

// One step's record, ending "\n\n" on several lines, "\n" with `one_liner`.
std::string RenderStep(const canopy::v1::Job& job, const canopy::v1::JobStep& step,
                       absl::TimeZone tz, bool one_liner);

}  // namespace canopy::ctl::scontrol

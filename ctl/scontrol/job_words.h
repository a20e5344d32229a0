// The words of scontrol's job commands: job lists (hold, uhold, release, requeue, requeuehold,
// top, show job) and `update job`. Pure; thread-safe.
//
//   JOB_LIST   ID[,ID...] words, ID = JOBID or JOBID_TASK; or "jobname=NAME" (Slurm's form for
//              hold/release: every pending job of that name the caller may act on)
//   update     job ID KEY=VALUE...   or   JobId=ID KEY=VALUE... (keys in any case):
//              Priority=N (0 holds), Nice=N, TimeLimit=TIME, TimeLimit+=TIME, TimeLimit-=TIME
//              (TIME as --time: minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]], or UNLIMITED),
//              Name=, Comment=, Partition=, NumNodes=N[-M], MinNodes=N, ExcNodeList=,
//              ReqNodeList=, Dependency= (job_update_keys.h)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::scontrol {

struct JobTarget {
  uint32_t job_id = 0;
  std::optional<uint32_t> task;  // JOBID_TASK: one task of array JOBID
  std::string text;              // as written, for messages ("5_2")
};

struct JobList {
  std::vector<JobTarget> targets;
  std::string job_name;  // jobname=NAME (then `targets` is empty)
};

// InvalidArgument "Invalid job id specified for job X" (what scontrol prints) for a word that is
// no job id, or a jobname= mixed with ids.
absl::StatusOr<JobList> ParseJobList(const std::vector<std::string>& words);

// True when `update`'s words are about a job (job ID, JobId=ID, Job=ID) rather than a node.
bool IsJobUpdate(const std::vector<std::string>& words);

struct JobUpdate {
  JobTarget target;
  canopy::v1::UpdateJobRequest request;  // job_id left for the caller (a task needs looking up)
};

// InvalidArgument with what scontrol prints (exit 1): "scontrol: error: Invalid input: X\n
// Request aborted" for a word without '=', "scontrol: error: Update of this parameter is not
// supported: X\nRequest aborted" for a key Canopy does not change, and a line naming the key
// and what it takes for a bad value ("scontrol: error: TimeLimit: expected ...").
absl::StatusOr<JobUpdate> ParseJobUpdate(const std::vector<std::string>& words);

}  // namespace canopy::ctl::scontrol

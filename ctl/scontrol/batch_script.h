// `scontrol write batch_script JOBID [FILE|-]` (Slurm 22.05's scontrol_batch_script): writes the
// job's batch script to slurm-JOBID.sh, to FILE, or to stdout for "-", and on success says
// "batch script for job JOBID written to FILE" (not for stdout, not with -Q). A failure prints
// "job script retrieval failed: REASON" on stderr, REASON as Slurm's controller words it:
// "Invalid job id specified" (unknown job), "Job script not specified" (a job without one:
// salloc/srun), "Invalid user id" (another user's job, for a non-operator). Slurm 22.05 exits 0
// even then (scontrol ignores this command's result), and so do we. Thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/controller.pb.h"
#include "canopy/v1/types.pb.h"

namespace canopy::ctl::scontrol {

struct BatchScriptRequest {
  uint32_t job_id = 0;
  std::optional<std::string> path;  // none: stdout ("-")
};

// The words after "write batch_script". Empty when no job id is given (Slurm then does nothing
// and says nothing). The id is read as atoll reads it: leading digits, else 0 (which canopyd
// knows as no job).
std::optional<BatchScriptRequest> ParseBatchScriptArgs(const std::vector<std::string>& args);

// The script of `job` as `me` may read it, or the reason Slurm gives (the text after "job script
// retrieval failed: ").
absl::StatusOr<std::string> ScriptOf(const canopy::v1::Job& job,
                                     const std::optional<canopy::v1::WhoAmIResponse>& me);

int WriteBatchScript(const std::vector<std::string>& args, bool quiet, std::ostream& out,
                     std::ostream& err);

}  // namespace canopy::ctl::scontrol

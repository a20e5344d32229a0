// The `update job` keys that change what a pending job asks for, and its name and comment
// (job_words.h reads the rest): Name= (JobName=), Comment=, Partition=, NumNodes=N[-M]
// (ReqNodes=), MinNodes=N, ExcNodeList=, ReqNodeList= (NodeList=), Dependency= (sbatch
// --dependency's syntax, common/slurm/dependency.h; empty clears it). Keys in any case. canopyd
// checks the values against the cluster as it checks a submission. Pure; thread-safe.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::scontrol {

// Sets the field `key` (lower case) names from `value`. False when `key` is none of these;
// InvalidArgument "scontrol: error: KEY: expected ..., got 'VALUE'\nRequest aborted" for a bad
// value (exit 1).
absl::StatusOr<bool> ApplyJobRequestKey(const std::string& key, const std::string& value,
                                        canopy::v1::UpdateJobRequest& request);

}  // namespace canopy::ctl::scontrol

// Whose jobs an agent runs. A LaunchJob names the user and groups to run the job as; the agent
// checks them against the node (RuntimeOptions::min_job_uid, allow_root_jobs) whoever sent it.
#pragma once

#include "absl/status/status.h"
#include "agent/runtime/job_runtime.h"
#include "canopy/v1/types.pb.h"

namespace canopy::agent::runtime {

// OK when an agent with `options` may run `job` as its user and groups: as root, a user the node
// knows, from min_job_uid up (root only with allow_root_jobs), in groups the node gives them; not
// as root, only the agent's own user. PermissionDenied saying why and which flag would allow it.
// Blocks on the name service (getpwuid_r, getgrouplist).
absl::Status MayRunJobAs(const canopy::v1::Job& job, const RuntimeOptions& options);

}  // namespace canopy::agent::runtime

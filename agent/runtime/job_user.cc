// Whose jobs an agent runs (job_user.h).
#include "agent/runtime/job_user.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "common/os/user_info.h"

namespace canopy::agent::runtime {

absl::Status MayRunJobAs(const canopy::v1::Job& job, const RuntimeOptions& options) {
  const uint32_t uid = job.user_id();
  const uid_t agent_uid = geteuid();
  if (agent_uid != 0) {
    if (uid != agent_uid) {
      return absl::PermissionDeniedError(absl::StrCat(
          "this agent runs as uid ", agent_uid, " and runs only that user's jobs, not uid ", uid,
          "'s (run canopy-agent as root to run every user's jobs)"));
    }
    return absl::OkStatus();
  }
  if (uid == 0) {
    return options.allow_root_jobs
               ? absl::OkStatus()
               : absl::PermissionDeniedError(
                     "jobs of root are refused on this node (canopy-agent --allow_root_jobs "
                     "allows them)");
  }
  if (uid < options.min_job_uid) {
    return absl::PermissionDeniedError(
        absl::StrCat("uid ", uid, " is below this node's lowest job uid ", options.min_job_uid,
                     " (canopy-agent --min_job_uid)"));
  }
  absl::StatusOr<os::UserInfo> user = os::LookupUser(uid);
  if (!user.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat("uid ", uid, " is not a user of this node: ", user.status().message()));
  }
  // The groups come with the request too: only those the node gives the user, or a forged
  // LaunchJob could run a user's job with group root.
  auto member = [&](uint32_t gid) {
    return std::binary_search(user->groups.begin(), user->groups.end(), gid);
  };
  if (!member(job.group_id())) {
    return absl::PermissionDeniedError(
        absl::StrCat("gid ", job.group_id(), " is not a group of ", user->name, " on this node"));
  }
  for (uint32_t gid : job.supplementary_gids()) {
    if (!member(gid)) {
      return absl::PermissionDeniedError(
          absl::StrCat("gid ", gid, " is not a group of ", user->name, " on this node"));
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::agent::runtime

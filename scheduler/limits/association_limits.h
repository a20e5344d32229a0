// The limits and QOS rules an association carries, read from its sacctmgr options (kept as
// attributes in the AssociationTree): GrpTRES and GrpJobs (what all jobs under the association
// hold together), MaxJobs (running jobs of one user association, or of each user under an
// account), MaxSubmitJobs (pending and running jobs, likewise per user), MaxTRESPerJob (also
// MaxTRES), MaxWall (also MaxWallDurationPerJob), and the QOS
// its jobs may use (QOS=, DefaultQOS=). Unset values are inherited from the parent account, as
// in Slurm (GrpTRES/GrpJobs are not: they bound the subtree where they are set). Pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/slurm/limit_values.h"
#include "scheduler/fairshare/association_tree.h"
#include "scheduler/limits/qos.h"

namespace canopy::limits {

struct AssociationLimits {
  slurm::TresLimits grp_tres;  // this association's own GrpTRES
  int64_t grp_jobs = -1;       // own GrpJobs
  // Inherited when unset on the association itself.
  int64_t max_jobs = -1;
  int64_t max_submit_jobs = -1;  // MaxSubmitJobs: pending and running jobs of one user
  slurm::TresLimits max_tres_per_job;
  absl::Duration max_wall = absl::InfiniteDuration();
  std::vector<std::string> qos;  // allowed QOS; empty = any
  std::string default_qos;       // "" = none set
};

// One entry per tree node, by node index. InvalidArgument naming the association and the option
// for a value that does not parse, a QOS that `qos` does not have, or a DefaultQOS outside the
// association's QOS list.
absl::StatusOr<std::vector<AssociationLimits>> LimitsOfTree(const fairshare::AssociationTree& tree,
                                                            const QosTable& qos);

}  // namespace canopy::limits

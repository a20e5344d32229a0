// `sacctmgr dump` and `sacctmgr load`: the association tree to and from sacctmgr's flat file
// (common/slurm/sacctmgr_file.h). Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/accounts.pb.h"
#include "common/slurm/sacctmgr_file.h"
#include "ctl/sacctmgr/view.h"

namespace canopy::ctl::sacctmgr {

// The comment block sacctmgr dump writes first (Slurm 22.05's text).
extern const char kDumpHeader[];

// The records sacctmgr dump writes, in its order: the Cluster line (root's Fairshare=1 and
// QOS 'normal'), then for each level of the tree a Parent line per account with children,
// followed by those children (users by name, then accounts by name), deeper levels after.
// Accounts carry Description, Organization, Fairshare and their limits; users DefaultAccount,
// AdminLevel (when not None), Fairshare and their limits.
std::vector<slurm::FlatFileRecord> DumpRecords(const AssociationView& view);

// What `load` sends: the whole tree of the file (OPERATION_REPLACE), and the lines sacctmgr
// prints before it asks to commit.
struct LoadPlan {
  canopy::v1::UpdateAssociationsRequest request;
  std::string preview;
};

// `cluster_override` is load's Cluster= ("" = the file's Cluster line). InvalidArgument, in
// sacctmgr's words, for a file without a cluster, a cluster other than canopyd's, a record
// under a Parent that was not created before it, or a Fairshare that is not a number.
absl::StatusOr<LoadPlan> PlanLoad(const std::vector<slurm::FlatFileRecord>& records,
                                  const std::string& cluster_override, const std::string& file_name,
                                  const AssociationView& view);

}  // namespace canopy::ctl::sacctmgr

// `sacctmgr show|list associations|accounts|users`, as Slurm 22.05 prints them (tests/data/
// slurm-reference/accounting-outputs-22.05.txt). Pure: a Command and the ListAssociations answer
// in, sacctmgr's table (print_fields: columns, -p, -P, -n) out. Thread-safe.
//
// Orders: associations in sacctmgr's hierarchical order (each account's users by name, then
// its sub-accounts by name, each followed by its subtree); accounts and users by name; with -s
// an account's associations (its own, then its users') and a user's associations with
// sub-account associations before the parent's (see view.h).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "ctl/sacctmgr/command.h"
#include "ctl/sacctmgr/view.h"

namespace canopy::ctl::sacctmgr {

// InvalidArgument "Unknown field 'X'" for a bad Format= name.
absl::StatusOr<std::string> RenderShow(const GlobalOptions& options, const Command& command,
                                       const AssociationView& view);

}  // namespace canopy::ctl::sacctmgr

// What `sacctmgr add|modify|delete` will change, worked out before anything is sent: the text
// sacctmgr prints (" Adding Account(s)", " Modified account associations...", " Deleting
// users..."), its errors, and the UpdateAssociations requests that make the change. Pure; the
// caller asks "Would you like to commit changes?" and sends. Thread-safe.
//
// Slurm makes the change inside a database transaction, prints what changed, and commits or
// rolls back on the answer. canopyd has no transaction to hold open, so Canopy computes the
// same listing from the current associations, asks, and only then sends the change.
#pragma once

#include <string>
#include <vector>

#include "canopy/v1/accounts.pb.h"
#include "ctl/sacctmgr/command.h"
#include "ctl/sacctmgr/view.h"

namespace canopy::ctl::sacctmgr {

struct ChangePlan {
  std::string out;    // stdout, before the commit question
  std::string err;    // stderr
  int exit_code = 0;  // when there is nothing to send: 1 for an error or "Nothing ..."
  std::vector<canopy::v1::UpdateAssociationsRequest> requests;  // empty: nothing to send
};

// For Verb::kAdd, kModify and kDelete on accounts and users.
ChangePlan PlanChange(const Command& command, const AssociationView& view);

}  // namespace canopy::ctl::sacctmgr

// AccountAdmins: the users whose accounting record makes them operators, as Slurm's AdminLevel
// does (sacctmgr add user NAME AdminLevel=Operator|Administrator). Read from the association
// tree of the latest snapshot and cached until the tree is republished, so a lookup is one
// hash probe on the RPC path. Thread-safe.
#pragma once

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/server/controller.h"

namespace canopy::server {

class AccountAdmins {
 public:
  explicit AccountAdmins(const Controller* controller) : controller_(controller) {}

  // True when `user` has AdminLevel Operator or Administrator (Admin) on any association.
  bool IsAdmin(absl::string_view user) const;

 private:
  const Controller* const controller_;
  mutable absl::Mutex mu_;
  // The accounting state the set was read from (kept alive so its address is not reused).
  mutable std::shared_ptr<const lifecycle::Accounting> read_from_ ABSL_GUARDED_BY(mu_);
  mutable absl::flat_hash_set<std::string> admins_ ABSL_GUARDED_BY(mu_);
};

}  // namespace canopy::server

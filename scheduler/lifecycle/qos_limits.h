// QOS and limits in the lifecycle (scheduler/limits): the QOS table that sacctmgr changes, the
// limit rules built from it, the association tree and AccountingStorageEnforce, a job's QOS at
// submission, and the submit-time refusal of a job that no limit would ever let run or that its
// partition does not allow (AllowAccounts). The counts of what running jobs hold are kept by
// LifecycleState::Reindex (limit_usage); the pass enforces them (plan::PassOptions::limits).
// Owner thread only; no I/O.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/core/job.h"
#include "scheduler/fairshare/association_tree.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"
#include "scheduler/limits/qos.h"

namespace canopy::lifecycle {

// The rules for `tree` and `qos` under the config's AccountingStorageEnforce. InvalidArgument
// naming the association and option for a limit that does not parse or a QOS that is missing.
absl::StatusOr<std::shared_ptr<const limits::LimitRules>> BuildLimitRules(
    const LifecycleState& s, const fairshare::AssociationTree& tree,
    std::shared_ptr<const limits::QosTable> qos);

// Makes `rules` (and their QOS table) the ones in force: priorities and limit counts follow.
void UseLimitRules(LifecycleState& s, std::shared_ptr<const limits::LimitRules> rules,
                   Effects& effects);

// sacctmgr add|modify|delete qos: the whole table becomes `specs`. PermissionDenied for a
// caller who is not an operator; InvalidArgument for a table that cannot be built or a QOS an
// association still names (QOS=, DefaultQOS=) or a job still uses (pending or running).
absl::Status SetQos(LifecycleState& s, std::vector<limits::QosSpec> specs, const Caller& caller,
                    Effects& effects);

// The QOS a new job runs under: its --qos, else its association's DefaultQOS, else "normal".
// InvalidArgument with Slurm's "Invalid qos specification" for a QOS that does not exist or,
// with AccountingStorageEnforce=qos (or limits), one its association does not allow.
absl::StatusOr<std::string> ResolveQos(const LifecycleState& s, const core::Job& job);

// A new job that can never run: over a per-job limit, a per-user or group limit by itself, or
// in a partition whose AllowAccounts leaves out its account. InvalidArgument with what is
// wrong and Slurm's line ("Job violates accounting/QOS policy (job submit limit, user's size
// and/or time limits)", "Invalid account or account/partition combination specified").
absl::Status CheckNeverRunnable(const LifecycleState& s, const core::Job& job);

}  // namespace canopy::lifecycle

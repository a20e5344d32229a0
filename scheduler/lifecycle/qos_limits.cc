// QOS and limits in the lifecycle (qos_limits.h).
#include "scheduler/lifecycle/qos_limits.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/lifecycle/priorities.h"
#include "scheduler/limits/association_limits.h"

namespace canopy::lifecycle {
namespace {

constexpr absl::string_view kPolicyViolation =
    "Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's "
    "size and/or time limits)";

const config::PartitionConfig* PartitionNamed(const config::ClusterConfig& config,
                                              const std::string& name) {
  for (const config::PartitionConfig& p : config.partitions) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

bool Enforces(const LifecycleState& s) {
  const slurm::AccountingEnforce& e = s.config->scheduling.accounting.enforce;
  return e.limits || e.safe;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const limits::LimitRules>> BuildLimitRules(
    const LifecycleState& s, const fairshare::AssociationTree& tree,
    std::shared_ptr<const limits::QosTable> qos) {
  absl::StatusOr<std::vector<limits::AssociationLimits>> assoc = limits::LimitsOfTree(tree, *qos);
  if (!assoc.ok()) {
    return assoc.status();
  }
  auto rules = std::make_shared<limits::LimitRules>();
  rules->qos = std::move(qos);
  rules->tree = std::make_shared<const fairshare::AssociationTree>(tree);
  rules->associations = *std::move(assoc);
  rules->enforce = Enforces(s);
  return rules;
}

void UseLimitRules(LifecycleState& s, std::shared_ptr<const limits::LimitRules> rules,
                   Effects& effects) {
  s.accounting.SetQos(rules->qos);
  s.limit_usage.SetRules(std::move(rules));
  // Priorities (the QOS factor) and the jobs waiting on a limit may change.
  Recalculate(s, effects);
  effects.schedule = true;
}

absl::Status SetQos(LifecycleState& s, std::vector<limits::QosSpec> specs, const Caller& caller,
                    Effects& effects) {
  if (!caller.authenticated || !caller.is_operator) {
    return absl::PermissionDeniedError(
        "only an operator (root, canopyd's user, or a user listed in the config's operators) "
        "may change QOS");
  }
  absl::StatusOr<limits::QosTable> table = limits::QosTable::Build(std::move(specs));
  if (!table.ok()) {
    return table.status();
  }
  // A QOS a job still runs or waits under may not go away.
  for (const auto& [id, job] : s.jobs.jobs()) {
    if (!core::IsTerminal(job->state) && !job->qos.empty() && table->Find(job->qos) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("QOS '", job->qos, "' is used by job ", id.value(),
                       " (not finished); cancel or wait for its jobs before deleting it"));
    }
  }
  auto shared = std::make_shared<const limits::QosTable>(*std::move(table));
  absl::StatusOr<std::shared_ptr<const limits::LimitRules>> rules =
      BuildLimitRules(s, s.accounting.tree(), shared);
  if (!rules.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the associations would no longer be valid: ", rules.status().message()));
  }
  UseLimitRules(s, *std::move(rules), effects);
  effects.qos_changed = true;
  return absl::OkStatus();
}

absl::StatusOr<std::string> ResolveQos(const LifecycleState& s, const core::Job& job) {
  const limits::LimitRules& rules = s.limit_usage.rules();
  const int32_t assoc = rules.AssociationOf(job);
  const limits::AssociationLimits* l =
      assoc >= 0 && static_cast<size_t>(assoc) < rules.associations.size()
          ? &rules.associations[assoc]
          : nullptr;
  std::string name = job.spec->qos;
  if (name.empty()) {
    name =
        l != nullptr && !l->default_qos.empty() ? l->default_qos : std::string(limits::kNormalQos);
  }
  if (rules.qos->Find(name) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("QOS '", name, "' does not exist (sacctmgr show qos lists them)",
                     "\nBatch job submission failed: Invalid qos specification"));
  }
  const slurm::AccountingEnforce& e = s.config->scheduling.accounting.enforce;
  if ((e.qos || e.limits || e.safe) && l != nullptr && !l->qos.empty() &&
      std::find(l->qos.begin(), l->qos.end(), name) == l->qos.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the association of user ", job.user_name, " in account '", job.spec->account,
                     "' does not allow QOS '", name, "'",
                     "\nBatch job submission failed: Invalid qos specification"));
  }
  return name;
}

absl::Status CheckNeverRunnable(const LifecycleState& s, const core::Job& job) {
  if (const config::PartitionConfig* part = PartitionNamed(*s.config, job.partition);
      part != nullptr && !part->policy.allow_accounts.empty()) {
    const std::vector<std::string>& allow = part->policy.allow_accounts;
    if (std::find(allow.begin(), allow.end(), job.spec->account) == allow.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "partition ", part->name, " allows only the accounts ", absl::StrJoin(allow, ","),
          " (AllowAccounts), not '", job.spec->account, "'",
          "\nBatch job submission failed: Invalid account or account/partition combination "
          "specified"));
    }
  }
  if (absl::Status st = s.limit_usage.NeverRunnable(job); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(st.message(), "\n", kPolicyViolation));
  }
  return absl::OkStatus();
}

}  // namespace canopy::lifecycle

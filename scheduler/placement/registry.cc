// Placement policy registry and the built-in policy list.
#include "scheduler/placement/registry.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/placement/canopy_policy.h"
#include "scheduler/placement/first_fit_policy.h"
#include "scheduler/placement/slurm_tree_policy.h"

namespace canopy::placement {

absl::Status PlacementPolicyRegistry::Register(std::string name, PlacementPolicyFactory factory) {
  if (!absl::StartsWith(name, "placement/")) {
    return absl::InvalidArgumentError(
        absl::StrCat("placement policy name '", name, "' must start with 'placement/'"));
  }
  if (factories_.count(name) > 0) {
    return absl::AlreadyExistsError(
        absl::StrCat("placement policy '", name, "' is registered twice"));
  }
  factories_.emplace(std::move(name), std::move(factory));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<PlacementPolicy>> PlacementPolicyRegistry::Make(
    absl::string_view name) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown placement policy '", name,
                                                   "'; known: ", absl::StrJoin(names(), ", ")));
  }
  return it->second();
}

std::vector<std::string> PlacementPolicyRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& [name, factory] : factories_) {
    out.push_back(name);
  }
  return out;
}

void RegisterBuiltinPlacementPolicies(PlacementPolicyRegistry& registry) {
  // The names are fixed and distinct, so these cannot fail.
  (void)registry.Register(std::string(CanopyPolicy::kName),
                          [] { return std::make_unique<CanopyPolicy>(); });
  (void)registry.Register(std::string(FirstFitPolicy::kName),
                          [] { return std::make_unique<FirstFitPolicy>(); });
  (void)registry.Register(std::string(SlurmTreePolicy::kName),
                          [] { return std::make_unique<SlurmTreePolicy>(); });
}

absl::StatusOr<std::unique_ptr<PlacementPolicy>> MakePlacementPolicy(absl::string_view name) {
  PlacementPolicyRegistry registry;
  RegisterBuiltinPlacementPolicies(registry);
  return registry.Make(name);
}

}  // namespace canopy::placement

// Placement policy registry: maps "placement/<name>" to a factory.
//
// Registration is explicit (STYLE.md §4: no static initialisers): the built-in policies are added
// by RegisterBuiltinPlacementPolicies, and an out-of-tree policy library exports its own
// Register function that the binary calls. Names are kept sorted, so listings are stable.
// Not thread-safe while registering; lookups on a filled registry are safe concurrently.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "scheduler/placement/policy.h"

namespace canopy::placement {

using PlacementPolicyFactory = std::function<std::unique_ptr<PlacementPolicy>()>;

class PlacementPolicyRegistry {
 public:
  // AlreadyExists if the name is taken; InvalidArgument if it does not start "placement/".
  absl::Status Register(std::string name, PlacementPolicyFactory factory);
  // InvalidArgument naming the known policies for an unknown name.
  absl::StatusOr<std::unique_ptr<PlacementPolicy>> Make(absl::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, PlacementPolicyFactory, std::less<>> factories_;
};

// Adds placement/canopy, placement/first_fit and placement/slurm_tree.
void RegisterBuiltinPlacementPolicies(PlacementPolicyRegistry& registry);

// The default policy's name.
inline constexpr absl::string_view kDefaultPlacementPolicy = "placement/canopy";

// Makes a built-in policy by name. InvalidArgument listing the known names for an unknown one.
absl::StatusOr<std::unique_ptr<PlacementPolicy>> MakePlacementPolicy(absl::string_view name);

}  // namespace canopy::placement

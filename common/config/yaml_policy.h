// The scheduling-policy parts of Canopy's YAML config: the `priority:`, `scheduler:` and
// `accounting:` sections (each key the slurm.conf key of the same name, through the same
// ApplySchedulingKey), partition policy keys, and the `accounts:` / `accounts_file:` that seed
// the association tree (turned into sacctmgr flat-file records, so they go through the same
// loader as a sacctmgr dump).
//
// Internal to canopy_config. Errors name the place as YamlReader does:
//   canopy.yaml:12: priority.weight_fairshare: expected a weight from 0 to 4294967295, got "lots"
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/config/parse_util.h"
#include "common/config/scheduling_policy.h"
#include "common/config/yaml_values.h"

namespace canopy::config::internal {

// True for the top-level keys this file reads.
bool IsPolicySection(absl::string_view key);

// Reads one top-level policy entry (`priority:`, `scheduler:`, `accounting:`,
// `fairshare_dampening_factor:`, `accounts:`, `accounts_file:`). `origin` is the config file
// (accounts_file is relative to its directory).
absl::Status ReadPolicyEntry(const YamlReader& reader, const std::string& origin,
                             const std::string& key, const YamlValue& value,
                             SchedulingPolicy& policy, UnusedKeys& unused);

// A partition entry's policy key (tres_billing_weights, priority_job_factor, priority_tier).
// false if `key` is not one.
absl::StatusOr<bool> ReadPartitionPolicyKey(const YamlReader& reader, const std::string& key,
                                            const YamlValue& value, PartitionPolicy& policy);

}  // namespace canopy::config::internal

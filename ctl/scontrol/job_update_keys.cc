// update job's Name, Comment, Partition, node count, node lists and Dependency (job_update_keys.h).
#include "ctl/scontrol/job_update_keys.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/dependency.h"
#include "common/slurm/hostlist.h"
#include "ctl/client/wire_dependency.h"

namespace canopy::ctl::scontrol {
namespace {

absl::Status Bad(absl::string_view key, absl::string_view expected, absl::string_view value) {
  return absl::InvalidArgumentError(absl::StrCat("scontrol: error: ", key, ": expected ", expected,
                                                 ", got '", value, "'\nRequest aborted"));
}

bool Count(absl::string_view text, int32_t& out) {
  return !text.empty() && absl::ascii_isdigit(text[0]) && absl::SimpleAtoi(text, &out) && out > 0;
}

// NumNodes=N or N-M (Slurm's get_resource_arg_range, without its k/m suffixes).
absl::Status NodeRange(const std::string& value, canopy::v1::UpdateJobRequest& request) {
  int32_t min = 0, max = 0;
  const size_t dash = value.find('-');
  const std::string low = value.substr(0, dash);
  if (!Count(low, min) ||
      (dash != std::string::npos && (!Count(value.substr(dash + 1), max) || max < min))) {
    return Bad("NumNodes", "a node count N or a range N-M (1 <= N <= M)", value);
  }
  request.set_min_nodes(min);
  if (dash != std::string::npos) {
    request.set_max_nodes(max);
  }
  return absl::OkStatus();
}

// A host list, or "" to clear it.
absl::Status NodeList(absl::string_view key, const std::string& value, std::string& out) {
  if (!value.empty() && !slurm::ExpandHostlist(value).ok()) {
    return Bad(key, "a host list such as gpu[001-004], or nothing to clear it", value);
  }
  out = value;
  return absl::OkStatus();
}

absl::Status Dependency(const std::string& value, canopy::v1::UpdateJobRequest& request) {
  request.set_set_dependencies(true);
  request.clear_dependencies();
  if (value.empty()) {
    return absl::OkStatus();  // Dependency= clears the job's dependencies
  }
  absl::StatusOr<slurm::DependencyList> list = slurm::ParseDependency(value);
  if (!list.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scontrol: error: Dependency: ", list.status().message(), "\nRequest aborted"));
  }
  client::AppendWireDependencies(*list, *request.mutable_dependencies());
  request.set_dependency_any(list->any);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> ApplyJobRequestKey(const std::string& key, const std::string& value,
                                        canopy::v1::UpdateJobRequest& request) {
  absl::Status s;
  if (key == "name" || key == "jobname") {
    request.set_name(value);
  } else if (key == "comment") {
    request.set_comment(value);
  } else if (key == "partition") {
    if (value.empty()) {
      return Bad("Partition", "a partition name", value);
    }
    request.set_partition(value);
  } else if (key == "numnodes" || key == "reqnodes") {
    s = NodeRange(value, request);
  } else if (key == "minnodes") {
    int32_t min = 0;
    if (!Count(value, min)) {
      return Bad("MinNodes", "a node count of at least 1", value);
    }
    request.set_min_nodes(min);
  } else if (key == "excnodelist") {
    std::string list;
    s = NodeList("ExcNodeList", value, list);
    request.set_excluded_nodes(list);
  } else if (key == "reqnodelist" || key == "nodelist") {
    std::string list;
    s = NodeList("ReqNodeList", value, list);
    request.set_required_nodes(list);
  } else if (key == "dependency") {
    s = Dependency(value, request);
  } else {
    return false;
  }
  if (!s.ok()) {
    return s;
  }
  return true;
}

}  // namespace canopy::ctl::scontrol

// Names and formatting for placement results.
#include "scheduler/placement/result.h"

#include "absl/strings/str_cat.h"

namespace canopy::placement {

absl::string_view SlurmReasonName(PendingReason reason) {
  switch (reason) {
    case PendingReason::kNone:
      return "None";
    case PendingReason::kResources:
    case PendingReason::kSwitchLimit:
      return "Resources";
    case PendingReason::kReqNodeNotAvail:
      return "ReqNodeNotAvail";
    case PendingReason::kBadConstraints:
      return "BadConstraints";
  }
  return "None";
}

absl::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPlaced:
      return "placed";
    case Outcome::kWait:
      return "wait";
    case Outcome::kInfeasible:
      return "infeasible";
  }
  return "";
}

absl::string_view RejectCauseName(RejectCause cause) {
  switch (cause) {
    case RejectCause::kDown:
      return "down";
    case RejectCause::kUnhealthy:
      return "unhealthy";
    case RejectCause::kDrained:
      return "drained";
    case RejectCause::kNotInPartition:
      return "not in partition";
    case RejectCause::kExcluded:
      return "excluded";
    case RejectCause::kGpuType:
      return "other GPU type";
    case RejectCause::kTooFewGpus:
      return "too few GPUs";
    case RejectCause::kTooFewCpus:
      return "too few CPUs";
    case RejectCause::kTooLittleMemory:
      return "too little memory";
    case RejectCause::kHeldExclusive:
      return "held by an exclusive job";
    case RejectCause::kNotIdle:
      return "not idle (exclusive job)";
    case RejectCause::kGpusBusy:
      return "GPUs in use";
    case RejectCause::kCpusBusy:
      return "CPUs in use";
    case RejectCause::kMemoryBusy:
      return "memory in use";
    case RejectCause::kCount:
      break;
  }
  return "";
}

bool IsStatic(RejectCause cause) {
  switch (cause) {
    case RejectCause::kNotInPartition:
    case RejectCause::kExcluded:
    case RejectCause::kGpuType:
    case RejectCause::kTooFewGpus:
    case RejectCause::kTooFewCpus:
    case RejectCause::kTooLittleMemory:
      return true;
    default:
      return false;
  }
}

std::string Explanation::ToString() const {
  std::string out = absl::StrCat(policy, ":");
  if (!domain.empty()) {
    absl::StrAppend(&out, " ", domain);
    if (switch_level >= 0) {
      absl::StrAppend(&out, " (switch level ", switch_level, ")");
    }
    absl::StrAppend(&out, ",");
  }
  if (!leaf_switches.empty()) {
    absl::StrAppend(&out, " ", leaf_switches.size(), " leaf switch",
                    leaf_switches.size() == 1 ? "" : "es", ",");
  }
  if (!blocks.empty()) {
    absl::StrAppend(&out, " ", blocks.size(), " block", blocks.size() == 1 ? "" : "s", ",");
  }
  if (units_used > 0) {
    absl::StrAppend(&out, " units ", units_used, " (min ", min_units, "),");
  }
  if (switch_limit_waived) {
    absl::StrAppend(&out, " switch limit waived after wait,");
  }
  if (eligible_nodes >= 0) {  // -1: a fast path that did not count the cluster
    absl::StrAppend(&out, " ", eligible_nodes, " eligible nodes");
  } else if (!out.empty() && out.back() == ',') {
    out.pop_back();
  }
  std::string rejects;
  for (int i = 0; i < kRejectCauseCount; ++i) {
    if (rejected[i] == 0) {
      continue;
    }
    absl::StrAppend(&rejects, rejects.empty() ? "" : ", ", rejected[i], " ",
                    RejectCauseName(static_cast<RejectCause>(i)));
  }
  if (!rejects.empty()) {
    absl::StrAppend(&out, "; rejected: ", rejects);
  }
  return out;
}

}  // namespace canopy::placement

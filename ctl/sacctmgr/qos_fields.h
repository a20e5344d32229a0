// The Format= fields of `sacctmgr show qos`: every name sacctmgr's _get_print_field knows (a
// case-insensitive prefix of at least a minimum length, tried in its order), with its header
// and width, and the value of each for a QOS. Fields that do not belong to a QOS (Account,
// User, ...) or that Canopy does not keep (Flags, GrpWall, UsageThreshold, ...) print blank,
// as sacctmgr prints unset values. Pure; thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/accounts.pb.h"
#include "ctl/output/print_fields.h"

namespace canopy::ctl::sacctmgr {

enum class QosFieldId {
  kBlank,
  kName,
  kDescription,
  kPriority,
  kGraceTime,
  kPreempt,
  kPreemptMode,
  kUsageFactor,
  kGrpTres,
  kGrpCpus,
  kGrpMem,
  kGrpNodes,
  kGrpJobs,
  kMaxTresPerJob,
  kMaxCpusPerJob,
  kMaxNodesPerJob,
  kMaxTresPerUser,
  kMaxCpusPerUser,
  kMaxNodesPerUser,
  kMaxJobsPerUser,
  kMaxWall,
};

struct QosField {
  QosFieldId id;
  output::FieldColumn column;
};

// Format items ("name", "maxtrespu%20") to fields; "%N" sets the width. InvalidArgument
// "Unknown field 'X'" (sacctmgr prints it and exits 1).
absl::StatusOr<std::vector<QosField>> ParseQosFields(const std::vector<std::string>& items);

output::FieldCell QosFieldValue(QosFieldId id, const canopy::v1::Qos& qos);

}  // namespace canopy::ctl::sacctmgr

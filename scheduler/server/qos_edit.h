// sacctmgr add|modify|delete qos as an edit of the QOS table: from the current table and a
// request (names, sacctmgr's Key=value options), the whole list of QOS the table becomes and
// the names that changed. The result is checked as a table (names, Preempt) only when the
// lifecycle builds it (JobLifecycle::SetQos), with the associations and jobs that use it.
// Pure; thread-safe.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/limits/qos.h"

namespace canopy::server {

enum class QosEdit {
  kAdd,     // new QOS (Description = the name), then the options
  kModify,  // the options, on existing QOS
  kDelete,  // remove them (and their names from every other QOS's Preempt list)
};

struct QosChange {
  std::vector<limits::QosSpec> specs;  // the whole table after the edit
  std::vector<std::string> changed;    // the QOS added, modified or deleted, in request order
};

// Errors: InvalidArgument for no names, MODIFY without options, DELETE with options, deleting
// "normal", or a bad option ("QOS 'high': MaxWall: expected ..."); AlreadyExists for adding a
// QOS that exists; NotFound for modifying or deleting one that does not. A name given twice
// counts once.
absl::StatusOr<QosChange> EditQos(const limits::QosTable& table, QosEdit edit,
                                  const std::vector<std::string>& names,
                                  const std::vector<std::pair<std::string, std::string>>& options);

}  // namespace canopy::server

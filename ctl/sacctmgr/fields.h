// sacctmgr's output fields: the Format= names it takes (a case-insensitive prefix of at least
// a minimum length, tried in sacctmgr's order), their headers and widths ("Share", 9), and the
// value of each for a row of `show account|user|assoc`. Pure; thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ctl/output/print_fields.h"
#include "ctl/sacctmgr/view.h"

namespace canopy::ctl::sacctmgr {

enum class FieldId {
  kAccount,
  kAdmin,
  kCluster,
  kDefaultAccount,
  kDefaultQos,
  kDescription,
  kLimit,
  kBlank,
  kOrganization,
  kParentName,
  kPartition,
  kPriority,
  kQos,
  kShare,
  kUser,
};

struct Field {
  FieldId id;
  std::string limit;  // kLimit: the attribute it shows ("MaxJobs")
  output::FieldColumn column;
};

// Format items ("account%20", "qos") to fields; "%N" sets the width (negative = left).
// InvalidArgument "Unknown field 'X'" (sacctmgr prints it and exits 1).
absl::StatusOr<std::vector<Field>> ParseFields(const std::vector<std::string>& items);

// What one printed row is about: an account record (list account), a user record (list
// user), an association (list assoc, and with -s the account's or user's associations), or an
// account or user with one of its associations.
struct RowSubject {
  const Association* account = nullptr;      // Account, Descr, Org
  std::string user;                          // User, Def Acct, Admin
  const Association* association = nullptr;  // Cluster, Share, QOS, limits, ...
};

output::FieldCell FieldValue(const Field& field, const RowSubject& row,
                             const AssociationView& view);

}  // namespace canopy::ctl::sacctmgr

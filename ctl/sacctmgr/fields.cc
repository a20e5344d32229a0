#include "ctl/sacctmgr/fields.h"

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ctl/sacctmgr/words.h"

namespace canopy::ctl::sacctmgr {
namespace {

using output::FieldCell;

struct FieldDef {
  const char* name;  // what Format= names are prefixes of
  size_t min;
  const char* header;
  int width;
  FieldId id;
  const char* limit = "";
};

// sacctmgr/common.c's _get_print_field, for the fields Canopy has, in its order. Limits print
// the association's own attribute; the CPU/node/memory ones of older formats are always blank.
constexpr FieldDef kFields[] = {
    {"Account", 3, "Account", 10, FieldId::kAccount},
    {"Acct", 4, "Account", 10, FieldId::kAccount},
    {"AdminLevel", 2, "Admin", 9, FieldId::kAdmin},
    {"Clusters", 2, "Cluster", 10, FieldId::kCluster},
    {"DefaultAccount", 8, "Def Acct", 10, FieldId::kDefaultAccount},
    {"DefaultQOS", 8, "Def QOS", 9, FieldId::kDefaultQos},
    {"Description", 3, "Descr", 20, FieldId::kDescription},
    {"GrpCPUs", 6, "GrpCPUs", 8, FieldId::kBlank},
    {"GrpCPUMins", 7, "GrpCPUMins", 11, FieldId::kBlank},
    {"GrpTRES", 7, "GrpTRES", 13, FieldId::kLimit, "GrpTRES"},
    {"GrpTRESMins", 7, "GrpTRESMins", 13, FieldId::kLimit, "GrpTRESMins"},
    {"GrpTRESRunMins", 7, "GrpTRESRunMins", 13, FieldId::kLimit, "GrpTRESRunMins"},
    {"GrpJobs", 4, "GrpJobs", 7, FieldId::kLimit, "GrpJobs"},
    {"GrpMemory", 4, "GrpMem", 7, FieldId::kBlank},
    {"GrpNodes", 4, "GrpNodes", 8, FieldId::kBlank},
    {"GrpSubmitJobs", 4, "GrpSubmit", 9, FieldId::kLimit, "GrpSubmitJobs"},
    {"GrpWall", 4, "GrpWall", 11, FieldId::kLimit, "GrpWall"},
    {"MaxCPUMinsPerJob", 7, "MaxCPUMins", 11, FieldId::kBlank},
    {"MaxCPUsPerJob", 7, "MaxCPUs", 8, FieldId::kBlank},
    {"MaxTRESPerJob", 7, "MaxTRES", 13, FieldId::kLimit, "MaxTRESPerJob"},
    {"MaxTRESPerNode", 11, "MaxTRESPerNode", 14, FieldId::kLimit, "MaxTRESPerNode"},
    {"MaxTRESMinsPerJob", 8, "MaxTRESMins", 13, FieldId::kLimit, "MaxTRESMinsPerJob"},
    {"MaxJobs", 4, "MaxJobs", 7, FieldId::kLimit, "MaxJobs"},
    {"MaxNodesPerJob", 4, "MaxNodes", 8, FieldId::kBlank},
    {"MaxSubmitJobs", 4, "MaxSubmit", 9, FieldId::kLimit, "MaxSubmitJobs"},
    {"MaxWallDurationPerJob", 4, "MaxWall", 11, FieldId::kLimit, "MaxWallDurationPerJob"},
    {"Organization", 1, "Org", 20, FieldId::kOrganization},
    {"ParentName", 7, "Par Name", 10, FieldId::kParentName},
    {"Partition", 4, "Partition", 10, FieldId::kPartition},
    {"Priority", 3, "Priority", 10, FieldId::kPriority},
    {"QOSLevel", 3, "QOS", 20, FieldId::kQos},
    {"Share", 1, "Share", 9, FieldId::kShare},
    {"FairShare", 2, "Share", 9, FieldId::kShare},
    {"User", 1, "User", 10, FieldId::kUser},
};

// Numbers print like print_fields_uint (never cut); anything else as text.
FieldCell TextOrNumber(const std::string& v) {
  uint64_t n = 0;
  if (v.empty()) {
    return FieldCell::Blank();
  }
  return absl::SimpleAtoi(v, &n) ? FieldCell::Number(n) : FieldCell::Text(v);
}

}  // namespace

absl::StatusOr<std::vector<Field>> ParseFields(const std::vector<std::string>& items) {
  std::vector<Field> fields;
  for (const std::string& item : items) {
    std::string name = item;
    int width = 0;
    if (const size_t pct = item.find('%'); pct != std::string::npos) {
      name = item.substr(0, pct);
      width = std::atoi(item.c_str() + pct + 1);
    }
    const FieldDef* def = nullptr;
    for (const FieldDef& f : kFields) {
      if (KeyIs(name, f.name, f.min)) {
        def = &f;
        break;
      }
    }
    if (def == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("Unknown field '", name, "'"));
    }
    fields.push_back({def->id, def->limit, {def->header, width != 0 ? width : def->width}});
  }
  return fields;
}

FieldCell FieldValue(const Field& field, const RowSubject& row, const AssociationView& view) {
  const Association* a = row.association;
  switch (field.id) {
    case FieldId::kAccount:
      if (a != nullptr) {
        return FieldCell::Text(a->account());
      }
      return row.account != nullptr ? FieldCell::Text(row.account->account()) : FieldCell::Blank();
    case FieldId::kUser:
      if (a != nullptr) {
        return FieldCell::Text(a->user());
      }
      return FieldCell::Text(row.user);
    case FieldId::kDescription:
      return row.account != nullptr ? FieldCell::Text(view.Description(*row.account))
                                    : FieldCell::Blank();
    case FieldId::kOrganization:
      return row.account != nullptr ? FieldCell::Text(view.Organization(*row.account))
                                    : FieldCell::Blank();
    case FieldId::kDefaultAccount:
      return row.user.empty() ? FieldCell::Blank() : FieldCell::Text(view.DefaultAccount(row.user));
    case FieldId::kAdmin: {
      if (row.user.empty()) {
        return FieldCell::Blank();
      }
      const std::string level = view.UserAttribute(row.user, "AdminLevel");
      return FieldCell::Text(level.empty() ? "None" : level);
    }
    default:
      break;
  }
  if (a == nullptr) {
    return FieldCell::Blank();
  }
  switch (field.id) {
    case FieldId::kCluster:
      return FieldCell::Text(view.cluster());
    case FieldId::kShare:
      return a->shares() < 0 ? FieldCell::Text("parent")
                             : FieldCell::Number(static_cast<uint64_t>(a->shares()));
    case FieldId::kQos:
      return FieldCell::Text(view.Qos(*a));
    case FieldId::kDefaultQos:
      return FieldCell::Text(AssociationView::Attribute(*a, "DefaultQOS"));
    case FieldId::kPriority:
      return TextOrNumber(AssociationView::Attribute(*a, "Priority"));
    case FieldId::kParentName:
      return a->user().empty() ? FieldCell::Text(view.ParentOf(*a)) : FieldCell::Blank();
    case FieldId::kLimit:
      return TextOrNumber(AssociationView::Attribute(*a, field.limit));
    default:
      return FieldCell::Blank();
  }
}

}  // namespace canopy::ctl::sacctmgr

#include "ctl/sacctmgr/change.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ctl/sacctmgr/change_internal.h"
#include "ctl/sacctmgr/words.h"

namespace canopy::ctl::sacctmgr {
namespace internal {

using Request = canopy::v1::UpdateAssociationsRequest;

ChangePlan Fail(std::string err) {
  ChangePlan plan;
  plan.err = std::move(err);
  plan.exit_code = 1;
  return plan;
}

ChangePlan Nothing(std::string out) {
  ChangePlan plan;
  plan.out = std::move(out);
  plan.exit_code = 1;
  return plan;
}

bool Listed(const std::vector<std::string>& list, const std::string& value) {
  return list.empty() ||
         std::find(list.begin(), list.end(), absl::AsciiStrToLower(value)) != list.end();
}

void SetAttribute(Association& a, const std::string& key, const std::string& value) {
  canopy::v1::Attribute* attr = a.add_attributes();
  attr->set_key(key);
  // sacctmgr clears a limit with -1; canopyd removes an attribute set to "".
  attr->set_value(value == "-1" ? "" : value);
}

// The limit settings of the command (everything but the record fields).
std::vector<std::pair<std::string, std::string>> Limits(const Command& c) {
  std::vector<std::pair<std::string, std::string>> limits;
  for (const auto& [key, value] : c.settings) {
    if (key != "Description" && key != "Organization" && key != "DefaultAccount" &&
        key != "AdminLevel") {
      limits.emplace_back(key, value);
    }
  }
  return limits;
}

// sacctmgr_print_assoc_limits: Fairshare, the limits, Parent, QOS, DefQOS.
std::string LimitsBlock(const Command& c, const std::string* parent) {
  std::string text;
  if (c.shares) {
    absl::StrAppend(&text, "  Fairshare     = ",
                    *c.shares < 0 ? std::string("parent") : absl::StrCat(*c.shares), "\n");
  }
  auto limit_lines = [&](bool qos) {
    for (const LimitLabel& l : LimitLabels()) {
      const bool is_qos = absl::string_view(l.name) == "QOS" || l.name == std::string("DefaultQOS");
      if (is_qos != qos) {
        continue;
      }
      if (const std::string* v = Setting(c, l.name); v != nullptr) {
        absl::StrAppend(&text, l.label, *v == "-1" ? "NONE" : *v, "\n");
      }
    }
  };
  limit_lines(false);
  if (parent != nullptr) {
    absl::StrAppend(&text, "  Parent        = ", *parent, "\n");
  }
  limit_lines(true);
  return text;
}

std::string AccountObject(const AssociationView& view, const Association& a) {
  return absl::StrFormat("C = %-10s A = %s of %s", view.cluster(), a.account(), view.ParentOf(a));
}

std::string UserObject(const AssociationView& view, const Association& a, int account_width) {
  return absl::StrFormat("C = %-10s A = %-*s U = %-9s", view.cluster(), account_width, a.account(),
                         a.user());
}

// Users whose default account would go away while they keep other associations: sacctmgr
// refuses such a delete.
std::string DefaultAccountConflicts(const AssociationView& view,
                                    const std::set<const Association*>& deleted) {
  std::string lines;
  for (const std::string& user : view.UserNames()) {
    const std::string def = view.DefaultAccount(user);
    bool keeps_other = false;
    const Association* lost_default = nullptr;
    for (const Association* a : view.AssociationsOf(user)) {
      if (deleted.contains(a)) {
        if (a->account() == def) {
          lost_default = a;
        }
      } else {
        keeps_other = true;
      }
    }
    if (lost_default != nullptr && keeps_other) {
      absl::StrAppend(&lines, UserObject(view, *lost_default, 20), "\n");
    }
  }
  return lines;
}

}  // namespace internal

ChangePlan PlanChange(const Command& command, const AssociationView& view) {
  using namespace internal;  // NOLINT: the plans below share these helpers
  if (!Listed(command.clusters, view.cluster())) {
    return Fail(absl::StrCat(" This cluster '", command.clusters.front(),
                             "' doesn't exist.\n        Contact your admin to add it to "
                             "accounting.\n"));
  }
  const bool account = command.entity == Entity::kAccount;
  switch (command.verb) {
    case Verb::kAdd:
      return account ? PlanAddAccount(command, view) : PlanAddUser(command, view);
    case Verb::kModify:
      return account ? PlanModifyAccount(command, view) : PlanModifyUser(command, view);
    case Verb::kDelete:
      return account ? PlanDeleteAccount(command, view) : PlanDeleteUser(command, view);
    default:
      return Fail("sacctmgr: error: not a change\n");
  }
}

}  // namespace canopy::ctl::sacctmgr

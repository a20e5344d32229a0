// sacctmgr modify account|user (account_functions.c, user_functions.c).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ctl/sacctmgr/change_internal.h"

namespace canopy::ctl::sacctmgr::internal {
namespace {

using Request = canopy::v1::UpdateAssociationsRequest;

// sacctmgr asks before changing every association when no condition is given; Canopy, which
// may not be able to ask (stdin not a terminal), refuses instead.
ChangePlan CheckModify(const Command& c) {
  if (!c.any_setting) {
    return Fail(" You didn't give me anything to set\n");
  }
  if (!c.any_condition) {
    return Fail(
        " You didn't set any conditions with 'WHERE'.\n Canopy does not modify every "
        "association at once; name them.\n");
  }
  return ChangePlan();
}

void AddLimits(const Command& c, Association& a) {
  for (const auto& [key, value] : Limits(c)) {
    SetAttribute(a, key, value);
  }
}

}  // namespace

ChangePlan PlanModifyAccount(const Command& c, const AssociationView& view) {
  if (ChangePlan check = CheckModify(c); check.exit_code != 0) {
    return check;
  }
  if (c.parent) {
    return Fail(
        " Canopy cannot move an account to another parent; delete it and add it again "
        "under the new one.\n");
  }
  std::vector<const Association*> targets;
  for (const std::string& name : view.AccountNames()) {
    const Association* a = view.Account(name);
    if (!view.IsRoot(*a) && Listed(c.names, name) && Listed(c.descriptions, view.Description(*a)) &&
        Listed(c.organizations, view.Organization(*a)) && Listed(c.parents, view.ParentOf(*a))) {
      targets.push_back(a);
    }
  }
  if (targets.empty()) {
    return Nothing(" Nothing modified\n");
  }
  const std::string* description = Setting(c, "Description");
  const std::string* organization = Setting(c, "Organization");
  const bool account_fields = description != nullptr || organization != nullptr;
  const bool association_fields = c.shares.has_value() || !Limits(c).empty();
  ChangePlan plan;
  Request request;
  request.set_operation(Request::OPERATION_MODIFY);
  request.set_set_shares(c.shares.has_value());
  for (const Association* t : targets) {
    Association* a = request.add_associations();
    a->set_account(t->account());
    a->set_shares(c.shares.value_or(t->shares()));
    if (description != nullptr) {
      SetAttribute(*a, "Description", *description);
    }
    if (organization != nullptr) {
      SetAttribute(*a, "Organization", *organization);
    }
    AddLimits(c, *a);
  }
  if (account_fields) {
    plan.out += " Modified accounts...\n";
    for (const Association* t : targets) {
      absl::StrAppend(&plan.out, "  ", t->account(), "\n");
    }
  }
  if (association_fields) {
    plan.out += " Modified account associations...\n";
    for (const Association* t : targets) {
      absl::StrAppend(&plan.out, "  ", AccountObject(view, *t), "\n");
    }
  }
  plan.requests.push_back(std::move(request));
  return plan;
}

ChangePlan PlanModifyUser(const Command& c, const AssociationView& view) {
  if (ChangePlan check = CheckModify(c); check.exit_code != 0) {
    return check;
  }
  std::vector<std::string> users;
  std::vector<const Association*> targets;
  for (const std::string& user : view.UserNames()) {
    if (!Listed(c.names, user) || !Listed(c.default_accounts, view.DefaultAccount(user))) {
      continue;
    }
    bool matched = false;
    for (const Association* a : view.AssociationsOf(user)) {
      if (Listed(c.accounts, a->account())) {
        targets.push_back(a);
        matched = true;
      }
    }
    if (matched) {
      users.push_back(user);
    }
  }
  if (targets.empty()) {
    return Nothing(" Nothing modified\n");
  }
  const std::string* def = Setting(c, "DefaultAccount");
  const std::string* admin = Setting(c, "AdminLevel");
  ChangePlan plan;
  if (def != nullptr || admin != nullptr) {
    // DefaultAccount and AdminLevel belong to the user: every association of theirs gets them.
    Request request;
    request.set_operation(Request::OPERATION_MODIFY);
    plan.out += " Modified users...\n";
    for (const std::string& user : users) {
      if (def != nullptr && view.UserAssociation(user, *def) == nullptr) {
        return Fail(absl::StrCat(" User '", user, "' has no association with account '", *def,
                                 "'; add it before making it the default.\n"));
      }
      absl::StrAppend(&plan.out, "  ", user, "\n");
      for (const Association* mine : view.AssociationsOf(user)) {
        Association* a = request.add_associations();
        a->set_account(mine->account());
        a->set_user(user);
        a->set_shares(mine->shares());
        if (def != nullptr) {
          SetAttribute(*a, "DefaultAccount", *def);
        }
        if (admin != nullptr) {
          SetAttribute(*a, "AdminLevel", *admin);
        }
      }
    }
    plan.requests.push_back(std::move(request));
  }
  if (c.shares.has_value() || !Limits(c).empty()) {
    Request request;
    request.set_operation(Request::OPERATION_MODIFY);
    request.set_set_shares(c.shares.has_value());
    plan.out += " Modified user associations...\n";
    for (const Association* t : targets) {
      absl::StrAppend(&plan.out, "  ", UserObject(view, *t, 20), "\n");
      Association* a = request.add_associations();
      a->set_account(t->account());
      a->set_user(t->user());
      a->set_shares(c.shares.value_or(t->shares()));
      AddLimits(c, *a);
    }
    plan.requests.push_back(std::move(request));
  }
  return plan;
}

}  // namespace canopy::ctl::sacctmgr::internal

// sacctmgr delete account|user (account_functions.c, user_functions.c).
#include "absl/strings/str_cat.h"
#include "ctl/sacctmgr/change_internal.h"

namespace canopy::ctl::sacctmgr::internal {
namespace {

using Request = canopy::v1::UpdateAssociationsRequest;

ChangePlan DefaultConflict(const std::string& lines, const char* what) {
  return Fail(absl::StrCat(" Users listed below have these as their Default Accounts.\n", lines,
                           " Please either remove the ", what,
                           " listed above from list and resubmit,\n or change these users "
                           "default account to remove the ",
                           what, ".\n Changes Discarded\n"));
}

}  // namespace

ChangePlan PlanDeleteAccount(const Command& c, const AssociationView& view) {
  if (!c.any_condition) {
    return Fail(" No conditions given to remove, not executing.\n");
  }
  for (const std::string& name : c.names) {
    if (name == "root") {
      return Fail(
          " You are not allowed to remove the root account.\n Use remove cluster "
          "instead.\n");
    }
  }
  std::vector<const Association*> targets;
  std::set<const Association*> deleted;
  for (const std::string& name : view.AccountNames()) {
    const Association* a = view.Account(name);
    if (!view.IsRoot(*a) && Listed(c.names, name) && Listed(c.descriptions, view.Description(*a)) &&
        Listed(c.organizations, view.Organization(*a)) && Listed(c.parents, view.ParentOf(*a))) {
      targets.push_back(a);
      for (const Association* gone : view.Subtree(name)) {
        deleted.insert(gone);
      }
    }
  }
  if (targets.empty()) {
    return Nothing(" Nothing deleted\n");
  }
  if (const std::string lines = DefaultAccountConflicts(view, deleted); !lines.empty()) {
    return DefaultConflict(lines, "accounts");
  }
  ChangePlan plan;
  Request request;
  request.set_operation(Request::OPERATION_DELETE);
  plan.out = " Deleting accounts...\n";
  for (const Association* t : targets) {
    absl::StrAppend(&plan.out, "  ", t->account(), "\n");
    request.add_associations()->set_account(t->account());
  }
  plan.requests.push_back(std::move(request));
  return plan;
}

ChangePlan PlanDeleteUser(const Command& c, const AssociationView& view) {
  if (!c.any_condition) {
    return Fail(" No conditions given to remove, not executing.\n");
  }
  // With Accounts= only those associations go (sacctmgr's "user associations"); else the users.
  const bool by_association = !c.accounts.empty();
  std::vector<std::string> users;
  std::vector<const Association*> targets;
  for (const std::string& user : view.UserNames()) {
    if (!Listed(c.names, user)) {
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
    return Nothing(" Nothing deleted\n");
  }
  const std::set<const Association*> deleted(targets.begin(), targets.end());
  if (const std::string lines = DefaultAccountConflicts(view, deleted); !lines.empty()) {
    return DefaultConflict(lines, "associations");
  }
  ChangePlan plan;
  Request request;
  request.set_operation(Request::OPERATION_DELETE);
  plan.out = by_association ? " Deleting user associations...\n" : " Deleting users...\n";
  if (!by_association) {
    for (const std::string& user : users) {
      absl::StrAppend(&plan.out, "  ", user, "\n");
    }
  }
  for (const Association* t : targets) {
    if (by_association) {
      absl::StrAppend(&plan.out, "  ", UserObject(view, *t, 10), "\n");
    }
    Association* a = request.add_associations();
    a->set_account(t->account());
    a->set_user(t->user());
  }
  plan.requests.push_back(std::move(request));
  return plan;
}

}  // namespace canopy::ctl::sacctmgr::internal
